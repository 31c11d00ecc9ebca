// A free-play game on the page: the seats, the battles as they are revealed, the player's
// choices, the result.

import { cardBack, cardElement, cardText } from "./cards.js";
import { h, replace, show, sleep } from "./dom.js";
import { list, N_, number, t, tn } from "./i18n.js";
import { addLogEntries, isYou, logText, names, seatName } from "./free-log.js";
import { announce, el, HUMAN, state, titleOf } from "./free-state.js";

// How a game ended (the engine's EndReason), in words.
export const REASONS = {
  "all-cards": N_("reason.all-cards"),
  "three-wars": N_("reason.three-wars"),
  "holder-loses": N_("reason.holder-loses"),
  "first-out-loses": N_("reason.first-out-loses"),
  "one-pass": N_("reason.one-pass"),
  "battle-limit": N_("reason.battle-limit"),
  "battle-cap": N_("reason.battle-cap"),
  cycle: N_("reason.cycle"),
  void: N_("reason.void"),
};
const STRATEGIES = { greedy: N_("free.strategy.greedy"), random: N_("free.strategy.random") };

export function reasonText(reason) {
  return REASONS[reason] ? t(REASONS[reason]) : reason;
}

// Shows the battles a request played one after the other, at the chosen speed.
export async function reveal(view) {
  const fresh = view.log.filter((entry) => entry.battle > state.shownBattle);
  const delay = Number(el.speed.value);
  if (delay > 0 && fresh.length > 1) {
    state.animating = true;
    state.skip = false;
    show(el.skip, true);
    updateButtons();
    for (const entry of fresh) {
      if (state.skip) break;
      renderSeats(view, entry);
      addLogEntries(view, [entry]);
      el.gameStatus.textContent = t("free.battle", { n: number(entry.battle) });
      await sleep(delay);
    }
  }
  state.game = view;
  render(view);
  const last = view.log[view.log.length - 1];
  if (view.result) announce(resultText(view));
  else if (view.pending.some((p) => p.seat === HUMAN)) {
    announce(t("decision.announce", { what: decisionText(view, view.pending[0]) }));
  } else if (last) announce(logText(view, last));
}

export function render(game) {
  el.gameTitle.textContent = titleOf(game.variant);
  const parts = [t("free.battle", { n: number(game.battles) }), tn("free.wars", game.wars)];
  if (game.rules.rounds > 1) parts.push(t("free.round_of", { round: game.round, rounds: game.rules.rounds }));
  parts.push(
    game.seed
      ? t("free.seed", { seed: game.seed })
      : t("free.seed_hash", { hash: game.seed_hash.slice(0, 12) }),
  );
  el.gameStatus.textContent = parts.join(" · ");
  const last = game.table || game.log[game.log.length - 1] || null;
  renderSeats(game, last);
  addLogEntries(game, game.log.filter((entry) => entry.battle > state.shownBattle));
  renderDecision(game);
  renderResult(game);
  updateButtons();
}

export function playersText(game) {
  return list(game.seats.map((s) => tn("free.seat_cards", s.cards, { name: seatName(game, s.seat) })));
}

function seatStats(game, info, entry, stock) {
  const seat = info.seat;
  const stats = [tn("free.stats.stock", stock)];
  if (info.pile !== undefined) {
    const pile = entry?.piles ? entry.piles[seat] : info.pile;
    stats.push(
      info.pile_top
        ? t("free.stats.pile_top", { n: pile, card: cardText(info.pile_top) })
        : t("free.stats.pile", { n: pile }),
    );
  }
  if (info.won !== undefined) stats.push(tn("free.stats.won", info.won));
  if (info.rounds_won !== undefined) stats.push(tn("free.stats.rounds_won", info.rounds_won));
  if (info.wars_won !== undefined) stats.push(tn("free.stats.wars_won", info.wars_won));
  return stats.join(" · ");
}

export function renderSeats(game, entry = null) {
  if (!game) {
    replace(el.seats,
      [0, 1].map((seat) =>
        h("div", { class: `seat${seat === HUMAN ? " human" : ""}` },
          h("div", { class: "seat-name" }, seat === HUMAN ? t("free.seat.you") : t("free.seat.computer")),
          h("div", { class: "battle-cards" }, cardBack({ label: t("free.stock") })))));
    return;
  }
  const total = game.seats.reduce((sum, s) => sum + s.cards, 0) || 1;
  replace(
    el.seats,
    game.seats.map((info) => {
      const seat = info.seat;
      const stock = entry?.stocks ? entry.stocks[seat] : info.stock;
      const turned = entry?.turned?.[seat] ?? null;
      const warCards = (entry?.wars || []).flatMap((war) => {
        const down = war.down?.[seat];
        const backs = Array.isArray(down) ? down.length : down || 0;
        const up = war.up?.[seat];
        return [
          ...Array.from({ length: Math.min(backs, 3) }, () => cardBack({ size: "tiny", label: t("free.war_card_down") })),
          up ? cardElement(up, { size: "tiny" }) : null,
        ];
      });
      const took = entry && entry.winner === seat;
      const out = stock === 0 && info.cards === 0;
      const hand = Array.isArray(info.hand) && info.hand.length
        ? h("div", { class: "card-row", "aria-label": t("free.your_hand") }, info.hand.map((c) => cardElement(c, { size: "small" })))
        : null;
      const bar = h("span", {});
      bar.style.setProperty("width", `${Math.round((100 * (info.cards || stock)) / total)}%`);
      const strategy = info.strategy || "greedy";
      return h(
        "div",
        { class: `seat${info.type === "human" ? " human" : ""}${took ? " took" : ""}${out ? " out" : ""}`, dataset: { seat } },
        h("div", { class: "seat-name" }, seatName(game, seat),
          info.type === "computer" ? h("small", {}, STRATEGIES[strategy] ? t(STRATEGIES[strategy]) : strategy) : null),
        h("div", { class: "battle-cards" },
          cardBack({ size: "small", label: tn("free.stock_cards", stock), count: stock }),
          turned ? cardElement(turned, { size: "small" }) : null,
          warCards),
        hand,
        h("div", { class: "stack-bar", "aria-hidden": "true" }, bar),
        h("div", { class: "seat-stats" }, seatStats(game, info, entry, stock)),
      );
    }),
  );
}

function decisionText(game, pending) {
  const c = pending.context || {};
  if (pending.kind === "steal-or-play") {
    const targets = (c.targets || []).map((target) =>
      tn("decision.target", target.cards, { name: seatName(game, target.seat), top: cardText(target.top) }),
    );
    return t("decision.steal_or_play", { card: cardText(c.card), targets: list(targets, "disjunction") });
  }
  if (pending.kind === "hand-card") return c.war ? t("decision.hand_war") : t("decision.hand");
  if (pending.kind === "pile-top") {
    return t("decision.pile_top", { cards: (c.cards || []).map(cardText).join(" ") });
  }
  return t("decision.your_move");
}

function moveLabel(moveBody) {
  if (moveBody.action === "steal") return t("move.steal");
  if (moveBody.action === "play" && moveBody.card) return t("move.play_card", { card: cardText(moveBody.card) });
  if (moveBody.action === "play") return t("move.play");
  if (moveBody.action === "top") return t("move.top", { card: cardText(moveBody.card) });
  return moveBody.action;
}

function renderDecision(game) {
  const pending = game.pending.find((p) => p.seat === HUMAN);
  if (!pending || game.result) {
    show(el.decision, false);
    return;
  }
  const buttons = pending.legal.map((legal) => {
    const onclick = () => state.onMove(legal);
    if (pending.kind === "hand-card") {
      return h("button", { type: "button", class: "hand-card-button", "aria-label": moveLabel(legal), onclick },
        cardElement(legal.card, { size: "small", label: moveLabel(legal) }));
    }
    return h("button", { type: "button", class: legal.action === "steal" ? "primary" : "", onclick }, moveLabel(legal));
  });
  replace(el.decision, h("p", {}, decisionText(game, pending)), h("div", { class: "move-buttons" }, buttons));
  show(el.decision, true);
  const first = el.decision.querySelector("button");
  if (first && !state.busy) first.focus();
  else if (first) state.focusDecision = true;
}

export function resultText(game) {
  const result = game.result;
  const values = {
    reason: reasonText(result.reason),
    battles: tn("free.battles", result.battles),
    wars: tn("free.wars", game.wars),
  };
  if (result.outcome === "draw" || !result.winners.length) return t("result.draw", values);
  if (result.winners.length === 1 && isYou(game, result.winners[0])) return t("result.you_win", values);
  const key = result.winners.length > 1 ? N_("result.winners") : N_("result.winner");
  return t(key, { ...values, names: names(game, result.winners) });
}

function renderResult(game) {
  if (!game.result) {
    show(el.result, false);
    return;
  }
  replace(el.result, resultText(game), h("small", {}, t("result.seed", { seed: game.seed })));
  show(el.result, true);
}

export function updateButtons() {
  const game = state.game;
  const over = !game || Boolean(game.result);
  const deciding = Boolean(game?.pending.some((p) => p.seat === HUMAN));
  const busy = state.busy;
  el.battle.disabled = busy || over || deciding;
  el.autoplay.disabled = busy || over || deciding;
  el.toEnd.disabled = busy || over;
  el.newGame.disabled = busy;
  el.simulate.disabled = busy;
  for (const button of el.decision.querySelectorAll("button")) button.disabled = busy;
  if (!busy && state.focusDecision) {
    state.focusDecision = false;
    el.decision.querySelector("button")?.focus();
  }
}
