// The player's part in the shared round: chips onto the ante and tie spots, the bet placed
// (it adds to the round's bet if there is one), war (with a war tie bet where the table
// offers one) or surrender on a tie, the balance, and which controls work now (bets while
// the window is open, a decision while one is due).

import { h, replace } from "./dom.js";
import { t, tn } from "./i18n.js";
import { money } from "./money.js";
import { el, state } from "./live-state.js";

const CHIP_MULTIPLES = [1, 5, 25, 100, 500];

export function renderTable() {
  const { rules, id, currency } = state.table;
  const m = (v) => money(v, currency);
  el.tableName.textContent = t("table.name", { table: id, currency });
  const parts = [
    t("table.rules.ante", { min: m(rules.min_ante), max: m(rules.max_ante), step: m(rules.bet_increment) }),
    rules.max_tie_bet > 0
      ? t("table.rules.tie_bet", { max: m(rules.max_tie_bet), pays: rules.tie_pays })
      : t("table.rules.no_tie_bet"),
    tn("table.rules.decks", rules.decks),
  ];
  if (rules.war_tie_bonus) parts.push(t("table.rules.war_tie_bonus"));
  const warTie = warTieRule();
  if (warTie) parts.push(t("table.rules.war_tie_bet", { max: m(warTie.max), pays: warTie.pays }));
  if (!rules.surrender_allowed) parts.push(t("table.rules.no_surrender"));
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
          "aria-label": t("bet.add_chip", { amount: m(value) }),
          dataset: { value },
          onclick: () => addChip(value),
        },
        h("span", { "aria-hidden": "true" }, money(value, currency).replace(/[.,]00(?=\D*$)/, "")),
      ),
    ),
    h("button", { type: "button", class: "chip-clear", onclick: clearSpot }, t("bet.clear")),
  );
  el.warTieDown.setAttribute("aria-label", t("bet.war_tie_down", { amount: m(rules.bet_increment) }));
  el.warTieUp.setAttribute("aria-label", t("bet.war_tie_up", { amount: m(rules.bet_increment) }));
  renderBets();
}

// The table's war tie bet ({enabled, max, pays}), or null where it offers none.
export function warTieRule() {
  const rule = state.table?.rules.war_tie_bet;
  return rule?.enabled ? rule : null;
}

// One step (the table's bet increment) more or less on the war tie bet, within its range.
export function stepWarTie(steps) {
  const rule = warTieRule();
  if (!rule) return;
  const step = state.table.rules.bet_increment;
  state.warTie = Math.min(rule.max - (rule.max % step), Math.max(0, state.warTie + steps * step));
  renderWarTie();
}

export function renderWarTie() {
  el.warTieAmount.textContent = state.warTie ? money(state.warTie, state.currency) : "—";
  el.warTieAmount.dataset.minor = String(state.warTie);
}

export function chooseTarget(target) {
  state.target = target;
  el.spotAnte.setAttribute("aria-pressed", String(target === "ante"));
  el.spotTie.setAttribute("aria-pressed", String(target === "tie"));
}

function addChip(value) {
  const rules = state.table.rules;
  if (state.target === "ante") state.ante = Math.min(rules.max_ante, state.ante + value);
  else state.tie = Math.min(rules.max_tie_bet, state.tie + value);
  renderBets();
}

function clearSpot() {
  if (state.target === "ante") state.ante = 0;
  else state.tie = 0;
  renderBets();
}

export function renderBets() {
  if (!state.table) return;
  const rules = state.table.rules;
  const m = (v) => money(v, state.currency);
  const placed = state.round?.my_bet;
  el.anteAmount.textContent = m(state.ante);
  el.anteAmount.dataset.minor = String(state.ante);
  el.tieAmount.textContent = state.tie ? m(state.tie) : "—";
  el.tieAmount.dataset.minor = String(state.tie);
  const ante = state.ante + (placed && state.round.phase === "betting" ? placed.ante : 0);
  let hint;
  if (ante < rules.min_ante && state.tie === 0) hint = t("bet.hint.min_ante", { amount: m(rules.min_ante) });
  else if (state.ante + state.tie > state.balance) {
    hint = t("bet.hint.over_balance", { amount: m(state.ante + state.tie) });
  } else hint = t("bet.hint.war", { amount: m(ante) });
  el.betHint.textContent = hint;
  el.placeBet.textContent =
    placed && state.round?.phase === "betting" ? t("live.add_to_bet") : t("live.place_bet");
  updateButtons();
}

export function bettingOpen() {
  return state.round?.phase === "betting" && Date.parse(state.round.closes_at) > Date.now() + state.offset;
}

export function updateButtons() {
  const locked = state.dead || state.busy || Boolean(state.client?.hasPending());
  const open = bettingOpen();
  const bet = state.round?.my_bet;
  const deciding = state.round?.phase === "decisions" && Boolean(bet?.awaiting_decision);
  const rules = state.table?.rules;
  el.placeBet.disabled = locked || !open || !rules || state.ante + state.tie === 0;
  el.war.disabled = locked || !deciding;
  el.surrender.disabled = locked || !deciding || !rules?.surrender_allowed;
  // As on the table page, the steppers stop at the range's ends rather than turn off: a
  // button disabled under the keyboard's focus would drop it.
  el.warTieDown.disabled = el.warTieUp.disabled = locked || !deciding || !warTieRule();
  for (const button of el.betting.querySelectorAll("button")) {
    button.disabled = locked || !open || (button === el.spotTie && rules?.max_tie_bet === 0);
  }
}

export function setBusy(busy) {
  state.busy = busy;
  updateButtons();
}

export function setBalance(minor) {
  state.balance = minor;
  el.balance.textContent = money(minor, state.currency);
  el.balance.dataset.minor = String(minor);
}
