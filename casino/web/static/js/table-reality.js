// The reality check the player asked for (reality_check_minutes): a modal dialog, announced,
// closed only by acknowledging it through the API.

import { show } from "./dom.js";
import { t, timeText, tn } from "./i18n.js";
import { money } from "./money.js";
import { updateButtons } from "./table-bets.js";
import { announce } from "./table-messages.js";
import { words } from "./table-play.js";
import { el, state } from "./table-state.js";

export function showRealityCheck(check) {
  state.realityCheck = check;
  renderRealityCheck();
  show(el.realityError, false);
  if (!el.realityCheck.open) el.realityCheck.showModal();
  el.realityAck.disabled = false;
  announce(t("reality.announce", { text: `${el.realityText.textContent} ${el.realitySession.textContent}`.trim() }));
  updateButtons();
}

// The dialog's words (again, when the language changes while it is open).
export function renderRealityCheck() {
  const check = state.realityCheck;
  if (!check) return;
  const since = timeText(check.session_started_at, { seconds: false });
  el.realityText.textContent = [
    tn("reality.played", check.minutes_played, { since }),
    tn("reality.interval", check.interval_minutes),
  ].join(" ");
  const session = sessionSummary(check.session_started_at);
  el.realitySession.textContent = session || "";
  show(el.realitySession, Boolean(session));
}

// The session's rounds and net, from the history the page holds: only when it reaches back
// to the session's start (else the figures would be short).
function sessionSummary(startedIso) {
  const started = Date.parse(startedIso);
  const rounds = state.history.filter((r) => Date.parse(r.created_at) >= started);
  const complete = !state.nextCursor || rounds.length < state.history.length;
  if (!complete || !rounds.length) return null;
  const net = rounds.reduce((sum, r) => sum + (r.status === "settled" ? r.net : 0), 0);
  const amount = money(Math.abs(net), state.currency);
  if (net > 0) return tn("reality.session.won", rounds.length, { amount });
  if (net < 0) return tn("reality.session.lost", rounds.length, { amount });
  return tn("reality.session.even", rounds.length);
}

export async function acknowledgeRealityCheck() {
  const check = state.realityCheck;
  if (!check) return;
  el.realityAck.disabled = true;
  try {
    await state.client.post(check.acknowledge);
  } catch (error) {
    el.realityError.textContent = t("reality.ack_failed", { reason: words(error) });
    show(el.realityError, true);
    el.realityAck.disabled = false;
    return;
  }
  state.realityCheck = null;
  el.realityCheck.close();
  announce(tn("reality.acknowledged", check.interval_minutes));
  updateButtons();
  if (!el.deal.hidden && !el.deal.disabled) el.deal.focus();
}
