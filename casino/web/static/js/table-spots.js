// The betting spots: a box per hand (its ante and tie bet spots), how many hands the next
// deal plays, and which spot the chips go to. Hand 0's spots keep the ids of the one-hand
// table (spot-ante, tie-amount...); hand k's end in -k.

import { h, replace, show } from "./dom.js";
import { t } from "./i18n.js";
import { money } from "./money.js";
import { el, state } from "./table-state.js";

// Per hand: its box and spots, kept to update the amounts without drawing them again.
let boxes = [];

const suffix = (hand) => (hand === 0 ? "" : `-${hand}`);

export function severalHands() {
  return (state.table?.rules.max_hands ?? 1) > 1;
}

function spot(hand, bet, name) {
  const amount = h("span", { class: "spot-amount", id: `${bet}-amount${suffix(hand)}` });
  const button = h(
    "button",
    {
      type: "button",
      class: bet === "tie" ? "spot tie" : "spot",
      id: `spot-${bet}${suffix(hand)}`,
      "aria-pressed": "false",
      onclick: () => chooseTarget(hand, bet),
    },
    h("span", { class: "spot-name" }, name),
    amount,
  );
  return { button, amount };
}

// The boxes again (the number of hands or the language changed).
export function renderSpots() {
  const several = severalHands();
  boxes = state.hands.map((_, hand) => {
    const ante = spot(hand, "ante", t("bet.ante"));
    const tie = spot(hand, "tie", t("bet.tie_bet"));
    const name = t("bet.hand", { n: hand + 1 });
    const box = h(
      "div",
      { class: "box", role: several ? "group" : null, "aria-label": several ? name : null, dataset: { hand } },
      several ? h("p", { class: "box-name", "aria-hidden": "true" }, name) : null,
      h("div", { class: "box-spots" }, ante.button, tie.button),
    );
    return { box, ante, tie };
  });
  replace(el.spots, boxes.map((b) => b.box));
  el.spots.classList.toggle("several", several);
  show(el.handCount, several);
  el.handsShown.textContent = String(state.hands.length);
  if (state.target.hand >= state.hands.length) state.target = { hand: state.hands.length - 1, bet: state.target.bet };
  chooseTarget(state.target.hand, state.target.bet);
}

export function chooseTarget(hand, bet) {
  state.target = { hand, bet };
  boxes.forEach((b, i) => {
    b.ante.button.setAttribute("aria-pressed", String(i === hand && bet === "ante"));
    b.tie.button.setAttribute("aria-pressed", String(i === hand && bet === "tie"));
    b.box.classList.toggle("chosen", i === hand);
  });
}

export function showAmounts() {
  const m = (v) => money(v, state.currency);
  boxes.forEach((b, i) => {
    const { ante, tie } = state.hands[i];
    b.ante.amount.textContent = m(ante);
    b.ante.amount.dataset.minor = String(ante);
    b.tie.amount.textContent = tie ? m(tie) : "—";
    b.tie.amount.dataset.minor = String(tie);
  });
}

// The spot buttons, for locking them while a round is open.
export function spotButtons() {
  return boxes.flatMap((b) => [
    [b.ante.button, false],
    [b.tie.button, true],
  ]);
}
