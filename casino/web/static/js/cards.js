// Playing cards as elements: card codes ("KS", "10H", "JK1") to faces people read.

import { h } from "./dom.js";

const SUITS = {
  C: { symbol: "♣", name: "clubs", red: false },
  D: { symbol: "♦", name: "diamonds", red: true },
  H: { symbol: "♥", name: "hearts", red: true },
  S: { symbol: "♠", name: "spades", red: false },
};
const RANK_NAMES = {
  A: "Ace",
  K: "King",
  Q: "Queen",
  J: "Jack",
  10: "Ten",
  9: "Nine",
  8: "Eight",
  7: "Seven",
  6: "Six",
  5: "Five",
  4: "Four",
  3: "Three",
  2: "Two",
};

export function parseCard(code) {
  if (typeof code !== "string") return null;
  if (code.startsWith("JK")) return { joker: true, rank: "★", suit: null };
  const suit = SUITS[code.slice(-1)];
  return suit ? { rank: code.slice(0, -1), suit } : null;
}

export function cardName(code) {
  const card = parseCard(code);
  if (!card) return "unknown card";
  if (card.joker) return "Joker";
  return `${RANK_NAMES[card.rank] || card.rank} of ${card.suit.name}`;
}

export function cardText(code) {
  const card = parseCard(code);
  if (!card) return String(code);
  if (card.joker) return "Joker";
  return `${card.rank}${card.suit.symbol}`;
}

// size: "" (table), "small" (history, war piles), "tiny" (log)
export function cardElement(code, { size = "", deal = false, label = null } = {}) {
  const card = parseCard(code);
  const classes = ["card", size, deal ? "deal-in" : ""];
  if (!card) {
    return h("div", { class: [...classes, "back"].join(" "), role: "img", "aria-label": label || "Face-down card" });
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

export function cardBack({ size = "", label = "Face-down card", count = null } = {}) {
  const el = h("div", { class: `card back ${size}`, role: "img", "aria-label": label });
  if (count !== null) el.append(h("span", { class: "count", "aria-hidden": "true" }, String(count)));
  return el;
}

export function emptySlot(label) {
  return h("div", { class: "card slot", role: "img", "aria-label": label });
}
