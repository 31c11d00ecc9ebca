// The table's rules, the betting spots and chips, the balance, and which controls may be
// used now.

import { h, replace } from "./dom.js";
import { available as cryptoAvailable } from "./fairness.js";
import { N_, t, tn } from "./i18n.js";
import { money } from "./money.js";
import { updateDecisionButtons } from "./table-decisions.js";
import { handPlayable, rulesText, tieOnlyAllowed } from "./table-rules.js";
import { renderSpots, severalHands, showAmounts, spotButtons } from "./table-spots.js";
import { el, state } from "./table-state.js";

const CHIP_MULTIPLES = [1, 5, 25, 100, 500];

export function renderTable() {
  const { rules, id, currency } = state.table;
  const m = (v) => money(v, currency);
  el.tableName.textContent = t("table.name", { table: id, currency });
  el.limits.textContent = rulesText(rules, currency);
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
          "aria-label": t("bet.add_chip", { amount: m(value) }),
          dataset: { value },
          onclick: () => addChip(value),
        },
        h("span", { "aria-hidden": "true" }, compactMoney(value)),
      ),
    ),
    h("button", { type: "button", class: "chip-clear", onclick: clearSpot }, t("bet.clear")),
  );
  if (state.hands.length === 0) state.hands = [{ ante: rules.min_ante, tie: 0 }];
  renderSpots();
  renderBets();
}

// A chip's face: the amount without a zero fraction ("€5", "5 €").
function compactMoney(minor) {
  const text = money(minor, state.currency);
  return text.replace(/[.,]00(?=\D*$)/, "");
}

function addChip(value) {
  const rules = state.table.rules;
  const hand = state.hands[state.target.hand];
  if (state.target.bet === "ante") hand.ante = Math.min(rules.max_ante, hand.ante + value);
  else hand.tie = Math.min(rules.max_tie_bet, hand.tie + value);
  renderBets();
}

function clearSpot() {
  const hand = state.hands[state.target.hand];
  if (state.target.bet === "ante") hand.ante = 0;
  else hand.tie = 0;
  renderBets();
}

// One hand more (a copy of the last hand's bets) or one fewer.
export function changeHands(delta) {
  const rules = state.table.rules;
  const count = Math.min(rules.max_hands ?? 1, Math.max(1, state.hands.length + delta));
  if (count === state.hands.length) return;
  if (count > state.hands.length) {
    const last = state.hands[state.hands.length - 1];
    state.hands.push({ ante: last.ante, tie: last.tie });
    state.target = { hand: count - 1, bet: "ante" };
  } else {
    state.hands.pop();
  }
  renderSpots();
  renderBets();
}

export function totalStake() {
  return state.hands.reduce((sum, hand) => sum + hand.ante + hand.tie, 0);
}

function betHint() {
  const rules = state.table.rules;
  const m = (v) => money(v, state.currency);
  const several = state.hands.length > 1;
  const orTie = tieOnlyAllowed(rules);
  const wrong = state.hands.findIndex((hand) => !handPlayable(rules, hand));
  if (wrong >= 0) {
    const amount = m(rules.min_ante);
    if (several) {
      const key = orTie ? N_("bet.hint.hand_min_ante_or_tie") : N_("bet.hint.hand_min_ante");
      return t(key, { hand: wrong + 1, amount });
    }
    return t(orTie ? N_("bet.hint.min_ante_or_tie") : N_("bet.hint.min_ante"), { amount });
  }
  const total = totalStake();
  if (total > state.balance) return t("bet.hint.over_balance", { amount: m(total) });
  if (several) return tn("bet.hint.hands_total", state.hands.length, { amount: m(total) });
  if (state.hands[0].ante === 0) return t("bet.hint.tie_alone");
  return t("bet.hint.war", { amount: m(state.hands[0].ante) });
}

export function renderBets() {
  showAmounts();
  el.betHint.textContent = betHint();
  updateButtons();
}

export function betPlayable() {
  const rules = state.table?.rules;
  return Boolean(rules) && state.hands.length > 0 && state.hands.every((hand) => handPlayable(rules, hand));
}

export function updateButtons() {
  const deciding = state.round?.status === "awaiting_decision";
  const rules = state.table?.rules;
  // A money request whose fate is unknown (the connection broke) locks the game: a new bet
  // would carry a new key and could be a second charge; only Retry (the same key) goes on.
  const locked = state.dead || state.busy || Boolean(state.client?.hasPending());
  el.deal.disabled = locked || deciding || !betPlayable() || Boolean(state.realityCheck);
  el.surrender.disabled = locked || !deciding || !rules?.surrender_allowed;
  el.war.disabled = locked || !deciding;
  const noTie = rules?.max_tie_bet === 0;
  for (const button of el.betting.querySelectorAll("button")) {
    button.disabled = locked || deciding;
  }
  for (const [button, isTie] of spotButtons()) button.disabled = locked || deciding || (isTie && noTie);
  if (severalHands()) {
    el.fewerHands.disabled = locked || deciding || state.hands.length <= 1;
    el.moreHands.disabled = locked || deciding || state.hands.length >= rules.max_hands;
  }
  updateDecisionButtons(locked);
  el.rotate.disabled = locked;
  el.verify.disabled = state.dead || state.busy || !cryptoAvailable();
  el.clientSeed.disabled = state.dead;
  el.saveSeed.disabled = locked;
}

export function setBusy(busy) {
  state.busy = busy;
  el.felt.setAttribute("aria-busy", String(busy));
  updateButtons();
}

export function setBalance(minor) {
  state.balance = minor;
  el.balance.textContent = money(minor, state.currency);
  el.balance.dataset.minor = String(minor);
}
