// The free-play page's state, elements and messages, shared by its modules (free.js starts
// them).

import { show } from "./dom.js";
import { t } from "./i18n.js";

export const BASE = "/api/v1/free-play";
export const LOG_TAIL = 400;
export const HUMAN = 0;

export const state = {
  client: null,
  variants: [],
  game: null,
  busy: false,
  animating: false,
  skip: false,
  shownBattle: 0,
  focusDecision: false,
  // The last simulation's answer and the error shown, kept to draw them again in another
  // language.
  simulation: null,
  shownError: null,
};

export const el = {};

export function bindElements(ids) {
  for (const id of ids) {
    el[id.replace(/-([a-z])/g, (_, c) => c.toUpperCase())] = document.getElementById(id);
  }
}

export function titleOf(name) {
  return state.variants.some((v) => v.name === name) ? t(`variant.${name}.title`) : name;
}

let announceTimer = null;

export function announce(text) {
  el.announcer.textContent = "";
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => {
    el.announcer.textContent = text;
  }, 50);
}

// `say`: the message, or a function giving it (called again when the language changes).
export function showError(say) {
  const render = typeof say === "function" ? say : () => say;
  state.shownError = render;
  el.errorText.textContent = render();
  show(el.error, true);
}

export function sayErrorAgain() {
  if (state.shownError && !el.error.hidden) el.errorText.textContent = state.shownError();
}

export function showWaiting(why, seconds) {
  el.waiting.textContent = why ? t(why.key, { ...why.values, seconds: Math.ceil(seconds) }) : "";
  show(el.waiting, Boolean(why));
}
