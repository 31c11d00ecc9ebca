// Free-play War: any variant against computer seats, autoplay, the battle log, simulations.

import { ApiError, Client } from "./api.js";
import { cardBack, cardElement, cardText } from "./cards.js";
import { $, h, replace, show, sleep } from "./dom.js";
import { histogram } from "./histogram.js";
import { describeError } from "./problems.js";

const BASE = "/api/v1/free-play";
const LOG_TAIL = 400;
const HUMAN = 0;

const OPTION_LABELS = {
  seats: "Players",
  pack: "Pack",
  joker_deal: "How jokers are dealt",
  war_down: "Cards face down in a war",
  ace_value: "An ace counts",
  repeat_tie: "A tie during a war",
  return_order: "Won cards go back",
  short_stack: "Short of cards for a war",
  war_joins: "Who fights a war",
  won_cards: "Won cards go",
  protect_own_pile: "Protect your own pile",
  ending: "The game ends",
  battle_limit: "Battle limit",
  rounds: "Rounds in the match",
};

const REASONS = {
  "all-cards": "took every card",
  "three-wars": "won three wars",
  "holder-loses": "the last player holding cards loses",
  "first-out-loses": "the first player out of cards loses",
  "one-pass": "most cards won in one pass through the pack",
  "battle-limit": "most cards when the battle limit was reached",
  "battle-cap": "stopped by the 10,000-battle safety cap",
  cycle: "the game repeated a position (a cycle)",
  void: "a war nobody could finish",
};

const state = {
  client: new Client({ onWait: showWaiting }),
  variants: [],
  game: null,
  busy: false,
  animating: false,
  skip: false,
  shownBattle: 0,
};

const el = {};

async function start() {
  for (const id of [
    "variant", "variant-blurb", "options", "option-hint", "seed", "setup", "new-game", "game-title", "game-status",
    "seats", "decision", "result", "battle", "autoplay", "to-end", "skip", "speed", "log", "log-note",
    "sim-form", "sim-games", "sim-seed", "simulate", "sim-result", "announcer", "error", "error-text",
    "dismiss", "waiting",
  ]) {
    el[id.replace(/-([a-z])/g, (_, c) => c.toUpperCase())] = document.getElementById(id);
  }
  el.setup.addEventListener("submit", (event) => {
    event.preventDefault();
    newGame();
  });
  el.simForm.addEventListener("submit", (event) => {
    event.preventDefault();
    simulate();
  });
  el.variant.addEventListener("change", renderOptions);
  el.options.addEventListener("focusin", (event) => {
    const help = document.getElementById(`${event.target.id}-help`);
    if (help) el.optionHint.textContent = help.textContent;
  });
  el.battle.addEventListener("click", () => autoplay("battle"));
  el.autoplay.addEventListener("click", () => autoplay("decision"));
  el.toEnd.addEventListener("click", () => autoplay("end"));
  el.skip.addEventListener("click", () => {
    state.skip = true;
  });
  el.dismiss.addEventListener("click", () => show(el.error, false));
  el.simSeed.value = `sim-${Math.random().toString(36).slice(2, 8)}`;
  renderSeats(null);
  updateButtons();
  try {
    const catalogue = await state.client.get(`${BASE}/variants`);
    state.variants = catalogue.items;
  } catch (error) {
    showError(describeError(error));
    return;
  }
  replace(el.variant, state.variants.map((v) => h("option", { value: v.name }, v.title)));
  const wanted = new URLSearchParams(location.search).get("variant");
  if (wanted && state.variants.some((v) => v.name === wanted)) el.variant.value = wanted;
  renderOptions();
}

// ---------------------------------------------------------------- setup

function currentVariant() {
  return state.variants.find((v) => v.name === el.variant.value);
}

function valueText(value) {
  if (value === null) return "none";
  if (value === true) return "yes";
  if (value === false) return "no";
  return String(value);
}

function renderOptions() {
  const variant = currentVariant();
  if (!variant) return;
  el.variantBlurb.textContent = variant.description;
  const fields = Object.entries(variant.options).map(([name, option]) => {
    const id = `option-${name}`;
    const select = h(
      "select",
      { id, name, "aria-describedby": `${id}-help` },
      option.allowed.map((value, i) =>
        h("option", { value: String(i), selected: value === option.default }, valueText(value)),
      ),
    );
    return h(
      "div",
      { class: "field" },
      h("label", { for: id }, OPTION_LABELS[name] || name.replace(/_/g, " ")),
      select,
      // Read out with the field; shown below the fields for the one in focus.
      h("span", { class: "sr-only", id: `${id}-help` }, option.description),
    );
  });
  const legend = el.options.querySelector("legend");
  replace(el.options, legend, fields);
  show(el.options, fields.length > 0);
  el.optionHint.textContent = fields.length
    ? "Each option changes one rule; focus one to read what it does."
    : "This variant has no options.";
}

function chosenOptions() {
  const variant = currentVariant();
  const options = {};
  for (const [name, option] of Object.entries(variant.options)) {
    const select = document.getElementById(`option-${name}`);
    const value = option.allowed[Number(select.value)];
    if (value !== option.default) options[name] = value;
  }
  return options;
}

// ---------------------------------------------------------------- playing

async function newGame() {
  const body = { variant: el.variant.value, options: chosenOptions() };
  const seed = el.seed.value.trim();
  if (seed) body.seed = seed;
  await work(async () => {
    const game = await state.client.post(`${BASE}/games`, body);
    // The game is its creator's: every later request about it bears the game token, which
    // the creation's answer alone carries.
    state.client.token = game.token;
    state.game = game;
    state.shownBattle = 0;
    replace(el.log);
    render(game);
    announce(`New game of ${titleOf(game)}: ${game.seats.length} players. ${playersText(game)}`);
  });
}

async function autoplay(until) {
  const game = state.game;
  if (!game) return;
  await work(async () => {
    const view = await state.client.post(
      `${BASE}/games/${game.id}/autoplay?log_tail=${LOG_TAIL}`,
      { until },
    );
    await reveal(view);
  });
}

async function move(body) {
  const game = state.game;
  await work(async () => {
    try {
      const view = await state.client.post(
        `${BASE}/games/${game.id}/moves?log_tail=${LOG_TAIL}`,
        body,
      );
      await reveal(view);
    } catch (error) {
      if (error instanceof ApiError && ["illegal_move", "concurrent_update"].includes(error.code)) {
        render(await state.client.get(`${BASE}/games/${game.id}?log_tail=${LOG_TAIL}`));
      }
      throw error;
    }
  });
}

async function work(task) {
  if (state.busy) return;
  show(el.error, false);
  state.busy = true;
  updateButtons();
  try {
    await task();
  } catch (error) {
    showError(describeError(error));
  } finally {
    state.busy = false;
    state.animating = false;
    show(el.skip, false);
    updateButtons();
  }
}

// Shows the battles a request played one after the other, at the chosen speed.
async function reveal(view) {
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
      el.gameStatus.textContent = `Battle ${entry.battle}`;
      await sleep(delay);
    }
  }
  state.game = view;
  render(view);
  const last = view.log[view.log.length - 1];
  if (view.result) announce(resultText(view));
  else if (view.pending.some((p) => p.seat === HUMAN)) announce(`Your move: ${decisionText(view, view.pending[0])}`);
  else if (last) announce(logText(view, last));
}

function render(game) {
  el.gameTitle.textContent = titleOf(game);
  const parts = [`Battle ${game.battles}`, `${game.wars} ${game.wars === 1 ? "war" : "wars"}`];
  if (game.rules.rounds > 1) parts.push(`round ${game.round} of ${game.rules.rounds}`);
  parts.push(game.seed ? `seed “${game.seed}”` : `seed hash ${game.seed_hash.slice(0, 12)}…`);
  el.gameStatus.textContent = parts.join(" · ");
  const last = game.table || game.log[game.log.length - 1] || null;
  renderSeats(game, last);
  addLogEntries(game, game.log.filter((entry) => entry.battle > state.shownBattle));
  renderDecision(game);
  renderResult(game);
  updateButtons();
}

function titleOf(game) {
  const variant = state.variants.find((v) => v.name === game.variant);
  return variant ? variant.title : game.variant;
}

function seatName(game, seat) {
  const info = game.seats[seat];
  if (info.type === "human") return seat === HUMAN ? "You" : `Player ${seat + 1}`;
  const computers = game.seats.filter((s) => s.type === "computer").length;
  return computers > 1 ? `Computer ${seat}` : "Computer";
}

function playersText(game) {
  return game.seats.map((s) => `${seatName(game, s.seat)}: ${s.cards} cards`).join(", ") + ".";
}

function renderSeats(game, entry = null) {
  if (!game) {
    replace(el.seats,
      [0, 1].map((seat) =>
        h("div", { class: `seat${seat === HUMAN ? " human" : ""}` },
          h("div", { class: "seat-name" }, seat === HUMAN ? "You" : "Computer"),
          h("div", { class: "battle-cards" }, cardBack({ label: "Stock" })))));
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
          ...Array.from({ length: Math.min(backs, 3) }, () => cardBack({ size: "tiny", label: "Face-down war card" })),
          up ? cardElement(up, { size: "tiny" }) : null,
        ];
      });
      const took = entry && entry.winner === seat;
      const out = stock === 0 && info.cards === 0;
      const stats = [`${stock} in stock`];
      if (info.pile !== undefined) stats.push(`pile ${entry?.piles ? entry.piles[seat] : info.pile}${info.pile_top ? ` (top ${cardText(info.pile_top)})` : ""}`);
      if (info.won !== undefined) stats.push(`${info.won} won this round`);
      if (info.rounds_won !== undefined) stats.push(`${info.rounds_won} rounds won`);
      if (info.wars_won !== undefined) stats.push(`${info.wars_won} wars won`);
      const hand = Array.isArray(info.hand) && info.hand.length
        ? h("div", { class: "card-row", "aria-label": "Your hand" }, info.hand.map((c) => cardElement(c, { size: "small" })))
        : null;
      const bar = h("span", {});
      bar.style.setProperty("width", `${Math.round((100 * (info.cards || stock)) / total)}%`);
      return h(
        "div",
        { class: `seat${info.type === "human" ? " human" : ""}${took ? " took" : ""}${out ? " out" : ""}`, dataset: { seat } },
        h("div", { class: "seat-name" }, seatName(game, seat),
          info.type === "computer" ? h("small", {}, info.strategy || "greedy") : null),
        h("div", { class: "battle-cards" },
          cardBack({ size: "small", label: `${stock} cards in stock`, count: stock }),
          turned ? cardElement(turned, { size: "small" }) : null,
          warCards),
        hand,
        h("div", { class: "stack-bar", "aria-hidden": "true" }, bar),
        h("div", { class: "seat-stats" }, stats.join(" · ")),
      );
    }),
  );
}

function logText(game, entry) {
  const name = (seat) => seatName(game, seat);
  const turned = (entry.turned || [])
    .map((card, seat) => (card ? `${name(seat)} ${cardText(card)}` : null))
    .filter(Boolean)
    .join(" · ");
  const parts = [turned];
  for (const war of entry.wars || []) {
    const ups = (war.up || [])
      .map((card, seat) => (card ? `${cardText(card)} (${name(seat)})` : null))
      .filter(Boolean)
      .join(" v ");
    parts.push(`war! ${ups}`);
  }
  for (const steal of entry.steals || []) {
    const from = (steal.from || []).map(name).join(" and ");
    const you = steal.seat === HUMAN && game.seats[HUMAN].type === "human";
    parts.push(`${name(steal.seat)} ${you ? "steal" : "steals"} ${from}'s pile with ${cardText(steal.card)} (${steal.cards} cards)`);
  }
  if (entry.winner !== null && entry.winner !== undefined) {
    parts.push(`${name(entry.winner)} ${entry.winner === HUMAN && game.seats[HUMAN].type === "human" ? "take" : "takes"} ${entry.won} cards`);
  } else if (entry.void) {
    parts.push("void war: cards go back");
  }
  for (const seat of entry.eliminated || []) parts.push(`${name(seat)} ${seat === HUMAN ? "are" : "is"} out`);
  if (entry.round_over) parts.push(`round ${entry.round_over.round} over`);
  return parts.filter(Boolean).join(" → ");
}

function addLogEntries(game, entries) {
  if (!entries.length) return;
  const items = entries.map((entry) =>
    h("li", { class: entry.wars?.length ? "war" : "", value: entry.battle },
      h("span", { class: "n" }, `#${entry.battle}`),
      h("span", { class: "what" }, logText(game, entry))));
  el.log.prepend(...items.reverse());
  while (el.log.children.length > LOG_TAIL) el.log.lastElementChild.remove();
  state.shownBattle = Math.max(state.shownBattle, entries[entries.length - 1].battle);
  el.logNote.textContent = game.log_size > LOG_TAIL ? `The last ${LOG_TAIL} of ${game.log_size} battles, newest first.` : "Newest first.";
}

function decisionText(game, pending) {
  const c = pending.context || {};
  if (pending.kind === "steal-or-play") {
    const targets = (c.targets || [])
      .map((t) => `${seatName(game, t.seat)}'s pile (${t.cards} cards, ${cardText(t.top)} on top)`)
      .join(" or ");
    return `You turned ${cardText(c.card)}, the same rank as the top of ${targets}. Steal the pile, or play the card?`;
  }
  if (pending.kind === "hand-card") {
    return c.war ? "War! Choose the card from your hand to turn up." : "Choose the card from your hand to play.";
  }
  if (pending.kind === "pile-top") {
    return `You won ${(c.cards || []).map(cardText).join(" ")}. Which card goes on top of your pile, where the others can see (and steal) it?`;
  }
  return "Your move.";
}

function moveLabel(moveBody) {
  if (moveBody.action === "steal") return "Steal";
  if (moveBody.action === "play" && moveBody.card) return `Play ${cardText(moveBody.card)}`;
  if (moveBody.action === "play") return "Play";
  if (moveBody.action === "top") return `Put ${cardText(moveBody.card)} on top`;
  return moveBody.action;
}

function renderDecision(game) {
  const pending = game.pending.find((p) => p.seat === HUMAN);
  if (!pending || game.result) {
    show(el.decision, false);
    return;
  }
  const buttons = pending.legal.map((legal) => {
    if (pending.kind === "hand-card") {
      return h("button", { type: "button", class: "hand-card-button", "aria-label": moveLabel(legal), onclick: () => move(legal) },
        cardElement(legal.card, { size: "small", label: moveLabel(legal) }));
    }
    return h("button", { type: "button", class: legal.action === "steal" ? "primary" : "", onclick: () => move(legal) }, moveLabel(legal));
  });
  replace(el.decision, h("p", {}, decisionText(game, pending)), h("div", { class: "move-buttons" }, buttons));
  show(el.decision, true);
  const first = el.decision.querySelector("button");
  if (first && !state.busy) first.focus();
  else if (first) state.focusDecision = true;
}

function resultText(game) {
  const result = game.result;
  const names = (seats) => seats.map((seat) => seatName(game, seat));
  const reason = REASONS[result.reason] || result.reason;
  const battles = `${result.battles} battles, ${game.wars} ${game.wars === 1 ? "war" : "wars"}`;
  if (result.outcome === "draw" || !result.winners.length) return `Draw: ${reason} (${battles}).`;
  const winners = names(result.winners);
  const youWon = result.winners.includes(HUMAN) && game.seats[HUMAN].type === "human";
  const who = youWon && winners.length === 1 ? "You win" : `${winners.join(" and ")} ${winners.length > 1 ? "win" : "wins"}`;
  return `${who}: ${reason} (${battles}).`;
}

function renderResult(game) {
  if (!game.result) {
    show(el.result, false);
    return;
  }
  replace(el.result, resultText(game), h("small", {}, `Game seed “${game.seed}”: play it again with the same seed to replay every card.`));
  show(el.result, true);
}

function updateButtons() {
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

// ---------------------------------------------------------------- simulation

async function simulate() {
  const body = {
    variant: el.variant.value,
    options: chosenOptions(),
    games: Number(el.simGames.value),
    seed: el.simSeed.value.trim() || "sim",
  };
  await work(async () => {
    replace(el.simResult, h("p", { class: "hint" }, `Playing ${body.games} games…`));
    show(el.simResult, true);
    const result = await finished(await state.client.post(`${BASE}/simulations`, body));
    renderSimulation(result);
    announce(
      `Simulation done: ${result.games} games, median ${result.battles.median} battles, ` +
        `mean ${result.battles.mean}, longest ${result.battles.max}.`,
    );
  });
}

// A simulation too long to wait for comes back as a job (202): poll it until it is done.
const POLL_MS = 500;

async function finished(answer) {
  let job = answer;
  while (job.status === "running") {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    job = await state.client.get(`${BASE}/simulations/${job.id}`);
  }
  if (job.status === "failed") {
    throw new Error(`The simulation could not finish (${job.error || "no reason given"}); run it again.`);
  }
  return job.status === "done" ? job.result : job;
}

function renderSimulation(result) {
  const variant = state.variants.find((v) => v.name === result.variant);
  const stat = (value, label) => h("div", { class: "stat" }, h("b", {}, String(value)), h("span", {}, label));
  const seats = result.wins.map((wins, seat) => {
    const share = result.games ? wins / result.games : 0;
    const meter = h("span", {});
    meter.style.setProperty("width", `${(100 * share).toFixed(1)}%`);
    return h("div", { class: "win-row" },
      h("span", {}, `Seat ${seat + 1}`),
      h("div", { class: "meter", "aria-hidden": "true" }, meter),
      h("span", { class: "pct" }, `${(100 * share).toFixed(1)}%`));
  });
  const endings = Object.entries(result.endings)
    .map(([reason, count]) => `${REASONS[reason] || reason}: ${count}`)
    .join(" · ");
  replace(
    el.simResult,
    h("div", { class: "stats" },
      stat(result.games, "games"),
      stat(result.battles.median, "median battles"),
      stat(result.battles.mean, "mean battles"),
      stat(result.battles.p95, "95th percentile"),
      stat(result.battles.max, "longest game"),
      stat(result.wars_per_game, "wars per game")),
    result.length_histogram?.length
      ? histogram(result.length_histogram, {
          median: result.battles.median,
          mean: result.battles.mean,
          title: `${variant ? variant.title : result.variant}: games by length (${result.games} games)`,
        })
      : null,
    h("h3", { class: "hand-label" }, "Wins by seat (all computers, greedy)"),
    h("div", { class: "wins" }, seats),
    h("p", { class: "hint" }, `Draws ${result.draws} · cycles ${result.cycles} · endings: ${endings}`),
    result.complete
      ? null
      : h("p", { class: "hint" }, `Stopped after ${result.games} of ${result.games_requested} games by the server's work limit (${result.stopped_by}).`),
  );
  show(el.simResult, true);
}

// ---------------------------------------------------------------- messages

let announceTimer = null;

function announce(text) {
  el.announcer.textContent = "";
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => {
    el.announcer.textContent = text;
  }, 50);
}

function showError(text) {
  el.errorText.textContent = text;
  show(el.error, true);
}

function showWaiting(message) {
  el.waiting.textContent = message || "";
  show(el.waiting, Boolean(message));
}

start();
