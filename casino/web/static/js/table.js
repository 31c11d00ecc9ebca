// The Casino War table: one player's game session, through the public API only.

import { ApiError, Client } from "./api.js";
import { chooseLanguage, loadLanguage, N_, t, timeText, translatePage, wireSwitcher } from "./i18n.js";
import { saidError } from "./problems.js";
import { forgetSession, sessionToken } from "./session.js";
import { changeHands, renderBets, renderTable, setBalance, setBusy } from "./table-bets.js";
import {
  renderRevealed,
  renderSeeds,
  renderVerified,
  rotateSeed,
  saveClientSeed,
  verifySelected,
} from "./table-fairness.js";
import { loadMoreHistory, renderHistory, renderRecall } from "./table-history.js";
import { announce, clearError, fatal, sayErrorAgain, showWaiting } from "./table-messages.js";
import { awaitingHands } from "./table-decisions.js";
import { handsOf } from "./table-hands.js";
import { decide, deal, words } from "./table-play.js";
import { acknowledgeRealityCheck, renderRealityCheck, showRealityCheck } from "./table-reality.js";
import { renderCards, showIdle, showRound, tieSentence } from "./table-round.js";
import { bindElements, el, HISTORY_PAGE, state } from "./table-state.js";

// ---------------------------------------------------------------- start

async function start() {
  bindElements([
    "balance", "table-name", "session-info", "limits", "dealer-cards", "player-cards",
    "hands-row", "player-side", "war-zone", "war-rows", "outcome", "headline", "payouts",
    "net", "chips", "spots", "hand-count", "hands-shown", "fewer-hands", "more-hands",
    "clock", "clock-text", "clock-bar", "clock-note", "decisions", "war-tie-note", "bet-hint", "deal",
    "surrender", "war", "decision-note", "history", "history-empty", "more-history",
    "recall-panel", "recall", "seed-hash", "next-nonce", "client-seed", "client-seed-form",
    "rotate", "verify", "verify-target", "verify-result", "revealed", "announcer", "error",
    "error-text", "retry", "dismiss", "waiting", "betting", "seed-note", "reality-check",
    "reality-text", "reality-session", "reality-error", "reality-ack", "felt", "save-seed",
    "language",
  ]);
  await loadLanguage(chooseLanguage());
  translatePage();
  wireSwitcher(el.language, relabel);
  wireControls();
  renderCards(null);
  let token;
  setBusy(true); // nothing to click while the launch code is exchanged
  try {
    token = await sessionToken({ onWait: showWaiting });
  } catch (error) {
    fatal(() => words(error));
    return;
  } finally {
    setBusy(false);
  }
  if (!token) {
    fatal(() => t("table.no_session"));
    return;
  }
  state.client = new Client({ token, onWait: showWaiting });
  setBusy(true);
  try {
    await load();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) forgetSession();
    fatal(() => words(error));
    return;
  } finally {
    setBusy(false);
  }
}

async function load() {
  const client = state.client;
  const session = await client.get("/api/v1/sessions/current");
  state.playerId = session.player_id;
  state.session = session;
  renderSession();
  const wanted = new URLSearchParams(location.search).get("table") || session.table_id;
  const tableId = wanted || (await firstActiveTable());
  const player = `/api/v1/players/${state.playerId}`;
  const [table, wallets, seeds, open, page, protection] = await Promise.all([
    client.get(`/api/v1/tables/${encodeURIComponent(tableId)}`),
    client.get(`${player}/wallets`),
    client.get(`${player}/seeds`),
    client.get("/api/v1/rounds?status=awaiting_decision&limit=1"),
    client.get(`/api/v1/rounds?limit=${HISTORY_PAGE}`),
    // A reality check due before a reload is still due after it; without the protection
    // read (an older service) the next round's answer brings it.
    client.get(`${player}/protection`).catch(() => null),
  ]);
  state.table = table;
  state.currency = table.currency;
  const wallet = wallets.find((w) => w.currency === table.currency);
  setBalance(wallet ? wallet.balance : 0);
  const pendingRound = open.items[0];
  // Reloaded in the middle of a round: its hands' bets are the next deal's, as before.
  state.hands = pendingRound
    ? handsOf(pendingRound).map((hand) => ({ ante: hand.bets.ante, tie: hand.bets.tie_bet }))
    : [{ ante: table.rules.min_ante, tie: 0 }];
  renderTable();
  state.history = page.items;
  state.nextCursor = page.next_cursor;
  renderSeeds(seeds);
  renderHistory();
  if (protection?.reality_check) showRealityCheck(protection.reality_check);
  if (pendingRound) {
    // Reloaded in the middle of a tie: the decision is still to be made.
    showRound(pendingRound, { animate: false });
    announce(`${tieSentence(pendingRound)} ${t(awaitingHands(pendingRound).length > 1 ? N_("round.choose_hands") : N_("round.choose"))}`);
  } else {
    showIdle();
  }
}

function renderSession() {
  const session = state.session;
  if (!session) return;
  const until = timeText(session.expires_at, { seconds: false });
  el.sessionInfo.textContent = t("table.session_until", { time: until });
  el.sessionInfo.title = t("table.session_id", { id: session.id });
}

async function firstActiveTable() {
  const page = await state.client.get("/api/v1/tables?limit=200");
  const table = page.items.find((candidate) => candidate.active);
  if (!table) throw saidError(t("table.none_open"));
  return table.id;
}

// ---------------------------------------------------------------- controls

function wireControls() {
  el.deal.addEventListener("click", deal);
  el.surrender.addEventListener("click", () => decide("surrender"));
  el.war.addEventListener("click", () => decide("war"));
  el.fewerHands.addEventListener("click", () => changeHands(-1));
  el.moreHands.addEventListener("click", () => changeHands(1));
  el.rotate.addEventListener("click", rotateSeed);
  el.verify.addEventListener("click", verifySelected);
  el.moreHistory.addEventListener("click", loadMoreHistory);
  el.clientSeedForm.addEventListener("submit", (event) => {
    event.preventDefault();
    saveClientSeed();
  });
  el.retry.addEventListener("click", () => {
    const again = state.retry;
    clearError();
    if (again) again();
  });
  el.dismiss.addEventListener("click", clearError);
  el.realityAck.addEventListener("click", acknowledgeRealityCheck);
  // Escape does not dismiss it: the check is over only once acknowledged.
  el.realityCheck.addEventListener("cancel", (event) => event.preventDefault());
}

// The page again in the language just chosen: its own texts are done (translatePage), the
// game's are drawn again from the state.
function relabel() {
  sayErrorAgain();
  renderSession();
  if (!state.table) {
    renderCards(null);
    return;
  }
  renderTable();
  renderBets();
  setBalance(state.balance);
  if (state.round) showRound(state.round, { animate: false });
  else showIdle();
  renderHistory();
  if (state.seeds) renderSeeds(state.seeds);
  const chosen = state.selected && state.history.find((r) => r.id === state.selected);
  if (chosen) renderRecall(chosen);
  renderRevealed();
  renderVerified();
  renderRealityCheck();
}

start();
