// The round history (newest first, more on demand) and a round's recall.

import { cardElement, cardText } from "./cards.js";
import { h, replace, show } from "./dom.js";
import { dateTimeText, N_, t } from "./i18n.js";
import { money, signedMoney } from "./money.js";
import { act } from "./table-play.js";
import { handsOf, handStory, severalOf, warsOf } from "./table-hands.js";
import { payoutRows } from "./table-round.js";
import { el, HISTORY_PAGE, state } from "./table-state.js";

const DECIDED_BY = {
  player: N_("recall.by.player"),
  system: N_("recall.by.system"),
  timeout: N_("recall.by.timeout"),
};

export function rememberRound(round) {
  const index = state.history.findIndex((r) => r.id === round.id);
  if (index >= 0) state.history[index] = round;
  else state.history.unshift(round);
  renderHistory();
  if (state.selected === round.id) renderRecall(round);
}

export function renderHistory() {
  show(el.historyEmpty, state.history.length === 0);
  show(el.moreHistory, Boolean(state.nextCursor));
  replace(
    el.history,
    state.history.map((round) => {
      const open = round.status === "awaiting_decision";
      const several = severalOf(round);
      const yours = several ? handsOf(round).map((hand) => cardText(hand.card)).join(" ") : cardText(round.player_card);
      const cards = t("history.cards", { yours, theirs: cardText(round.dealer_card) });
      const war = round.war && !several
        ? ` · ${t("history.war", { yours: cardText(round.war.player_card), theirs: cardText(round.war.dealer_card) })}`
        : "";
      const net = open ? t("history.deciding") : signedMoney(round.net, round.currency);
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

export async function loadMoreHistory() {
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
    state.verified = null;
    updateVerifyTarget();
  }, () => recall(roundId));
}

function decisionText(round, hand) {
  if (hand.decision) {
    const who = t(DECIDED_BY[hand.decision.decided_by] || DECIDED_BY.system);
    return hand.decision.action === "war"
      ? t("recall.went_to_war", { who })
      : t("recall.surrendered", { who });
  }
  return hand.status === "awaiting_decision" ? t("recall.waiting") : t("recall.no_tie");
}

// Each hand of a round of several: its card, its decision and what happened to it.
function recallHands(round) {
  if (!severalOf(round)) return h("p", { class: "recall-decision" }, decisionText(round, handsOf(round)[0]));
  return h("ol", { class: "recall-hands" },
    handsOf(round).map((hand) =>
      h("li", { dataset: { hand: hand.hand } },
        h("strong", {}, t("bet.hand", { n: hand.hand + 1 })), " ",
        cardElement(hand.card, { size: "tiny" }), " ",
        hand.status === "settled" ? handStory(round, hand) : "", " ",
        h("span", { class: "recall-decision" }, decisionText(round, hand)))));
}

// The war cards: (you, dealer) for one hand, as always; each hand's and the dealer's for several.
function warRows(round, cardsRow) {
  const several = severalOf(round);
  return warsOf(round).flatMap((war, i) => {
    const n = warsOf(round).length > 1 ? ` ${i + 1}` : "";
    const cards = several ? [...war.cards.map((c) => c.card), war.dealer_card] : [war.cards[0]?.card, war.dealer_card];
    return [cardsRow(`${t("recall.burnt")}${n}`, war.burns), cardsRow(`${t("recall.war_cards")}${n}`, cards)];
  });
}

export function renderRecall(round) {
  const m = (v) => money(v, round.currency);
  const f = round.fairness;
  const cardsRow = (label, codes) =>
    h("div", { class: "recall-cards" }, h("span", { class: "who" }, label),
      h("div", { class: "card-row" }, codes.map((c) => cardElement(c, { size: "tiny" }))));
  const column = (key) => h("th", { scope: "col" }, t(key));
  replace(
    el.recall,
    h("p", { class: "recall-head" },
      h("strong", {}, t("recall.round", { nonce: f.nonce })), " · ",
      t("recall.where", { table: round.table_id, time: dateTimeText(round.created_at) })),
    h("div", { class: "recall-deal" },
      cardsRow(t("recall.you"), handsOf(round).map((hand) => hand.card)),
      cardsRow(t("recall.dealer"), [round.dealer_card]),
      warRows(round, cardsRow)),
    recallHands(round),
    h("table", { class: "payouts compact", "aria-label": t("recall.payouts") },
      h("thead", {}, h("tr", {}, column("payouts.bet"), column("payouts.stake"),
        column("payouts.result"), column("payouts.paid"))),
      h("tbody", {}, payoutRows(round)),
      h("tfoot", {}, h("tr", {}, h("th", { scope: "row", colspan: "3" }, t("payouts.net")),
        h("td", {}, signedMoney(round.net, round.currency))))),
    h("dl", { class: "facts" },
      h("dt", {}, t("recall.balance_after")), h("dd", {}, m(round.balance_after)),
      h("dt", {}, t("recall.ledger")), h("dd", { class: "ledger-ids" }, round.transaction_ids.map((id) => `#${id}`).join(", ")),
      h("dt", {}, t("fair.server_seed_hash")), h("dd", {}, h("code", {}, f.server_seed_hash)),
      h("dt", {}, t("fair.client_seed")), h("dd", {}, h("code", {}, f.client_seed)),
      h("dt", {}, t("fair.nonce")), h("dd", {}, String(f.nonce)),
      h("dt", {}, t("fair.server_seed")),
      h("dd", {}, f.server_seed ? h("code", { class: "revealed-seed" }, f.server_seed) : t("recall.not_revealed")),
      h("dt", {}, t("recall.round_id")), h("dd", {}, h("code", {}, round.id))),
  );
}

export function updateVerifyTarget() {
  const target = verifyTarget();
  if (!target) el.verifyTarget.textContent = t("verify.target.none");
  else if (state.selected) el.verifyTarget.textContent = t("verify.target.selected", { nonce: target.fairness.nonce });
  else el.verifyTarget.textContent = t("verify.target.latest", { nonce: target.fairness.nonce });
}

export function verifyTarget() {
  if (state.selected) return state.history.find((r) => r.id === state.selected) || null;
  return state.history[0] || null;
}
