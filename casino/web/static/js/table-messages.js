// What the table says besides the game: the screen reader's announcements, the error banner
// (with Retry for a request of unknown fate), the fatal end of a session, and waits.

import { countDown } from "./countdown.js";
import { show } from "./dom.js";
import { t } from "./i18n.js";
import { updateButtons } from "./table-bets.js";
import { el, state } from "./table-state.js";

let announceTimer = null;

export function announce(text) {
  // Cleared first, so that the same sentence twice is read twice.
  el.announcer.textContent = "";
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => {
    el.announcer.textContent = text;
  }, 50);
}

// `say`: the message, or a function giving it (called again when the language changes).
export function showError(say, { retry = false } = {}) {
  const render = typeof say === "function" ? say : () => say;
  state.shownError = render;
  el.errorText.textContent = render();
  show(el.retry, retry);
  if (!retry) state.retry = null;
  // A request of unknown fate is not dismissed: it is retried (or the page reloaded).
  show(el.dismiss, !state.dead && !state.client?.hasPending());
  show(el.error, true);
  updateButtons();
  if (retry) el.retry.focus();
}

export function clearError() {
  if (state.dead) return;
  show(el.error, false);
  state.retry = null;
  state.shownError = null;
}

export function fatal(say) {
  state.dead = true;
  showError(say);
  show(el.dismiss, false);
  updateButtons();
}

// The banner in the language now chosen.
export function sayErrorAgain() {
  if (state.shownError && !el.error.hidden) el.errorText.textContent = state.shownError();
}

// why: {key, values} of a message with a {seconds} placeholder, counted down here; null ends it.
export function showWaiting(why, seconds) {
  countDown(el.waiting, why, seconds);
}
