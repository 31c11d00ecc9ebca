// The decision clock: while tied hands wait at a table with decision_seconds, the seconds
// left before the table surrenders for the player (timeout_action), counted against the
// server's clock. The server decides, not this page: any read of the round past the deadline
// answers it decided (decided_by: timeout), so the page reads it again now and then, and
// again and again once its own count reaches zero.

import { show } from "./dom.js";
import { t, tn } from "./i18n.js";
import { announce } from "./table-messages.js";
import { refreshOpenRound } from "./table-play.js";
import { el, state } from "./table-state.js";

const TICK_MS = 250;
// How often the open round is read again while its clock runs, and once it has run out.
const SYNC_MS = 5000;
const SYNC_AFTER_DEADLINE_MS = 1000;
// The count is announced once, this many seconds before the end.
const WARN_SECONDS = 10;

let ticker = null;
let syncer = null;
let deadline = NaN;
let warned = false;
let lastShown = null;

// A server time just read (a bet's created_at): the server's clock is at least this far
// ahead of this device's.
export function noteServerTime(iso) {
  const candidate = Date.parse(iso) - Date.now();
  if (Number.isNaN(candidate)) return;
  state.serverOffset = state.serverOffset === null ? candidate : Math.max(state.serverOffset, candidate);
}

function serverNow() {
  return Date.now() + (state.serverOffset ?? 0);
}

export function secondsLeft() {
  return Math.max(0, Math.ceil((deadline - serverNow()) / 1000));
}

export function stopClock() {
  clearInterval(ticker);
  clearInterval(syncer);
  ticker = null;
  syncer = null;
  deadline = NaN;
  show(el.clock, false);
}

// The clock of the round shown now (none when it waits for nothing or the table has none).
export function runClock(round) {
  const next = round?.status === "awaiting_decision" && round.decision_deadline
    ? Date.parse(round.decision_deadline)
    : NaN;
  if (next === deadline && ticker) {
    renderClock();
    return;
  }
  stopClock();
  if (Number.isNaN(next)) return;
  deadline = next;
  warned = false;
  lastShown = null;
  el.clockBar.max = (round.rules ?? state.table.rules).decision_seconds || 1;
  show(el.clock, true);
  renderClock();
  ticker = setInterval(tick, TICK_MS);
  syncer = setInterval(refreshOpenRound, SYNC_MS);
}

function tick() {
  const left = secondsLeft();
  if (left === lastShown) return;
  renderClock();
  if (left <= WARN_SECONDS && left > 0 && !warned) {
    warned = true;
    announce(`${tn("round.countdown", left)} ${t("round.countdown_note")}`);
  }
  if (left === 0) {
    clearInterval(syncer);
    syncer = setInterval(refreshOpenRound, SYNC_AFTER_DEADLINE_MS);
    refreshOpenRound();
  }
}

// The count in the language now chosen (also called when it changes).
export function renderClock() {
  if (Number.isNaN(deadline)) return;
  const left = secondsLeft();
  lastShown = left;
  el.clockBar.value = left;
  el.clockText.textContent = left > 0 ? tn("round.countdown", left) : t("round.time_up");
  el.clockText.dataset.seconds = String(left);
  el.clockNote.textContent = t("round.countdown_note");
  el.clock.classList.toggle("urgent", left <= 5);
}
