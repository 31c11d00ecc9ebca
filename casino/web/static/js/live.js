// A shared (live) table: one round for every player, on the table's clock, through the
// public API only. Opened from a launch at a shared table (/play/live/?table=…#code=…).
//
// The page reads the round (GET /tables/{id}/round) and follows the table's events
// (live-follow.js); every event, or every poll once the stream fails, reads the round again
// and the page is drawn from it. What changed between two reads is said to screen readers.

import { ApiError, Client } from "./api.js";
import { countDown } from "./countdown.js";
import { show } from "./dom.js";
import { chooseLanguage, loadLanguage, t, timeText, translatePage, wireSwitcher } from "./i18n.js";
import { money } from "./money.js";
import { describeError } from "./problems.js";
import { forgetSession, sessionToken } from "./session.js";
import { Follower } from "./live-follow.js";
import {
  chooseTarget,
  renderBets,
  renderTable,
  setBalance,
  setBusy,
  stepWarTie,
  updateButtons,
} from "./live-bets.js";
import { bindElements, el, state } from "./live-state.js";
import {
  cardsSentence,
  phaseWords,
  renderCountdown,
  renderFollowMode,
  renderRound,
  resultText,
  setRound,
} from "./live-view.js";

const words = (error) => describeError(error, { currency: state.currency });

// ---------------------------------------------------------------- messages

let announceTimer = null;

function announce(text) {
  if (!text) return;
  el.announcer.textContent = "";
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => {
    el.announcer.textContent = text;
  }, 50);
}

function showError(say) {
  const render = typeof say === "function" ? say : () => say;
  state.shownError = render;
  el.errorText.textContent = render();
  show(el.dismiss, !state.dead);
  show(el.error, true);
  updateButtons();
}

function clearError() {
  if (state.dead) return;
  show(el.error, false);
  state.shownError = null;
}

function fatal(say) {
  state.dead = true;
  showError(say);
}

function showWaiting(why, seconds) {
  countDown(el.waiting, why, seconds);
}

// ---------------------------------------------------------------- start

async function start() {
  bindElements([
    "balance", "table-name", "session-info", "limits", "phase", "countdown", "bettors",
    "dealer-cards", "player-cards", "war-zone", "war-dealer", "war-player", "my-bet",
    "my-bet-text", "my-result", "betting", "spot-ante", "spot-tie", "ante-amount",
    "tie-amount", "chips", "bet-hint", "place-bet", "surrender", "war", "decision-note",
    "war-tie", "war-tie-down", "war-tie-up", "war-tie-amount", "war-tie-note",
    "road", "road-empty", "road-counts", "shoe-number", "shoe-commitment", "follow-mode",
    "announcer", "error", "error-text", "dismiss", "waiting", "felt", "language",
  ]);
  await loadLanguage(chooseLanguage());
  translatePage();
  wireSwitcher(el.language, relabel);
  wireControls();
  renderRound();
  let token;
  try {
    token = await sessionToken({ onWait: showWaiting });
  } catch (error) {
    fatal(() => words(error));
    return;
  }
  if (!token) {
    fatal(() => t("table.no_session"));
    return;
  }
  state.client = new Client({ token, onWait: showWaiting });
  try {
    await load();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) forgetSession();
    fatal(() => words(error));
    return;
  }
  setInterval(tick, 250);
  follow();
}

async function load() {
  const client = state.client;
  const session = await client.get("/api/v1/sessions/current");
  state.session = session;
  state.playerId = session.player_id;
  renderSession();
  state.tableId = new URLSearchParams(location.search).get("table") || session.table_id;
  if (!state.tableId) throw Object.assign(new Error(t("table.none_open")), { said: true });
  const [table, wallets] = await Promise.all([
    client.get(`/api/v1/tables/${encodeURIComponent(state.tableId)}`),
    client.get(`/api/v1/players/${state.playerId}/wallets`),
  ]);
  state.table = table;
  state.currency = table.currency;
  const wallet = wallets.find((w) => w.currency === table.currency);
  setBalance(wallet ? wallet.balance : 0);
  state.ante = table.rules.min_ante;
  renderTable();
  await refresh({ first: true });
}

function renderSession() {
  const session = state.session;
  if (!session) return;
  el.sessionInfo.textContent = t("table.session_until", { time: timeText(session.expires_at, { seconds: false }) });
  el.sessionInfo.title = t("table.session_id", { id: session.id });
}

// ---------------------------------------------------------------- following the table

function follow() {
  const follower = new Follower({
    client: state.client,
    tableId: state.tableId,
    after: state.round?.last_event_id || 0,
    onEvent: () => {
      refresh().catch(() => {});
    },
    onPoll: () => refresh(),
    onMode: (mode) => {
      state.follow = mode;
      renderFollowMode();
    },
  });
  follower.run().catch((error) => {
    if (error?.status === 401) forgetSession();
    fatal(() => t("live.follow.lost"));
  });
}

let inFlight = null;
let again = false;

// Read the round again (one read at a time; a request during one reads once more after it).
function refresh({ first = false } = {}) {
  if (inFlight) {
    again = true;
    return inFlight;
  }
  inFlight = (async () => {
    do {
      again = false;
      await readRound(first);
      first = false;
    } while (again);
  })().finally(() => {
    inFlight = null;
  });
  return inFlight;
}

const OVER = ["settled", "voided"];

async function readRound(first) {
  lastRead = Date.now();
  const before = state.round;
  let round;
  try {
    round = await state.client.get(`/api/v1/tables/${encodeURIComponent(state.tableId)}/round`);
  } catch (error) {
    if (error instanceof ApiError && error.code === "round_not_found") {
      state.round = null;
      renderRound();
      return;
    }
    if (first || (error instanceof ApiError && error.status === 401)) throw error;
    return; // a missed read: the next event or poll reads again
  }
  const newRound = !before || before.round !== round.round || before.shoe?.index !== round.shoe?.index;
  if (newRound && round.phase === "betting" && !round.my_bet) {
    state.ante = state.table.rules.min_ante;
    state.tie = 0;
  }
  setRound(round);
  const ended = round.phase === "settled" || round.phase === "voided";
  // A round of ours that ended unseen (a short pause, reads late or lost): the round read
  // now is the next one, and only the wallet knows what ours paid.
  const endedUnseen = newRound && before?.my_bet && !OVER.includes(before.phase);
  if ((ended && round.my_bet && before?.phase !== round.phase) || endedUnseen) await refreshBalance();
  else if (round.my_bet && Number.isInteger(round.my_bet.balance_after) && !ended) {
    setBalance(round.my_bet.balance_after);
    renderBets();
  }
  announce(changeSentence(first ? null : before, round));
  // A decision fell due: focus on it, as the table page does (Enter decides).
  if (becameDue(before, round)) (el.surrender.hidden ? el.war : el.surrender).focus();
}

async function refreshBalance() {
  try {
    const wallets = await state.client.get(`/api/v1/players/${state.playerId}/wallets`);
    const wallet = wallets.find((w) => w.currency === state.currency);
    setBalance(wallet ? wallet.balance : 0);
    renderBets();
  } catch {
    // The balance is read again after the next round.
  }
}

function becameDue(before, round) {
  const due = round.phase === "decisions" && round.my_bet?.awaiting_decision;
  const was = before?.phase === "decisions" && before?.round === round.round && before?.my_bet?.awaiting_decision;
  return Boolean(due && !was);
}

// What a screen reader is told of the change from `before` to `round`.
function changeSentence(before, round) {
  const same = before && before.round === round.round && before.shoe?.index === round.shoe?.index;
  if (same && before.phase === round.phase && (before.cards?.wars?.length || 0) === (round.cards?.wars?.length || 0)) {
    return "";
  }
  const parts = [];
  if (!same) parts.push(t("live.round", { round: round.round }));
  if (round.phase === "betting") {
    parts.push(t("live.said.open", { seconds: Math.max(0, Math.round((Date.parse(round.closes_at) - Date.now() - state.offset) / 1000)) }));
    return parts.join(". ");
  }
  const cards = round.cards;
  if (cards?.player_card && !(same && before.cards?.player_card)) {
    parts.push(cardsSentence(cards.player_card, cards.dealer_card, cards.wars?.length ? "tie" : cards.winner));
  }
  const wars = cards?.wars || [];
  if (wars.length > (same ? before.cards?.wars?.length || 0 : 0)) {
    const war = wars[wars.length - 1];
    parts.push(t("live.said.war", { cards: cardsSentence(war.player_card, war.dealer_card, null) }));
  }
  if (round.phase === "decisions" && round.my_bet?.awaiting_decision) parts.push(t("round.choose"));
  else if (round.phase === "settled") {
    if (round.my_bet) {
      parts.push(resultText(round.my_bet));
    } else parts.push(phaseWords(round.phase));
  } else parts.push(phaseWords(round.phase));
  return parts.filter(Boolean).join(" ");
}

// ---------------------------------------------------------------- the player's moves

async function placeBet() {
  const body = { ante: state.ante, tie_bet: state.tie };
  setBusy(true);
  try {
    const bet = await state.client.money(
      `/api/v1/tables/${encodeURIComponent(state.tableId)}/round/bets`,
      body,
    );
    clearError();
    state.ante = 0;
    state.tie = 0;
    onBet(bet);
    announce(`${t("live.said.bet", { amount: money(bet.ante + bet.tie_bet, state.currency) })} ${t("round.balance", { amount: money(state.balance, state.currency) })}`);
  } catch (error) {
    showError(() => words(error));
    announce(words(error));
  } finally {
    setBusy(false);
  }
}

async function decide(action) {
  const body = { action };
  if (action === "war" && state.warTie > 0) body.war_tie_bet = state.warTie;
  setBusy(true);
  try {
    const bet = await state.client.money(
      `/api/v1/tables/${encodeURIComponent(state.tableId)}/round/decision`,
      body,
    );
    clearError();
    onBet(bet);
    if (bet.war_tie_bet) {
      announce(t("live.decided.war_tie_bet", { amount: money(bet.war_tie_bet, state.currency) }));
    } else announce(t(action === "war" ? "live.decided.war" : "live.decided.surrender"));
    el.actions.focus();
  } catch (error) {
    showError(() => words(error));
    announce(words(error));
    refresh();
  } finally {
    setBusy(false);
  }
}

function onBet(bet) {
  if (state.round && state.round.round === bet.round) state.round = { ...state.round, my_bet: bet };
  if (Number.isInteger(bet.balance_after)) setBalance(bet.balance_after);
  renderRound();
}

// Bets make no event (events carry no bettor): while bets are taken the round is read
// again now and then, so the number of bettors moves. In any other phase it is read now and
// then too, so that a read that failed (the next event may be a minute away) is made good.
const BETTING_READ_MS = 2000;
const SAFETY_READ_MS = 5000;
let lastRead = 0;

function tick() {
  renderCountdown();
  updateButtons();
  if (state.follow !== "events" || !state.tableId) return;
  const every = state.round?.phase === "betting" ? BETTING_READ_MS : SAFETY_READ_MS;
  if (Date.now() - lastRead > every) refresh().catch(() => {});
}

function wireControls() {
  el.actions = document.getElementById("actions");
  el.placeBet.addEventListener("click", placeBet);
  el.war.addEventListener("click", () => decide("war"));
  el.surrender.addEventListener("click", () => decide("surrender"));
  el.spotAnte.addEventListener("click", () => chooseTarget("ante"));
  el.spotTie.addEventListener("click", () => chooseTarget("tie"));
  el.warTieDown.addEventListener("click", () => stepWarTie(-1));
  el.warTieUp.addEventListener("click", () => stepWarTie(1));
  el.dismiss.addEventListener("click", clearError);
}

// The page again in the language just chosen.
function relabel() {
  if (state.shownError && !el.error.hidden) el.errorText.textContent = state.shownError();
  renderSession();
  if (state.table) {
    renderTable();
    setBalance(state.balance);
  }
  renderRound();
  renderFollowMode();
}

start();
