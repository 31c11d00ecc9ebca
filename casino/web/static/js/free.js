// Free-play War: any variant against computer seats, autoplay, the battle log, simulations,
// and each variant's rules, in the player's language.

import { ApiError, Client } from "./api.js";
import { replace, show } from "./dom.js";
import { playersText, render, renderSeats, reveal, updateButtons } from "./free-game.js";
import { rebuildLog } from "./free-log.js";
import { chosenOptions, currentVariant, renderOptions } from "./free-rules.js";
import { renderSimulation, simulate } from "./free-sim.js";
import {
  announce,
  BASE,
  bindElements,
  el,
  LOG_TAIL,
  sayErrorAgain,
  showError,
  showWaiting,
  state,
  titleOf,
} from "./free-state.js";
import { chooseLanguage, loadLanguage, number, t, tn, translatePage, wireSwitcher } from "./i18n.js";
import { describeError } from "./problems.js";

async function start() {
  bindElements([
    "variant", "variant-blurb", "options", "option-hint", "seed", "setup", "new-game", "game-title", "game-status",
    "seats", "decision", "result", "battle", "autoplay", "to-end", "skip", "speed", "log", "log-note",
    "sim-form", "sim-games", "sim-seed", "simulate", "sim-result", "announcer", "error", "error-text",
    "dismiss", "waiting", "rules", "language",
  ]);
  await loadLanguage(chooseLanguage());
  translatePage();
  wireSwitcher(el.language, relabel);
  labelGameCounts();
  state.client = new Client({ onWait: showWaiting });
  state.onMove = move;
  el.setup.addEventListener("submit", (event) => {
    event.preventDefault();
    newGame();
  });
  el.simForm.addEventListener("submit", (event) => {
    event.preventDefault();
    runSimulation();
  });
  el.variant.addEventListener("change", () => {
    replace(el.options, el.options.querySelector("legend"));
    renderOptions();
  });
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
    showError(() => describeError(error));
    return;
  }
  renderVariants();
  const wanted = new URLSearchParams(location.search).get("variant");
  if (wanted && state.variants.some((v) => v.name === wanted)) el.variant.value = wanted;
  renderOptions();
}

function renderVariants() {
  const chosen = el.variant.value;
  replace(
    el.variant,
    state.variants.map((v) => {
      const option = document.createElement("option");
      option.value = v.name;
      option.textContent = titleOf(v.name);
      return option;
    }),
  );
  if (chosen) el.variant.value = chosen;
}

// The simulation's game counts, written the language's way ("1.000" in Greek).
function labelGameCounts() {
  for (const option of el.simGames.options) option.textContent = number(Number(option.value));
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
    announce(
      t("free.new_game", {
        variant: titleOf(game.variant),
        players: tn("free.players", game.seats.length),
        seats: playersText(game),
      }),
    );
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

async function runSimulation() {
  const body = {
    variant: el.variant.value,
    options: chosenOptions(),
    games: Number(el.simGames.value),
    seed: el.simSeed.value.trim() || "sim",
  };
  await work(() => simulate(body));
}

async function work(task) {
  if (state.busy) return;
  show(el.error, false);
  state.busy = true;
  updateButtons();
  try {
    await task();
  } catch (error) {
    showError(() => describeError(error));
  } finally {
    state.busy = false;
    state.animating = false;
    show(el.skip, false);
    updateButtons();
  }
}

// The page again in the language just chosen: its own texts are done (translatePage), the
// game's are drawn again from the state.
function relabel() {
  labelGameCounts();
  sayErrorAgain();
  if (state.variants.length) {
    renderVariants();
    if (currentVariant()) renderOptions();
  }
  if (state.game) {
    render(state.game);
    rebuildLog(state.game);
  } else {
    renderSeats(null);
  }
  renderSimulation();
}

start();
