// One round on the felt: the cards, the tie's decision, the outcome and its payouts, in
// sentences of the player's language with the cards' names.

import { cardElement, cardName, emptySlot } from "./cards.js";
import { h, replace, show } from "./dom.js";
import { N_, t, tn } from "./i18n.js";
import { money, signedMoney } from "./money.js";
import { updateButtons } from "./table-bets.js";
import { runClock, stopClock } from "./table-clock.js";
import { awaitingHands, clearDecisions, renderDecisions } from "./table-decisions.js";
import { handsOf, handStory, renderSeat, renderWars, severalOf } from "./table-hands.js";
import { el, state } from "./table-state.js";

export function showIdle() {
  state.round = null;
  renderCards(null);
  renderWars(null);
  el.headline.textContent = t("round.place_bets");
  el.headline.className = "headline";
  show(el.payouts, false);
  show(el.outcome, true);
  show(el.decisionNote, false);
  show(el.deal, true);
  show(el.surrender, false);
  show(el.war, false);
  clearDecisions();
  stopClock();
  updateButtons();
}

export function renderCards(round, animate = false) {
  replace(
    el.dealerCards,
    round ? cardElement(round.dealer_card, { deal: animate }) : emptySlot(t("round.dealer_card")),
  );
  renderSeat(round, animate);
}

export function showRound(round, { animate = false, fresh = true } = {}) {
  if (state.round?.id !== round.id) state.warTie = {};
  state.round = round;
  renderCards(round, animate && fresh);
  renderWars(round, animate);
  const deciding = round.status === "awaiting_decision";
  show(el.deal, !deciding);
  show(el.surrender, deciding && round.rules?.surrender_allowed !== false);
  show(el.war, deciding);
  show(el.decisionNote, deciding);
  if (deciding) {
    const m = (v) => money(v, round.currency);
    const parts = [tieSentence(round)];
    const tiePaid = handsOf(round).reduce((sum, hand) => sum + (hand.payouts?.tie_bet ?? 0), 0);
    if (tiePaid) parts.push(t("round.tie_bet_paid", { amount: m(tiePaid) }));
    const ante = awaitingHands(round).reduce((sum, i) => sum + (handsOf(round)[i]?.bets.ante ?? 0), 0);
    parts.push(t("round.decision_note", { half: m(Math.floor(ante / 2)), raise: m(ante) }));
    el.decisionNote.textContent = parts.join(" ");
    show(el.outcome, false);
    renderDecisions(round);
  } else {
    clearDecisions();
    renderOutcome(round);
  }
  runClock(round);
  updateButtons();
}

export function tieSentence(round) {
  const waiting = awaitingHands(round);
  if (severalOf(round) && waiting.length !== 1) {
    return tn("round.hands_tie", waiting.length, { theirs: cardName(round.dealer_card) });
  }
  const hand = handsOf(round)[waiting[0] ?? 0];
  const yours = cardName(hand?.card ?? round.player_card);
  if (severalOf(round)) {
    return t("round.hand_tie", { hand: waiting[0] + 1, yours, theirs: cardName(round.dealer_card) });
  }
  return t("round.tie", { yours, theirs: cardName(round.dealer_card) });
}

export function outcomeSentence(round) {
  const hands = handsOf(round);
  let story;
  if (hands.length > 1) {
    const won = hands.filter((hand) => hand.net > 0).length;
    story = t("outcome.hands", { won, total: hands.length });
  } else {
    story = handStory(round, hands[0]);
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

const BET_NAMES = {
  ante: N_("bet.ante"),
  tie_bet: N_("bet.tie_bet"),
  raise: N_("bet.raise"),
  war_tie_bet: N_("bet.war_tie_bet"),
};
// The API's outcome labels (BetOutcome) in words.
const OUTCOME_WORDS = {
  win: N_("result.win"),
  push: N_("result.push"),
  lose: N_("result.lose"),
  surrender: N_("result.surrender"),
  pending: N_("result.pending"),
};

// A bet's result: the outcome label when the API gives one, else worked out from its stake
// and payout.
function betResult(part, bet) {
  const given = part.outcomes?.[bet];
  if (typeof given === "string" && OUTCOME_WORDS[given]) return given;
  const stake = part.bets[bet];
  const paid = part.payouts[bet];
  if (paid === 0) return "lose";
  if (paid === stake) return "push";
  if (paid < stake) return "surrender";
  return "win";
}

// ``hand``: the hand's name, said before each bet's name to a screen reader (the rows
// follow a heading row with it).
function rows(part, currency, hand) {
  const m = (v) => money(v, currency);
  return Object.keys(BET_NAMES)
    .filter((bet) => (part.bets[bet] ?? 0) > 0)
    .map((bet) => {
      const result = betResult(part, bet);
      return h(
        "tr",
        { class: `bet-${result}`, dataset: { bet } },
        h("th", { scope: "row" }, hand ? h("span", { class: "sr-only" }, `${hand} · `) : null, t(BET_NAMES[bet])),
        h("td", {}, m(part.bets[bet])),
        h("td", {}, t(OUTCOME_WORDS[result])),
        h("td", {}, m(part.payouts[bet] ?? 0)),
      );
    });
}

// Every bet's row: the round's (one hand), or each hand's under a row naming the hand.
export function payoutRows(round) {
  const hands = handsOf(round);
  if (hands.length <= 1) return rows(round, round.currency, null);
  return hands.flatMap((hand) => {
    const name = t("bet.hand", { n: hand.hand + 1 });
    return [
      h("tr", { class: "hand-head", dataset: { hand: hand.hand } },
        h("th", { colspan: "3" }, name),
        h("td", { class: hand.net > 0 ? "win" : hand.net < 0 ? "lose" : "" }, signedMoney(hand.net, round.currency))),
      ...rows(hand, round.currency, name),
    ];
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
