// Playing: bets and decisions as keyed money requests, their retries, and what a round's
// answer changes on the page.

import { ApiError, NetworkError } from "./api.js";
import { N_, t } from "./i18n.js";
import { money } from "./money.js";
import { describeError } from "./problems.js";
import { renderBets, setBalance, setBusy } from "./table-bets.js";
import { renderSeeds } from "./table-fairness.js";
import { rememberRound } from "./table-history.js";
import { announce, clearError, fatal, showError } from "./table-messages.js";
import { noteServerTime } from "./table-clock.js";
import { awaitingHands, firstDecisionButton } from "./table-decisions.js";
import { showRealityCheck } from "./table-reality.js";
import { forgetSession } from "./session.js";
import { outcomeSentence, showRound, tieSentence } from "./table-round.js";
import { el, state } from "./table-state.js";

export async function deal() {
  if (state.busy || state.dead || state.client.hasPending() || state.realityCheck) return;
  // One hand: the body since the first version; several: hands[], dealt in this order.
  const body = { table_id: state.table.id };
  if (state.hands.length === 1) {
    body.ante = state.hands[0].ante;
    if (state.hands[0].tie > 0) body.tie_bet = state.hands[0].tie;
  } else {
    body.hands = state.hands.map((hand) => ({ ante: hand.ante, tie_bet: hand.tie }));
  }
  const fresh = freshClientSeed();
  if (fresh) body.client_seed = fresh;
  await placeBet(body);
}

// The bet as first built, for every retry of it: the same body is the same key.
async function placeBet(body) {
  await act(async () => {
    let round;
    try {
      round = await state.client.money("/api/v1/rounds", body);
    } catch (error) {
      if (!(body.client_seed && error instanceof ApiError && error.code === "client_seed_fixed")) {
        throw error;
      }
      // The pair took a client seed or dealt meanwhile (another tab): refused, nothing done;
      // the bet goes without one.
      const { client_seed: _unused, ...plain } = body;
      round = await state.client.money("/api/v1/rounds", plain);
    }
    if (body.client_seed && round.fairness.client_seed === body.client_seed && state.seeds) {
      renderSeeds({ ...state.seeds, client_seed: body.client_seed, client_seed_chosen: true });
    }
    onRound(round);
  }, () => placeBet(body), { money: true });
}

// ``only``: one hand's decision; otherwise every hand awaiting one gets ``action``.
export async function decide(action, only = null) {
  const round = state.round;
  if (state.busy || state.dead || round?.status !== "awaiting_decision") return;
  if (state.client.hasPending()) return;
  const hands = only === null ? awaitingHands(round) : [only];
  await sendDecision(round.id, decisionBody(round, hands, action));
}

// A round of one hand: the body since the first version; several: hands{} (and war tie bets
// for the hands going to war).
function decisionBody(round, hands, action) {
  const warTie = (hand) => (action === "war" ? state.warTie[hand] ?? 0 : 0);
  if ((round.hands?.length ?? 1) <= 1) {
    const body = { action };
    if (warTie(0) > 0) body.war_tie_bet = warTie(0);
    return body;
  }
  const body = { hands: Object.fromEntries(hands.map((hand) => [String(hand), action])) };
  const bets = hands.filter((hand) => warTie(hand) > 0);
  if (bets.length) body.war_tie_bets = Object.fromEntries(bets.map((hand) => [String(hand), warTie(hand)]));
  return body;
}

async function sendDecision(roundId, body) {
  await act(async () => {
    const settled = await state.client.money(`/api/v1/rounds/${roundId}/decision`, body);
    onRound(settled);
  }, () => sendDecision(roundId, body), { money: true });
}

// The open round read again (the decision clock: the server decides when it runs out, and
// any read applies it), quietly: a failed read is tried again at the next tick. Dropped when
// a bet or decision answered meanwhile.
export async function refreshOpenRound() {
  const round = state.round;
  if (!round || round.status !== "awaiting_decision") return;
  if (state.busy || state.dead || state.client.hasPending()) return;
  const seen = state.roundAnswers;
  let fresh;
  try {
    fresh = await state.client.get(`/api/v1/rounds/${round.id}`);
  } catch {
    return;
  }
  if (state.roundAnswers !== seen || state.busy || state.round?.id !== round.id) return;
  if (fresh.status === round.status && String(fresh.awaiting_hands) === String(round.awaiting_hands)) return;
  const inDecision = el.felt.contains(document.activeElement);
  onRound(fresh);
  state.focusNext = null;
  if (inDecision && fresh.status !== "awaiting_decision" && !state.realityCheck) el.deal.focus();
}

// docs/fairness.md: a pair whose client seed the player did not choose (the server's default,
// or one carried over by a rotation) takes client entropy with its first bet. The page brings
// it for the player: 16 random bytes, in hex. Only on the pair's first bet (later ones would be
// refused with client_seed_fixed): the pair has dealt once a round shows its server seed hash,
// and its rounds are the newest in the history.
// Whether the active pair has dealt a round: one in the history shows its server seed hash.
export function pairHasDealt(seeds) {
  return state.history.some((r) => r.fairness.server_seed_hash === seeds.server_seed_hash);
}

function freshClientSeed() {
  const seeds = state.seeds;
  if (!seeds || seeds.client_seed_chosen || !globalThis.crypto?.getRandomValues) return null;
  if (pairHasDealt(seeds)) return null;
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// Runs a request with the controls locked; errors are shown in words. ``money``: a keyed
// request, which a retry may send again safely.
export async function act(work, again, { money: keyed = false } = {}) {
  clearError();
  setBusy(true);
  try {
    await work();
  } catch (error) {
    await recover(error, again, keyed);
  } finally {
    setBusy(false);
    const next = state.focusNext;
    state.focusNext = null;
    // Not behind an open reality check: the dialog keeps the focus until acknowledged.
    if (next && !next.hidden && !next.disabled && !state.realityCheck) next.focus();
  }
}

async function recover(error, again, keyed) {
  if (error instanceof ApiError) {
    const code = error.code;
    if (code === "session_expired" || error.status === 401) {
      forgetSession();
      fatal(() => words(error));
      return;
    }
    showError(() => words(error));
    if (code === "round_in_progress" && error.problem.round_id) {
      const open = await state.client.get(`/api/v1/rounds/${error.problem.round_id}`);
      showRound(open, { animate: false });
    } else if (code === "round_not_awaiting_decision" && state.round) {
      onRound(await state.client.get(`/api/v1/rounds/${state.round.id}`));
    } else if (code === "insufficient_funds") {
      await refreshBalance();
    }
    return;
  }
  if (error instanceof NetworkError) {
    state.retry = again;
    const why = keyed ? N_("error.network.keyed") : N_("error.network.retry");
    showError(() => `${words(error)} ${t(why)}`, { retry: true });
    return;
  }
  showError(() => words(error));
}

export function words(error) {
  return describeError(error, { currency: state.currency });
}

async function refreshBalance() {
  const wallets = await state.client.get(`/api/v1/players/${state.playerId}/wallets`);
  const wallet = wallets.find((w) => w.currency === state.currency);
  setBalance(wallet ? wallet.balance : 0);
  renderBets();
}

function onRound(round) {
  const fresh = state.round?.id !== round.id;
  state.roundAnswers += 1;
  if (fresh && round.status === "awaiting_decision") noteServerTime(round.created_at);
  showRound(round, { animate: true, fresh });
  setBalance(round.balance_after);
  renderBets();
  rememberRound(round);
  if (state.seeds) {
    state.seeds.next_nonce = Math.max(state.seeds.next_nonce, round.fairness.nonce + 1);
    el.nextNonce.textContent = String(state.seeds.next_nonce);
  }
  const sentence =
    round.status === "awaiting_decision"
      ? `${tieSentence(round)} ${t(awaitingHands(round).length > 1 ? N_("round.choose_hands") : N_("round.choose"))}`
      : `${outcomeSentence(round)} ${t("round.balance", { amount: money(round.balance_after, state.currency) })}`;
  announce(sentence);
  if (round.reality_check) showRealityCheck(round.reality_check);
  // Focus follows the game for keyboard players (set once the controls are enabled again).
  if (round.status === "awaiting_decision") {
    state.focusNext =
      firstDecisionButton() || (round.rules?.surrender_allowed === false ? el.war : el.surrender);
  } else if (!fresh) {
    state.focusNext = el.deal;
  }
}
