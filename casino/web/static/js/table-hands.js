// A round's hands and wars on the felt: the player's seat (one hand, as the table always
// showed it, or one box per hand), and each war dealt (burns, the dealer's card, the cards of
// the hands at war); what happened to a hand, in a word and in a sentence.

import { cardElement, cardName, emptySlot, parseCard } from "./cards.js";
import { h, replace, show } from "./dom.js";
import { N_, t, tn } from "./i18n.js";
import { el } from "./table-state.js";

const RANK_ORDER = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];

export function rank(code) {
  const card = parseCard(code);
  return card && !card.joker ? RANK_ORDER.indexOf(card.rank) : -1;
}

// The round's hands (older answers without them: the one-hand fields).
export function handsOf(round) {
  if (round.hands?.length) return round.hands;
  return [{ hand: 0, card: round.player_card, status: round.status, decision: round.decision,
    ties: 0, bets: round.bets, payouts: round.payouts, outcomes: round.outcomes, net: round.net }];
}

export function warsOf(round) {
  if (round.wars) return round.wars;
  return round.war
    ? [{ burns: round.war.burns, cards: [{ hand: 0, card: round.war.player_card }], dealer_card: round.war.dealer_card }]
    : [];
}

export function severalOf(round) {
  return handsOf(round).length > 1;
}

// A hand's last war card and the dealer's in that war, or null.
function handWars(round, index) {
  return warsOf(round).filter((war) => war.cards.some((c) => c.hand === index));
}

// "N ties in a row" only where a tied war was fought again (war_ties repeat): at a bonus
// or push table a war that ties ends the hand, and its story already says so.
function tiesInARow(round, hand) {
  return handWars(round, hand.hand).length > 1 ? hand.ties : 0;
}

function lastWar(round, index) {
  const wars = handWars(round, index);
  if (!wars.length) return null;
  const war = wars[wars.length - 1];
  return { yours: war.cards.find((c) => c.hand === index).card, theirs: war.dealer_card };
}

// What happened to one hand, as a sentence (the one-hand headline, the recall).
export function handStory(round, hand) {
  const yours = cardName(hand.card);
  const theirs = cardName(round.dealer_card);
  const decision = hand.decision;
  if (decision?.action === "surrender") {
    return decision.decided_by === "timeout"
      ? t("outcome.timed_out", { yours, theirs })
      : t("outcome.surrendered", { yours, theirs });
  }
  const war = lastWar(round, hand.hand);
  if (war) {
    const cards = { yours: cardName(war.yours), theirs: cardName(war.theirs) };
    const mine = rank(war.yours);
    const dealers = rank(war.theirs);
    let story;
    if (mine > dealers) story = t("outcome.war_won", cards);
    else if (mine === dealers) story = t("outcome.war_tie", cards);
    else story = t("outcome.war_lost", cards);
    const ties = tiesInARow(round, hand);
    return ties > 1 ? `${tn("hand.ties", ties)} ${story}` : story;
  }
  if (!hand.bets?.ante) {
    return rank(hand.card) === rank(round.dealer_card)
      ? t("outcome.tie_only_won", { yours, theirs })
      : t("outcome.tie_only_lost", { yours, theirs });
  }
  if (rank(hand.card) > rank(round.dealer_card)) return t("outcome.won", { yours, theirs });
  return t("outcome.lost", { yours, theirs });
}

// A hand's state in a word or two, for its box.
const HAND_WORDS = {
  awaiting_decision: N_("hand.awaiting"),
  at_war: N_("hand.at_war"),
  win: N_("hand.win"),
  loss: N_("hand.loss"),
  tie: N_("hand.tie"),
  surrender: N_("hand.surrender"),
  war_win: N_("hand.war_win"),
  war_tie: N_("hand.war_tie"),
  war_loss: N_("hand.war_loss"),
};

function handWord(hand) {
  if (hand.status === "settled" && hand.decision?.decided_by === "timeout") return t("hand.timed_out");
  const key = hand.status === "settled" ? HAND_WORDS[hand.outcome] : HAND_WORDS[hand.status];
  return key ? t(key) : "";
}

function tone(hand) {
  if (hand.status !== "settled") return "open";
  return hand.net > 0 ? "win" : hand.net < 0 ? "lose" : "even";
}

// The player's side: one card as always, or a box per hand.
export function renderSeat(round, animate) {
  const hands = round ? handsOf(round) : [];
  el.playerSide.classList.toggle("several", hands.length > 1);
  el.handsRow.classList.toggle("several", hands.length > 1);
  if (hands.length <= 1) {
    replace(el.playerCards, round ? cardElement(round.player_card ?? hands[0].card, { deal: animate }) : emptySlot(t("round.your_card")));
    return;
  }
  replace(
    el.playerCards,
    hands.map((hand) =>
      h("div", { class: `seat ${tone(hand)}`, id: `seat-${hand.hand}`, dataset: { hand: hand.hand, status: hand.status } },
        h("span", { class: "seat-name" }, t("bet.hand", { n: hand.hand + 1 })),
        cardElement(hand.card, { size: "small", deal: animate }),
        h("span", { class: "seat-word" }, handWord(hand)),
        tiesInARow(round, hand) > 1 ? h("span", { class: "seat-ties" }, tn("hand.ties", tiesInARow(round, hand))) : null),
    ),
  );
}

// Every war dealt: the burns, the dealer's card, each hand's card (the first war of a round
// of one hand keeps the ids the table always had: burn-cards, war-dealer, war-player).
export function renderWars(round, animate) {
  const wars = round ? warsOf(round) : [];
  const several = round ? severalOf(round) : false;
  const small = (c) => cardElement(c, { size: "small", deal: animate });
  const id = (name, i) => (i === 0 ? name : `${name}-${i}`);
  replace(
    el.warRows,
    wars.map((war, i) =>
      h("div", { class: "war-deal" },
        wars.length > 1 ? h("p", { class: "war-number" }, t("round.war_number", { n: i + 1 })) : null,
        h("div", { class: "war-deal-rows" },
          h("div", { class: "war-row" }, h("span", { class: "who" }, t("table.burnt")),
            h("div", { class: "card-row", id: id("burn-cards", i) }, war.burns.map(small))),
          h("div", { class: "war-row" }, h("span", { class: "who" }, t("table.dealer")),
            h("div", { class: "card-row", id: id("war-dealer", i) }, small(war.dealer_card))),
          several
            ? war.cards.map((c) =>
              h("div", { class: "war-row" }, h("span", { class: "who" }, t("bet.hand", { n: c.hand + 1 })),
                h("div", { class: "card-row", id: `war-hand-${c.hand}-${i}` }, small(c.card))))
            : h("div", { class: "war-row" }, h("span", { class: "who" }, t("table.you")),
              h("div", { class: "card-row", id: id("war-player", i) }, war.cards.map((c) => small(c.card)))))),
    ),
  );
  show(el.warZone, wars.length > 0);
}
