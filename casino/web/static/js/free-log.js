// The battle log of a free-play game: one line per battle, newest first, the last LOG_TAIL.

import { cardText } from "./cards.js";
import { h, replace } from "./dom.js";
import { list, t, tn } from "./i18n.js";
import { el, HUMAN, LOG_TAIL, state } from "./free-state.js";

// "You", "Computer", "Computer 2", "Player 3".
export function seatName(game, seat) {
  const info = game.seats[seat];
  if (info.type === "human") return seat === HUMAN ? t("free.seat.you") : t("free.seat.player", { n: seat + 1 });
  const computers = game.seats.filter((s) => s.type === "computer").length;
  return computers > 1 ? t("free.seat.computer_n", { n: seat }) : t("free.seat.computer");
}

// Whether `seat` is the player at this screen (sentences say "you" to it).
export function isYou(game, seat) {
  return seat === HUMAN && game.seats[HUMAN].type === "human";
}

export function names(game, seats) {
  return list(seats.map((seat) => seatName(game, seat)));
}

export function logText(game, entry) {
  const name = (seat) => seatName(game, seat);
  const turned = (entry.turned || [])
    .map((card, seat) => (card ? t("log.turned", { name: name(seat), card: cardText(card) }) : null))
    .filter(Boolean)
    .join(" · ");
  const parts = [turned];
  for (const war of entry.wars || []) {
    const ups = (war.up || [])
      .map((card, seat) => (card ? t("log.war_card", { card: cardText(card), name: name(seat) }) : null))
      .filter(Boolean)
      .join(" v ");
    parts.push(t("log.war", { cards: ups }));
  }
  for (const steal of entry.steals || []) {
    const values = { name: name(steal.seat), from: names(game, steal.from || []), card: cardText(steal.card) };
    parts.push(
      isYou(game, steal.seat)
        ? tn("log.steal.you", steal.cards, values)
        : tn("log.steal.other", steal.cards, values),
    );
  }
  if (entry.winner !== null && entry.winner !== undefined) {
    parts.push(
      isYou(game, entry.winner)
        ? tn("log.take.you", entry.won)
        : tn("log.take.other", entry.won, { name: name(entry.winner) }),
    );
  } else if (entry.void) {
    parts.push(t("log.void"));
  }
  for (const seat of entry.eliminated || []) {
    parts.push(isYou(game, seat) ? t("log.out.you") : t("log.out.other", { name: name(seat) }));
  }
  if (entry.round_over) parts.push(t("log.round_over", { round: entry.round_over.round }));
  return parts.filter(Boolean).join(" → ");
}

function logItem(game, entry) {
  return h("li", { class: entry.wars?.length ? "war" : "", value: entry.battle },
    h("span", { class: "n" }, `#${entry.battle}`),
    h("span", { class: "what" }, logText(game, entry)));
}

export function addLogEntries(game, entries) {
  if (!entries.length) return;
  el.log.prepend(...entries.map((entry) => logItem(game, entry)).reverse());
  while (el.log.children.length > LOG_TAIL) el.log.lastElementChild.remove();
  state.shownBattle = Math.max(state.shownBattle, entries[entries.length - 1].battle);
  renderLogNote(game);
}

// The log again from the game's own tail (another language).
export function rebuildLog(game) {
  replace(el.log, game.log.slice(-LOG_TAIL).reverse().map((entry) => logItem(game, entry)));
  renderLogNote(game);
}

function renderLogNote(game) {
  el.logNote.textContent =
    game.log_size > LOG_TAIL
      ? t("log.tail", { tail: LOG_TAIL, total: game.log_size })
      : t("log.newest_first");
}
