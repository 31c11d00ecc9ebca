// The table's rules, the betting spots and chips, the balance, and which controls may be
// used now.

import { h, replace } from "./dom.js";
import { available as cryptoAvailable } from "./fairness.js";
import { t, tn } from "./i18n.js";
import { money } from "./money.js";
import { el, state } from "./table-state.js";

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
        h("span", { "aria-hidden": "true" }, compactMoney(value)),
      ),
    ),
    h("button", { type: "button", class: "chip-clear", onclick: clearSpot }, t("bet.clear")),
  );
  el.spotTie.disabled = rules.max_tie_bet === 0;
  renderBets();
}

// A chip's face: the amount without a zero fraction ("€5", "5 €").
function compactMoney(minor) {
  const text = money(minor, state.currency);
  return text.replace(/[.,]00(?=\D*$)/, "");
}

export function chooseTarget(target) {
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

export function renderBets() {
  const rules = state.table.rules;
  const m = (v) => money(v, state.currency);
  el.anteAmount.textContent = m(state.ante);
  el.anteAmount.dataset.minor = String(state.ante);
  el.tieAmount.textContent = state.tie ? m(state.tie) : "—";
  el.tieAmount.dataset.minor = String(state.tie);
  let hint;
  if (state.ante < rules.min_ante) hint = t("bet.hint.min_ante", { amount: m(rules.min_ante) });
  else if (state.ante + state.tie > state.balance) {
    hint = t("bet.hint.over_balance", { amount: m(state.ante + state.tie) });
  } else {
    hint = t("bet.hint.war", { amount: m(state.ante) });
  }
  el.betHint.textContent = hint;
  updateButtons();
}

export function updateButtons() {
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
