// One round on the felt: the cards, the tie's decision, the outcome and its payouts, in
// sentences of the player's language with the cards' names.

import { cardElement, cardName, emptySlot, parseCard } from "./cards.js";
import { h, replace, show } from "./dom.js";
import { N_, t } from "./i18n.js";
import { money, signedMoney } from "./money.js";
import { updateButtons } from "./table-bets.js";
import { el, state } from "./table-state.js";

const RANK_ORDER = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];

export function showIdle() {
  state.round = null;
  renderCards(null);
  show(el.warZone, false);
  el.headline.textContent = t("round.place_bets");
  el.headline.className = "headline";
  show(el.payouts, false);
  show(el.outcome, true);
  show(el.decisionNote, false);
  show(el.deal, true);
  show(el.surrender, false);
  show(el.war, false);
  updateButtons();
}

export function renderCards(round, animate = false) {
  replace(
    el.dealerCards,
    round ? cardElement(round.dealer_card, { deal: animate }) : emptySlot(t("round.dealer_card")),
  );
  replace(
    el.playerCards,
    round ? cardElement(round.player_card, { deal: animate }) : emptySlot(t("round.your_card")),
  );
}

export function showRound(round, { animate = false, fresh = true } = {}) {
  state.round = round;
  renderCards(round, animate && fresh);
  const deciding = round.status === "awaiting_decision";
  if (round.war) {
    replace(el.burnCards, round.war.burns.map((c) => cardElement(c, { size: "small", deal: animate })));
    replace(el.warDealer, cardElement(round.war.dealer_card, { size: "small", deal: animate }));
    replace(el.warPlayer, cardElement(round.war.player_card, { size: "small", deal: animate }));
  }
  show(el.warZone, Boolean(round.war));
  show(el.deal, !deciding);
  show(el.surrender, deciding && round.rules?.surrender_allowed !== false);
  show(el.war, deciding);
  show(el.decisionNote, deciding);
  if (deciding) {
    const m = (v) => money(v, round.currency);
    const parts = [tieSentence(round)];
    if (round.payouts.tie_bet) parts.push(t("round.tie_bet_paid", { amount: m(round.payouts.tie_bet) }));
    parts.push(
      t("round.decision_note", { half: m(Math.floor(round.bets.ante / 2)), raise: m(round.bets.ante) }),
    );
    el.decisionNote.textContent = parts.join(" ");
    show(el.outcome, false);
  } else {
    renderOutcome(round);
  }
  updateButtons();
}

function rank(code) {
  const card = parseCard(code);
  return card && !card.joker ? RANK_ORDER.indexOf(card.rank) : -1;
}

export function tieSentence(round) {
  return t("round.tie", { yours: cardName(round.player_card), theirs: cardName(round.dealer_card) });
}

export function outcomeSentence(round) {
  const yours = cardName(round.player_card);
  const theirs = cardName(round.dealer_card);
  let story;
  if (round.decision?.action === "surrender") {
    story = t("outcome.surrendered", { yours, theirs });
  } else if (round.war) {
    const cards = { yours: cardName(round.war.player_card), theirs: cardName(round.war.dealer_card) };
    const mine = rank(round.war.player_card);
    const dealers = rank(round.war.dealer_card);
    if (mine > dealers) story = t("outcome.war_won", cards);
    else if (mine === dealers) story = t("outcome.war_tie", cards);
    else story = t("outcome.war_lost", cards);
  } else if (rank(round.player_card) > rank(round.dealer_card)) {
    story = t("outcome.won", { yours, theirs });
  } else {
    story = t("outcome.lost", { yours, theirs });
  }
  const amount = money(Math.abs(round.net), round.currency);
  const result =
    round.net > 0
      ? t("outcome.net_win", { amount })
      : round.net < 0
        ? t("outcome.net_loss", { amount })
        : t("outcome.net_even");
  return `${story} ${result}`;
}

const BET_NAMES = { ante: N_("bet.ante"), tie_bet: N_("bet.tie_bet"), raise: N_("bet.raise") };
// The API's outcome labels (BetOutcome) in words.
const OUTCOME_WORDS = {
  win: N_("result.win"),
  push: N_("result.push"),
  lose: N_("result.lose"),
  surrender: N_("result.surrender"),
  pending: N_("result.pending"),
};

// A bet's result: the round's outcome label when the API gives one, else worked out from its
// stake and payout.
function betResult(round, bet) {
  const given = round.outcomes?.[bet];
  if (typeof given === "string" && OUTCOME_WORDS[given]) return given;
  const stake = round.bets[bet];
  const paid = round.payouts[bet];
  if (paid === 0) return "lose";
  if (paid === stake) return "push";
  if (paid < stake) return "surrender";
  return "win";
}

export function payoutRows(round) {
  const m = (v) => money(v, round.currency);
  return Object.keys(BET_NAMES)
    .filter((bet) => round.bets[bet] > 0)
    .map((bet) => {
      const result = betResult(round, bet);
      return h(
        "tr",
        { class: `bet-${result}` },
        h("th", { scope: "row" }, t(BET_NAMES[bet])),
        h("td", {}, m(round.bets[bet])),
        h("td", {}, t(OUTCOME_WORDS[result])),
        h("td", {}, m(round.payouts[bet])),
      );
    });
}

function renderOutcome(round) {
  el.headline.textContent = outcomeSentence(round);
  el.headline.className = `headline ${round.net > 0 ? "win" : round.net < 0 ? "lose" : "even"}`;
  replace(el.payouts.tBodies[0], payoutRows(round));
  el.net.textContent = signedMoney(round.net, round.currency);
  el.net.className = round.net > 0 ? "win" : round.net < 0 ? "lose" : "";
  show(el.payouts, true);
  show(el.outcome, true);
}
