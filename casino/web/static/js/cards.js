// Playing cards as elements: card codes ("KS", "10H", "JK1") to faces people read. The faces
// keep the indices casino cards carry everywhere (A K Q J); the names (what a screen reader
// says, and the sentences) are the player's language's: "ρήγας κούπα", "harten heer".

import { h } from "./dom.js";
import { N_, t } from "./i18n.js";

const SUITS = {
  C: { symbol: "♣", name: N_("card.suit.clubs"), red: false },
  D: { symbol: "♦", name: N_("card.suit.diamonds"), red: true },
  H: { symbol: "♥", name: N_("card.suit.hearts"), red: true },
  S: { symbol: "♠", name: N_("card.suit.spades"), red: false },
};
const RANK_NAMES = {
  A: N_("card.rank.ace"),
  K: N_("card.rank.king"),
  Q: N_("card.rank.queen"),
  J: N_("card.rank.jack"),
  10: N_("card.rank.10"),
  9: N_("card.rank.9"),
  8: N_("card.rank.8"),
  7: N_("card.rank.7"),
  6: N_("card.rank.6"),
  5: N_("card.rank.5"),
  4: N_("card.rank.4"),
  3: N_("card.rank.3"),
  2: N_("card.rank.2"),
};

export function parseCard(code) {
  if (typeof code !== "string") return null;
  if (code.startsWith("JK")) return { joker: true, rank: "★", suit: null };
  const suit = SUITS[code.slice(-1)];
  return suit ? { rank: code.slice(0, -1), suit } : null;
}

// The card as players say it: "king of spades", "ρήγας μπαστούνι".
export function cardName(code) {
  const card = parseCard(code);
  if (!card) return t("card.unknown");
  if (card.joker) return t("card.joker");
  const rank = RANK_NAMES[card.rank] ? t(RANK_NAMES[card.rank]) : card.rank;
  return t("card.name", { rank, suit: t(card.suit.name) });
}

// The card's index and suit, for compact places (the history, the log): "K♠".
export function cardText(code) {
  const card = parseCard(code);
  if (!card) return String(code);
  if (card.joker) return t("card.joker");
  return `${card.rank}${card.suit.symbol}`;
}

// size: "" (table), "small" (history, war piles), "tiny" (log)
export function cardElement(code, { size = "", deal = false, label = null } = {}) {
  const card = parseCard(code);
  const classes = ["card", size, deal ? "deal-in" : ""];
  if (!card) {
    return h("div", { class: [...classes, "back"].join(" "), role: "img", "aria-label": label || t("card.face_down") });
  }
  if (card.joker) classes.push("joker");
  else if (card.suit.red) classes.push("red");
  const symbol = card.joker ? "★" : card.suit.symbol;
  const rank = card.joker ? "JOKER" : card.rank;
  return h(
    "div",
    { class: classes.join(" "), role: "img", "aria-label": label || cardName(code), dataset: { card: code } },
    h("span", { class: "corner tl", "aria-hidden": "true" }, h("b", {}, rank), h("i", {}, symbol)),
    h("span", { class: "pip", "aria-hidden": "true" }, symbol),
    h("span", { class: "corner br", "aria-hidden": "true" }, h("b", {}, rank), h("i", {}, symbol)),
  );
}

export function cardBack({ size = "", label = null, count = null } = {}) {
  const el = h("div", { class: `card back ${size}`, role: "img", "aria-label": label || t("card.face_down") });
  if (count !== null) el.append(h("span", { class: "count", "aria-hidden": "true" }, String(count)));
  return el;
}

export function emptySlot(label) {
  return h("div", { class: "card slot", role: "img", "aria-label": label });
}
