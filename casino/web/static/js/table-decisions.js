// A round awaiting decisions: each tied hand's choice, surrender or war (with a war tie bet
// where the table offers one), for one hand or for all of them at once.

import { cardName } from "./cards.js";
import { h, replace, show } from "./dom.js";
import { N_, t } from "./i18n.js";
import { money } from "./money.js";
import { decide } from "./table-play.js";
import { el, state } from "./table-state.js";

// The controls drawn for the round now awaiting: [button, kind] ("surrender", "war", "step").
let controls = [];

export function awaitingHands(round) {
  if (round?.status !== "awaiting_decision") return [];
  return round.awaiting_hands?.length ? round.awaiting_hands : [0];
}

function warTieRule(round) {
  const rule = (round.rules ?? state.table.rules).war_tie_bet;
  return rule?.enabled ? rule : null;
}

function handCard(round, hand) {
  return round.hands?.[hand]?.card ?? round.player_card;
}

function stepper(round, hand, rule) {
  const step = (round.rules ?? state.table.rules).bet_increment;
  const m = (v) => money(v, round.currency);
  const shown = h("output", { id: `war-tie-${hand}`, class: "war-tie-amount" });
  const render = () => {
    const amount = state.warTie[hand] ?? 0;
    shown.textContent = amount ? m(amount) : "—";
    shown.dataset.minor = String(amount);
  };
  const change = (delta) => {
    const next = Math.min(rule.max, Math.max(0, (state.warTie[hand] ?? 0) + delta));
    state.warTie[hand] = next;
    render();
  };
  const down = h("button", { type: "button", class: "step", id: `war-tie-down-${hand}`,
    "aria-label": t("bet.war_tie_down", { amount: m(step) }), onclick: () => change(-step) }, "−");
  const up = h("button", { type: "button", class: "step", id: `war-tie-up-${hand}`,
    "aria-label": t("bet.war_tie_up", { amount: m(step) }), onclick: () => change(step) }, "+");
  render();
  controls.push([down, "step"], [up, "step"]);
  return h("div", { class: "war-tie" },
    h("span", { class: "war-tie-name", id: `war-tie-name-${hand}` }, t("bet.war_tie_bet")),
    down, shown, up);
}

// The rows of the hands awaiting a decision: one per hand when several wait (each with its
// own buttons), and the war tie bet's stepper where the table offers it.
export function renderDecisions(round) {
  controls = [];
  const hands = awaitingHands(round);
  const rule = warTieRule(round);
  const perHand = hands.length > 1;
  const surrenderOk = (round.rules ?? state.table.rules).surrender_allowed !== false;
  const rows = hands.map((hand) => {
    const parts = [];
    if (perHand) {
      parts.push(h("p", { class: "decision-hand" }, t("round.hand_tie", {
        hand: hand + 1, yours: cardName(handCard(round, hand)), theirs: cardName(round.dealer_card) })));
    }
    if (rule) parts.push(stepper(round, hand, rule));
    if (perHand) {
      const buttons = [];
      if (surrenderOk) {
        const surrender = h("button", { type: "button", id: `surrender-${hand}`,
          onclick: () => decide("surrender", hand) }, t("round.surrender"));
        controls.push([surrender, "surrender"]);
        buttons.push(surrender);
      }
      const war = h("button", { type: "button", class: "primary war", id: `war-${hand}`,
        onclick: () => decide("war", hand) }, t("round.go_to_war"));
      controls.push([war, "war"]);
      buttons.push(war);
      parts.push(h("div", { class: "decision-buttons" }, buttons));
    }
    return h("div", { class: "decision-row", dataset: { hand } }, parts);
  });
  replace(el.decisions, rows);
  show(el.decisions, rows.length > 0 && (perHand || Boolean(rule)));
  el.surrender.textContent = t(perHand ? N_("round.surrender_all") : N_("round.surrender"));
  el.war.textContent = t(perHand ? N_("round.war_all") : N_("round.go_to_war"));
  if (rule) {
    el.warTieNote.textContent = t("round.war_tie_note", { max: money(rule.max, round.currency), pays: rule.pays });
  }
  show(el.warTieNote, Boolean(rule) && hands.length > 0);
}

export function clearDecisions() {
  controls = [];
  replace(el.decisions);
  show(el.decisions, false);
  show(el.warTieNote, false);
  state.warTie = {};
}

export function updateDecisionButtons(locked) {
  for (const [button] of controls) button.disabled = locked;
}

// The first hand's war button when several wait (focus follows the game).
export function firstDecisionButton() {
  const found = controls.find(([, kind]) => kind === "surrender") || controls.find(([, kind]) => kind === "war");
  return found ? found[0] : null;
}
