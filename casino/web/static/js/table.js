// The Casino War table: one player's game session, through the public API only.

import { ApiError, Client, NetworkError } from "./api.js";
import { cardElement, cardName, cardText, emptySlot, parseCard } from "./cards.js";
import { $, h, replace, show, timeText } from "./dom.js";
import { available as cryptoAvailable, verifyRound } from "./fairness.js";
import { money, signedMoney } from "./money.js";
import { describeError } from "./problems.js";
import { forgetSession, sessionToken } from "./session.js";

const RANK_ORDER = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const CHIP_MULTIPLES = [1, 5, 25, 100, 500];
const HISTORY_PAGE = 15;

const state = {
  client: null,
  playerId: null,
  table: null,
  currency: "EUR",
  balance: 0,
  ante: 0,
  tie: 0,
  target: "ante",
  round: null,
  busy: false,
  dead: false,
  retry: null,
  focusNext: null,
  history: [],
  nextCursor: null,
  selected: null,
  seeds: null,
  // A reality check due now (a round answer's reality_check), until acknowledged.
  realityCheck: null,
};

const el = {};

// ---------------------------------------------------------------- start

async function start() {
  for (const id of [
    "balance", "table-name", "session-info", "limits", "dealer-cards", "player-cards",
    "war-zone", "burn-cards", "war-dealer", "war-player", "outcome", "headline", "payouts",
    "net", "chips", "ante-amount", "tie-amount", "spot-ante", "spot-tie", "bet-hint", "deal",
    "surrender", "war", "decision-note", "history", "history-empty", "more-history",
    "recall-panel", "recall", "seed-hash", "next-nonce", "client-seed", "client-seed-form",
    "rotate", "verify", "verify-target", "verify-result", "revealed", "announcer", "error",
    "error-text", "retry", "dismiss", "waiting", "betting", "seed-note", "reality-check",
    "reality-text", "reality-session", "reality-error", "reality-ack",
  ]) {
    el[id.replace(/-([a-z])/g, (_, c) => c.toUpperCase())] = document.getElementById(id);
  }
  wireControls();
  renderCards(null);
  let token;
  setBusy(true); // nothing to click while the launch code is exchanged
  try {
    token = await sessionToken({ onWait: showWaiting });
  } catch (error) {
    fatal(words(error));
    return;
  } finally {
    setBusy(false);
  }
  if (!token) {
    fatal(
      "This table opens from your casino: ask it for a game link. " +
        "(Operators: POST /api/v1/players/{id}/sessions answers with a launch_url.)",
    );
    return;
  }
  state.client = new Client({ token, onWait: showWaiting });
  setBusy(true);
  try {
    await load();
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) forgetSession();
    fatal(words(error));
    return;
  } finally {
    setBusy(false);
  }
}

async function load() {
  const client = state.client;
  const session = await client.get("/api/v1/sessions/current");
  state.playerId = session.player_id;
  el.sessionInfo.textContent = `Session until ${timeText(session.expires_at, { seconds: false })}`;
  el.sessionInfo.title = `Game session ${session.id}`;
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
  state.ante = table.rules.min_ante;
  state.tie = 0;
  renderTable();
  state.history = page.items;
  state.nextCursor = page.next_cursor;
  renderSeeds(seeds);
  renderHistory();
  if (protection?.reality_check) showRealityCheck(protection.reality_check);
  const pendingRound = open.items[0];
  if (pendingRound) {
    // Reloaded in the middle of a tie: the decision is still to be made.
    showRound(pendingRound, { animate: false });
    announce(`${tieSentence(pendingRound)} Choose: surrender or go to war.`);
  } else {
    showIdle();
  }
}

async function firstActiveTable() {
  const page = await state.client.get("/api/v1/tables?limit=200");
  const table = page.items.find((t) => t.active);
  if (!table) throw new Error("No table is open at the moment.");
  return table.id;
}

// ---------------------------------------------------------------- controls

function wireControls() {
  el.deal.addEventListener("click", deal);
  el.surrender.addEventListener("click", () => decide("surrender"));
  el.war.addEventListener("click", () => decide("war"));
  el.spotAnte.addEventListener("click", () => chooseTarget("ante"));
  el.spotTie.addEventListener("click", () => chooseTarget("tie"));
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

function renderTable() {
  const { rules, id, currency } = state.table;
  const m = (v) => money(v, currency);
  el.tableName.textContent = `Table ${id} · ${currency}`;
  const parts = [
    `Ante ${m(rules.min_ante)} – ${m(rules.max_ante)} in steps of ${m(rules.bet_increment)}`,
    rules.max_tie_bet > 0
      ? `Tie bet up to ${m(rules.max_tie_bet)}, pays ${rules.tie_pays} to 1`
      : "No tie bet",
    counted(rules.decks, "deck"),
  ];
  if (rules.war_tie_bonus) parts.push("Tie in a war pays a bonus");
  if (!rules.surrender_allowed) parts.push("No surrender");
  el.limits.textContent = parts.join(" · ");
  const largest = Math.max(rules.max_ante, rules.max_tie_bet);
  const chips = CHIP_MULTIPLES.map((k) => k * rules.bet_increment).filter((v) => v <= largest);
  replace(
    el.chips,
    chips.map((value, i) =>
      h(
        "button",
        {
          type: "button",
          class: `chip chip-${i}`,
          "aria-label": `Add ${m(value)}`,
          dataset: { value },
          onclick: () => addChip(value),
        },
        h("span", { "aria-hidden": "true" }, compactMoney(value)),
      ),
    ),
    h("button", { type: "button", class: "chip-clear", onclick: clearSpot }, "Clear"),
  );
  el.spotTie.disabled = rules.max_tie_bet === 0;
  renderBets();
}

function compactMoney(minor) {
  const text = money(minor, state.currency);
  return text.replace(/[.,]00(?=\D*$)/, "");
}

function chooseTarget(target) {
  state.target = target;
  el.spotAnte.setAttribute("aria-pressed", String(target === "ante"));
  el.spotTie.setAttribute("aria-pressed", String(target === "tie"));
}

function addChip(value) {
  const rules = state.table.rules;
  if (state.target === "ante") {
    state.ante = Math.min(rules.max_ante, state.ante + value);
  } else {
    state.tie = Math.min(rules.max_tie_bet, state.tie + value);
  }
  renderBets();
}

function clearSpot() {
  if (state.target === "ante") state.ante = 0;
  else state.tie = 0;
  renderBets();
}

function renderBets() {
  const rules = state.table.rules;
  const m = (v) => money(v, state.currency);
  el.anteAmount.textContent = m(state.ante);
  el.anteAmount.dataset.minor = String(state.ante);
  el.tieAmount.textContent = state.tie ? m(state.tie) : "—";
  el.tieAmount.dataset.minor = String(state.tie);
  let hint = "";
  if (state.ante < rules.min_ante) hint = `Place an ante of at least ${m(rules.min_ante)}.`;
  else if (state.ante + state.tie > state.balance) {
    hint = `These bets (${m(state.ante + state.tie)}) are more than your balance.`;
  } else {
    hint = `A tie lets you go to war by raising ${m(state.ante)} more.`;
  }
  el.betHint.textContent = hint;
  updateButtons();
}

function updateButtons() {
  const deciding = state.round?.status === "awaiting_decision";
  const rules = state.table?.rules;
  const betOk = Boolean(rules) && state.ante >= rules.min_ante;
  // A money request whose fate is unknown (the connection broke) locks the game: a new bet
  // would carry a new key and could be a second charge; only Retry (the same key) goes on.
  const locked = state.dead || state.busy || Boolean(state.client?.hasPending());
  el.deal.disabled = locked || deciding || !betOk || Boolean(state.realityCheck);
  el.surrender.disabled = locked || !deciding || !rules?.surrender_allowed;
  el.war.disabled = locked || !deciding;
  for (const button of el.betting.querySelectorAll("button")) {
    button.disabled = locked || deciding || (button === el.spotTie && rules?.max_tie_bet === 0);
  }
  el.rotate.disabled = locked;
  el.verify.disabled = state.dead || state.busy || !cryptoAvailable();
  el.clientSeed.disabled = state.dead;
  document.getElementById("save-seed").disabled = locked;
}

function setBusy(busy) {
  state.busy = busy;
  document.querySelector(".felt").setAttribute("aria-busy", String(busy));
  updateButtons();
}

function setBalance(minor) {
  state.balance = minor;
  el.balance.textContent = money(minor, state.currency);
  el.balance.dataset.minor = String(minor);
}

// ---------------------------------------------------------------- playing

async function deal() {
  if (state.busy || state.dead || state.client.hasPending() || state.realityCheck) return;
  const body = { table_id: state.table.id, ante: state.ante };
  if (state.tie > 0) body.tie_bet = state.tie;
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

async function decide(action) {
  const round = state.round;
  if (state.busy || state.dead || round?.status !== "awaiting_decision") return;
  if (state.client.hasPending()) return;
  await sendDecision(round.id, action);
}

async function sendDecision(roundId, action) {
  await act(async () => {
    const settled = await state.client.money(`/api/v1/rounds/${roundId}/decision`, { action });
    onRound(settled);
  }, () => sendDecision(roundId, action), { money: true });
}

// docs/fairness.md: a pair whose client seed the player did not choose (the server's default,
// or one carried over by a rotation) takes client entropy with its first bet. The page brings
// it for the player: 16 random bytes, in hex. Only on the pair's first bet (later ones would be
// refused with client_seed_fixed): the pair has dealt once a round shows its server seed hash,
// and its rounds are the newest in the history.
// Whether the active pair has dealt a round: one in the history shows its server seed hash.
function pairHasDealt(seeds) {
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
async function act(work, again, { money: keyed = false } = {}) {
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
      fatal(words(error));
      return;
    }
    showError(words(error));
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
    const why = keyed
      ? " Your last action may or may not have reached the table, so the game waits: Retry " +
        "sends exactly the same request again, and it can never be counted twice."
      : " Retry sends it again.";
    showError(words(error) + why, { retry: true });
    return;
  }
  showError(words(error));
}

function words(error) {
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
      ? `${tieSentence(round)} Choose: surrender or go to war.`
      : `${outcomeSentence(round)} Balance ${money(round.balance_after, state.currency)}.`;
  announce(sentence);
  if (round.reality_check) showRealityCheck(round.reality_check);
  // Focus follows the game for keyboard players (set once the controls are enabled again).
  if (round.status === "awaiting_decision") {
    state.focusNext = round.rules?.surrender_allowed === false ? el.war : el.surrender;
  } else if (!fresh) {
    state.focusNext = el.deal;
  }
}

function showIdle() {
  state.round = null;
  renderCards(null);
  show(el.warZone, false);
  el.headline.textContent = "Place your bets, then press Deal.";
  el.headline.className = "headline";
  show(el.payouts, false);
  show(el.outcome, true);
  show(el.decisionNote, false);
  show(el.deal, true);
  show(el.surrender, false);
  show(el.war, false);
  updateButtons();
}

function renderCards(round, animate = false) {
  replace(
    el.dealerCards,
    round ? cardElement(round.dealer_card, { deal: animate }) : emptySlot("Dealer's card"),
  );
  replace(
    el.playerCards,
    round ? cardElement(round.player_card, { deal: animate }) : emptySlot("Your card"),
  );
}

function showRound(round, { animate = false, fresh = true } = {}) {
  state.round = round;
  renderCards(round, animate && fresh);
  const deciding = round.status === "awaiting_decision";
  if (round.war) {
    replace(el.burnCards, round.war.burns.map((c) => cardElement(c, { size: "small", deal: animate })));
    replace(el.warDealer, cardElement(round.war.dealer_card, { size: "small", deal: animate }));
    replace(el.warPlayer, cardElement(round.war.player_card, { size: "small", deal: animate }));
  }
  show(el.warZone, Boolean(round.war));
  show(el.deal, !deciding);
  show(el.surrender, deciding && round.rules?.surrender_allowed !== false);
  show(el.war, deciding);
  show(el.decisionNote, deciding);
  if (deciding) {
    const m = (v) => money(v, round.currency);
    const tiePaid = round.payouts.tie_bet ? ` Your tie bet paid ${m(round.payouts.tie_bet)}.` : "";
    el.decisionNote.textContent =
      `${tieSentence(round)}${tiePaid} Surrender: ${m(Math.floor(round.bets.ante / 2))} of ` +
      `your ante comes back. Go to war: raise ${m(round.bets.ante)} and draw one more card each.`;
    show(el.outcome, false);
  } else {
    renderOutcome(round);
  }
  updateButtons();
}

function rank(code) {
  const card = parseCard(code);
  return card && !card.joker ? RANK_ORDER.indexOf(card.rank) : -1;
}

function tieSentence(round) {
  return `Tie: your ${cardText(round.player_card)} against the dealer's ${cardText(round.dealer_card)}.`;
}

function outcomeSentence(round) {
  const m = (v) => money(Math.abs(v), round.currency);
  const yours = cardText(round.player_card);
  const theirs = cardText(round.dealer_card);
  let story;
  if (round.decision?.action === "surrender") {
    story = `Tie (${yours} against ${theirs}): you surrendered and got half your ante back.`;
  } else if (round.war) {
    const wp = round.war.player_card;
    const wd = round.war.dealer_card;
    if (rank(wp) > rank(wd)) story = `War: your ${cardText(wp)} beats the dealer's ${cardText(wd)}.`;
    else if (rank(wp) === rank(wd)) story = `War: ${cardText(wp)} ties ${cardText(wd)}, which counts as your win.`;
    else story = `War: the dealer's ${cardText(wd)} beats your ${cardText(wp)}.`;
  } else if (rank(round.player_card) > rank(round.dealer_card)) {
    story = `Your ${yours} beats the dealer's ${theirs}.`;
  } else {
    story = `The dealer's ${theirs} beats your ${yours}.`;
  }
  const result = round.net > 0 ? `You win ${m(round.net)}.` : round.net < 0 ? `You lose ${m(round.net)}.` : "You break even.";
  return `${story} ${result}`;
}

const BET_NAMES = { ante: "Ante", tie_bet: "Tie bet", raise: "War raise" };
const OUTCOME_WORDS = { win: "Win", lose: "Lose", loss: "Lose", push: "Push", surrender: "Half back", bonus: "Bonus" };

function betResult(round, bet) {
  const given = round.outcomes?.[bet];
  if (typeof given === "string" && given) return OUTCOME_WORDS[given] || given.charAt(0).toUpperCase() + given.slice(1);
  const stake = round.bets[bet];
  const paid = round.payouts[bet];
  if (paid === 0) return "Lose";
  if (paid === stake) return "Push";
  if (paid < stake) return "Half back";
  return "Win";
}

function payoutRows(round) {
  const m = (v) => money(v, round.currency);
  return Object.keys(BET_NAMES)
    .filter((bet) => round.bets[bet] > 0)
    .map((bet) => {
      const result = betResult(round, bet);
      return h(
        "tr",
        { class: `bet-${result.toLowerCase().replace(/\s+/g, "-")}` },
        h("th", { scope: "row" }, BET_NAMES[bet]),
        h("td", {}, m(round.bets[bet])),
        h("td", {}, result),
        h("td", {}, m(round.payouts[bet])),
      );
    });
}

function renderOutcome(round) {
  el.headline.textContent = outcomeSentence(round);
  el.headline.className = `headline ${round.net > 0 ? "win" : round.net < 0 ? "lose" : "even"}`;
  replace(el.payouts.tBodies[0], payoutRows(round));
  el.net.textContent = signedMoney(round.net, round.currency);
  el.net.className = round.net > 0 ? "win" : round.net < 0 ? "lose" : "";
  show(el.payouts, true);
  show(el.outcome, true);
}

// ---------------------------------------------------------------- history and recall

function rememberRound(round) {
  const index = state.history.findIndex((r) => r.id === round.id);
  if (index >= 0) state.history[index] = round;
  else state.history.unshift(round);
  renderHistory();
  if (state.selected === round.id) renderRecall(round);
}

function renderHistory() {
  show(el.historyEmpty, state.history.length === 0);
  show(el.moreHistory, Boolean(state.nextCursor));
  replace(
    el.history,
    state.history.map((round) => {
      const open = round.status === "awaiting_decision";
      const cards = [round.player_card, round.dealer_card].map(cardText).join(" v ");
      const war = round.war ? ` · war ${cardText(round.war.player_card)} v ${cardText(round.war.dealer_card)}` : "";
      const net = open ? "deciding" : signedMoney(round.net, round.currency);
      const tone = open ? "open" : round.net > 0 ? "win" : round.net < 0 ? "lose" : "even";
      return h(
        "li",
        {},
        h(
          "button",
          {
            type: "button",
            class: `round-item${state.selected === round.id ? " selected" : ""}`,
            "aria-current": state.selected === round.id ? "true" : null,
            dataset: { round: round.id },
            onclick: () => recall(round.id),
          },
          h("span", { class: "nonce" }, `#${round.fairness.nonce}`),
          h("span", { class: "mini" }, cards + war),
          h("span", { class: `net ${tone}` }, net),
        ),
      );
    }),
  );
}

async function loadMoreHistory() {
  if (!state.nextCursor) return;
  await act(async () => {
    const page = await state.client.get(
      `/api/v1/rounds?limit=${HISTORY_PAGE}&cursor=${encodeURIComponent(state.nextCursor)}`,
    );
    state.history.push(...page.items.filter((r) => !state.history.some((x) => x.id === r.id)));
    state.nextCursor = page.next_cursor;
    renderHistory();
  }, loadMoreHistory);
}

async function recall(roundId) {
  await act(async () => {
    const round = await state.client.get(`/api/v1/rounds/${roundId}`);
    state.selected = round.id;
    rememberRound(round);
    renderRecall(round);
    show(el.recallPanel, true);
    el.verifyResult.hidden = true;
    updateVerifyTarget();
  }, () => recall(roundId));
}

function renderRecall(round) {
  const m = (v) => money(v, round.currency);
  const f = round.fairness;
  const cardsRow = (label, codes) =>
    h("div", { class: "recall-cards" }, h("span", { class: "who" }, label),
      h("div", { class: "card-row" }, codes.map((c) => cardElement(c, { size: "tiny" }))));
  const decision = round.decision
    ? `${round.decision.action === "war" ? "Went to war" : "Surrendered"} (decided by ${round.decision.decided_by})`
    : round.status === "awaiting_decision" ? "Waiting for a decision" : "No tie: settled at once";
  replace(
    el.recall,
    h("p", { class: "recall-head" },
      h("strong", {}, `Round #${f.nonce}`), ` · table ${round.table_id} · ${timeText(round.created_at)}`),
    h("div", { class: "recall-deal" },
      cardsRow("You", [round.player_card]),
      cardsRow("Dealer", [round.dealer_card]),
      round.war ? cardsRow("Burnt", round.war.burns) : null,
      round.war ? cardsRow("War (you, dealer)", [round.war.player_card, round.war.dealer_card]) : null),
    h("p", {}, decision),
    h("table", { class: "payouts compact", "aria-label": "Bets and payouts of this round" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Bet"), h("th", { scope: "col" }, "Stake"),
        h("th", { scope: "col" }, "Result"), h("th", { scope: "col" }, "Paid"))),
      h("tbody", {}, payoutRows(round)),
      h("tfoot", {}, h("tr", {}, h("th", { scope: "row", colspan: "3" }, "Net"),
        h("td", {}, signedMoney(round.net, round.currency))))),
    h("dl", { class: "facts" },
      h("dt", {}, "Balance after"), h("dd", {}, m(round.balance_after)),
      h("dt", {}, "Ledger transactions"), h("dd", { class: "ledger-ids" }, round.transaction_ids.map((id) => `#${id}`).join(", ")),
      h("dt", {}, "Server seed hash"), h("dd", {}, h("code", {}, f.server_seed_hash)),
      h("dt", {}, "Client seed"), h("dd", {}, h("code", {}, f.client_seed)),
      h("dt", {}, "Nonce"), h("dd", {}, String(f.nonce)),
      h("dt", {}, "Server seed"),
      h("dd", {}, f.server_seed ? h("code", { class: "revealed-seed" }, f.server_seed)
        : "Not revealed yet: rotate the seed to reveal it, then verify."),
      h("dt", {}, "Round id"), h("dd", {}, h("code", {}, round.id))),
  );
}

function updateVerifyTarget() {
  const target = verifyTarget();
  el.verifyTarget.textContent = target
    ? `Verify checks round #${target.fairness.nonce}${state.selected ? " (selected in the history)" : " (the latest)"}.`
    : "Play a round, rotate the seed, then verify it.";
}

function verifyTarget() {
  if (state.selected) return state.history.find((r) => r.id === state.selected) || null;
  return state.history[0] || null;
}

// ---------------------------------------------------------------- fairness

function renderSeeds(seeds) {
  state.seeds = seeds;
  el.seedHash.textContent = seeds.server_seed_hash;
  el.nextNonce.textContent = String(seeds.next_nonce);
  el.clientSeed.value = seeds.client_seed;
  const dealt = pairHasDealt(seeds);
  el.seedNote.textContent = seeds.client_seed_chosen
    ? ""
    : dealt
      ? "The server chose or carried over this client seed: set yours for the next rounds, " +
        "or rotate the seed."
      : "The server chose or carried over this client seed: your next bet brings a fresh " +
        "random one of yours.";
  show(el.seedNote, !seeds.client_seed_chosen);
  updateVerifyTarget();
}

async function saveClientSeed() {
  const value = el.clientSeed.value;
  if (!/^[ -~]{1,64}$/.test(value)) {
    showError("A client seed is 1 to 64 printable ASCII characters (letters, digits, spaces, punctuation).");
    return;
  }
  await act(async () => {
    const seeds = await state.client.put(`/api/v1/players/${state.playerId}/seeds/client`, {
      client_seed: value,
    });
    renderSeeds(seeds);
    announce(`Client seed set. The next round uses it with nonce ${seeds.next_nonce}.`);
  }, saveClientSeed);
}

async function rotateSeed() {
  await act(async () => {
    // Keyed: a retry after a lost answer replays the rotation, never rotates twice.
    const rotation = await state.client.money(`/api/v1/players/${state.playerId}/seeds/rotate`);
    renderSeeds(rotation.current);
    const r = rotation.revealed;
    const span = r.last_nonce === null ? "no rounds" : `nonces ${r.first_nonce} to ${r.last_nonce}`;
    replace(
      el.revealed,
      h("p", {}, h("strong", {}, "Revealed server seed "), `(${span}):`),
      h("code", { class: "revealed-seed" }, r.server_seed),
      h("p", { class: "hint" }, "Its SHA-256 is the hash you were shown before those rounds: Verify checks it."),
    );
    show(el.revealed, true);
    // Rounds dealt from the retired seed now show it.
    const page = await state.client.get(`/api/v1/rounds?limit=${Math.max(HISTORY_PAGE, state.history.length)}`);
    state.history = page.items;
    state.nextCursor = page.next_cursor;
    renderHistory();
    if (state.selected) {
      const chosen = state.history.find((x) => x.id === state.selected);
      if (chosen) renderRecall(chosen);
    }
    updateVerifyTarget();
    announce("Server seed revealed and replaced. You can now verify the rounds it dealt.");
  }, rotateSeed, { money: true });
}

async function verifySelected() {
  const target = verifyTarget();
  if (!target) {
    showError("There is no round to verify yet: play one first.");
    return;
  }
  await act(async () => {
    const round = await state.client.get(`/api/v1/rounds/${target.id}`);
    rememberRound(round);
    if (!round.fairness.server_seed) {
      showVerifyResult(false, h("p", {}, `Round #${round.fairness.nonce} was dealt from the active server seed, ` +
        "which stays secret until it is retired. Rotate the seed first, then verify."));
      return;
    }
    const result = await verifyRound(round);
    const dealt = h("div", { class: "card-row" }, result.cards.slice(0, result.shown.length).map((c) => cardElement(c, { size: "tiny" })));
    if (result.ok) {
      showVerifyResult(true,
        h("p", {}, h("strong", {}, `Verified round #${round.fairness.nonce}. `),
          "SHA-256 of the revealed server seed equals the hash shown before the round, and " +
          `HMAC-SHA256 dealing (client seed “${round.fairness.client_seed}”, nonce ${round.fairness.nonce}) ` +
          `gives exactly its cards: ${result.shown.map(cardText).join(" ")}.`),
        dealt);
      announce(`Verified round ${round.fairness.nonce}: the cards match.`);
    } else {
      const problems = [];
      if (!result.commitmentOk) problems.push("the revealed seed does not match the committed hash");
      for (const x of result.mismatches) problems.push(`card ${x.position} shows ${cardText(x.shown)} but the seeds deal ${cardText(x.dealt)}`);
      showVerifyResult(false, h("p", {}, h("strong", {}, `Round #${round.fairness.nonce} does NOT verify: `), problems.join("; ") + "."), dealt);
      announce(`Round ${round.fairness.nonce} does not verify.`);
    }
  }, verifySelected);
}

function showVerifyResult(ok, ...content) {
  el.verifyResult.className = `verify-result ${ok ? "ok" : "bad"}`;
  replace(el.verifyResult, ...content);
  show(el.verifyResult, true);
}

// ---------------------------------------------------------------- messages

let announceTimer = null;

function announce(text) {
  // Cleared first, so that the same sentence twice is read twice.
  el.announcer.textContent = "";
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => {
    el.announcer.textContent = text;
  }, 50);
}

function showError(text, { retry = false } = {}) {
  el.errorText.textContent = text;
  show(el.retry, retry);
  if (!retry) state.retry = null;
  // A request of unknown fate is not dismissed: it is retried (or the page reloaded).
  show(el.dismiss, !state.dead && !state.client?.hasPending());
  show(el.error, true);
  updateButtons();
  if (retry) el.retry.focus();
}

function clearError() {
  if (state.dead) return;
  show(el.error, false);
  state.retry = null;
}

// ---------------------------------------------------------------- reality checks

function showRealityCheck(check) {
  state.realityCheck = check;
  const since = timeText(check.session_started_at, { seconds: false });
  const minutes = check.minutes_played;
  const every = check.interval_minutes;
  el.realityText.textContent =
    `You have been playing for ${counted(minutes, "minute")} (since ${since}). ` +
    `You asked for a reality check every ${counted(every, "minute")}.`;
  const session = sessionSummary(check.session_started_at);
  el.realitySession.textContent = session || "";
  show(el.realitySession, Boolean(session));
  show(el.realityError, false);
  if (!el.realityCheck.open) el.realityCheck.showModal();
  el.realityAck.disabled = false;
  announce(`Reality check. ${el.realityText.textContent} ${session || ""}`.trim());
  updateButtons();
}

// The session's rounds and net, from the history the page holds: only when it reaches back
// to the session's start (else the figures would be short).
function sessionSummary(startedIso) {
  const started = Date.parse(startedIso);
  const rounds = state.history.filter((r) => Date.parse(r.created_at) >= started);
  const complete = !state.nextCursor || rounds.length < state.history.length;
  if (!complete || !rounds.length) return null;
  const net = rounds.reduce((sum, r) => sum + (r.status === "settled" ? r.net : 0), 0);
  const verb = net > 0 ? "won" : net < 0 ? "lost" : "neither won nor lost";
  const amount = net ? ` ${money(Math.abs(net), state.currency)}` : "";
  return `In this session you played ${counted(rounds.length, "round")} and ${verb}${amount}.`;
}

async function acknowledgeRealityCheck() {
  const check = state.realityCheck;
  if (!check) return;
  el.realityAck.disabled = true;
  try {
    await state.client.post(check.acknowledge);
  } catch (error) {
    el.realityError.textContent = `${words(error)} The reality check is still open.`;
    show(el.realityError, true);
    el.realityAck.disabled = false;
    return;
  }
  state.realityCheck = null;
  el.realityCheck.close();
  const every = check.interval_minutes;
  announce(`Reality check acknowledged. The next one comes in ${counted(every, "minute")} ` +
    "of play.");
  updateButtons();
  if (!el.deal.hidden && !el.deal.disabled) el.deal.focus();
}

function fatal(text) {
  state.dead = true;
  showError(text);
  show(el.dismiss, false);
  updateButtons();
}

let waitTimer = null;

function showWaiting(message, seconds) {
  clearInterval(waitTimer);
  if (!message) {
    show(el.waiting, false);
    return;
  }
  let left = Math.ceil(seconds);
  const render = () => {
    el.waiting.textContent = message.replace(/\d+ s…$/, `${Math.max(0, left)} s…`);
  };
  render();
  show(el.waiting, true);
  waitTimer = setInterval(() => {
    left -= 1;
    render();
  }, 1000);
}

start();

// "1 minute", "2 minutes".
function counted(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
