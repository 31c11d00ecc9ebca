// The shared round as the page shows it, drawn from the last GET .../round answer: phase and
// countdown (on the server's clock), the common cards and wars, the bettors, the player's
// own bet and result, which controls work now, and the shoe.

import { cardElement, cardName, emptySlot } from "./cards.js";
import { replace, show } from "./dom.js";
import { N_, t, tn } from "./i18n.js";
import { money, signedMoney } from "./money.js";
import { renderBets, renderWarTie, updateButtons, warTieRule } from "./live-bets.js";
import { renderRoad } from "./live-road.js";
import { el, serverNow, state } from "./live-state.js";

const PHASES = {
  betting: N_("live.phase.betting"),
  closed: N_("live.phase.closed"),
  dealt: N_("live.phase.dealt"),
  decisions: N_("live.phase.decisions"),
  war: N_("live.phase.war"),
  settled: N_("live.phase.settled"),
  voided: N_("live.phase.voided"),
};

const WINNERS = {
  player: N_("live.winner.player"),
  dealer: N_("live.winner.dealer"),
  tie: N_("live.winner.tie"),
};

// The round read now: the page follows it.
export function setRound(round) {
  state.round = round;
  const server = Date.parse(round.server_time);
  if (Number.isFinite(server)) state.offset = server - Date.now();
  renderRound();
}

export function renderRound() {
  const round = state.round;
  el.felt.setAttribute("aria-busy", "false");
  if (!round) {
    el.phase.textContent = t("live.waiting_for_dealer");
    el.countdown.textContent = "";
    el.bettors.textContent = "";
    renderCards(null);
    renderMyBet();
    renderRoad();
    updateButtons();
    return;
  }
  document.body.dataset.phase = round.phase;
  el.phase.textContent = `${t("live.round", { round: round.round })} · ${t(PHASES[round.phase] || PHASES.closed)}`;
  // While bets are taken they are counted as they come; afterwards they are the round's.
  el.bettors.textContent = tn(round.phase === "betting" ? N_("live.bettors") : N_("live.bettors_done"), round.bettors);
  renderCountdown();
  renderCards(round.cards);
  renderMyBet();
  renderRoad();
  renderShoe();
  updateButtons();
}

// The deadline the phase counts down to, and the sentence saying it.
function countdownTarget(round) {
  if (round.phase === "betting") return [round.closes_at, N_("live.countdown.betting")];
  if (round.phase === "decisions") return [round.deadline, N_("live.countdown.decisions")];
  if (round.phase === "settled" || round.phase === "voided") return [round.next_at, N_("live.countdown.next")];
  return [null, null];
}

export function secondsLeft() {
  const round = state.round;
  if (!round) return 0;
  const [iso] = countdownTarget(round);
  const at = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - serverNow()) / 1000)) : 0;
}

export function renderCountdown() {
  const round = state.round;
  if (!round) return;
  const [iso, key] = countdownTarget(round);
  if (!iso || !key) {
    el.countdown.textContent = "";
    delete el.countdown.dataset.seconds;
    return;
  }
  const seconds = secondsLeft();
  el.countdown.textContent = t(key, { seconds });
  el.countdown.dataset.seconds = String(seconds);
  el.countdown.classList.toggle("urgent", seconds <= 5 && round.phase !== "settled");
}

function renderCards(cards) {
  const dealt = Boolean(cards?.player_card);
  replace(
    el.dealerCards,
    dealt ? cardElement(cards.dealer_card) : emptySlot(t("round.dealer_card")),
  );
  replace(
    el.playerCards,
    dealt ? cardElement(cards.player_card) : emptySlot(t("live.player_card")),
  );
  const wars = cards?.wars || [];
  show(el.warZone, wars.length > 0);
  replace(el.warDealer, wars.map((war) => cardElement(war.dealer_card, { size: "small" })));
  replace(el.warPlayer, wars.map((war) => cardElement(war.player_card, { size: "small" })));
}

function stakeText(bet) {
  const m = (v) => money(v, state.currency);
  const parts = [t("live.stake.ante", { amount: m(bet.ante) })];
  if (bet.tie_bet) parts.push(t("live.stake.tie_bet", { amount: m(bet.tie_bet) }));
  if (bet.raise) parts.push(t("live.stake.raise", { amount: m(bet.raise) }));
  if (bet.war_tie_bet) parts.push(t("live.stake.war_tie_bet", { amount: m(bet.war_tie_bet) }));
  return parts.join(" · ");
}

export function decisionText(bet) {
  const decision = bet?.decision;
  if (!decision) return "";
  if (decision.decided_by === "timeout") {
    return decision.action === "war" ? t("live.decided.timeout_war") : t("live.decided.timeout_surrender");
  }
  return decision.action === "war" ? t("live.decided.war") : t("live.decided.surrender");
}

// The player's own result once the round is settled (or refunded).
export function resultText(bet) {
  if (!bet) return "";
  if (bet.status === "refunded") return t("live.result.refunded");
  if (bet.status !== "settled" || !Number.isInteger(bet.net)) return "";
  const amount = money(Math.abs(bet.net), state.currency);
  if (bet.net > 0) return t("outcome.net_win", { amount });
  if (bet.net < 0) return t("outcome.net_loss", { amount });
  return t("outcome.net_even");
}

function renderMyBet() {
  const bet = state.round?.my_bet;
  if (!bet) {
    el.myBetText.textContent = t("live.no_bet");
    show(el.myResult, false);
    el.myBet.dataset.status = "none";
  } else {
    el.myBet.dataset.status = bet.status;
    const lines = [stakeText(bet), decisionText(bet)].filter(Boolean);
    el.myBetText.textContent = lines.join(" — ");
    const result = resultText(bet);
    el.myResult.textContent = result ? `${result} (${signedMoney(bet.net ?? 0, state.currency)})` : "";
    if (bet.status === "refunded") el.myResult.textContent = result;
    el.myResult.classList.toggle("win", (bet.net ?? 0) > 0);
    el.myResult.classList.toggle("lose", (bet.net ?? 0) < 0);
    show(el.myResult, Boolean(result));
  }
  const deciding = state.round?.phase === "decisions" && Boolean(bet?.awaiting_decision);
  show(el.war, deciding);
  show(el.surrender, deciding && Boolean(state.table?.rules.surrender_allowed));
  const betting = state.round?.phase === "betting";
  show(el.placeBet, betting);
  show(el.betting, betting);
  show(el.decisionNote, deciding);
  if (deciding) {
    el.decisionNote.textContent = t("round.decision_note", {
      half: money(Math.floor(bet.ante / 2), state.currency),
      raise: money(bet.ante, state.currency),
    });
  }
  // The war tie bet goes with the decision to go to war, where the table offers one.
  const rule = warTieRule();
  show(el.warTie, deciding && Boolean(rule));
  show(el.warTieNote, deciding && Boolean(rule));
  if (!deciding) state.warTie = 0;
  if (deciding && rule) {
    el.warTieNote.textContent = t("round.war_tie_note", { max: money(rule.max, state.currency), pays: rule.pays });
  }
  renderWarTie();
  renderBets();
}

function renderShoe() {
  const shoe = state.round?.shoe;
  if (!shoe) return;
  el.shoeNumber.textContent = t("live.shoe.index", { index: shoe.index, rounds: shoe.rounds_dealt });
  el.shoeCommitment.textContent = shoe.commitment;
}

// What a screen reader hears of the common cards: "Player: king of spades. Dealer: ...".
export function cardsSentence(playerCard, dealerCard, winner) {
  const cards = t("live.cards_said", { player: cardName(playerCard), dealer: cardName(dealerCard) });
  return winner && WINNERS[winner] ? `${cards} ${t(WINNERS[winner])}` : cards;
}

export function phaseWords(phase) {
  return t(PHASES[phase] || PHASES.closed);
}

export function renderFollowMode() {
  el.followMode.textContent =
    state.follow === "events" ? t("live.follow.events") : state.follow === "polling" ? t("live.follow.polling") : "—";
  if (state.follow) document.body.dataset.follow = state.follow;
}
