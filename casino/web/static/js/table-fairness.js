// The fairness panel: the commitment and nonce, the client seed, rotation (which reveals the
// retired seed) and verification of a round in the browser (js/fairness.js).

import { cardElement, cardText } from "./cards.js";
import { h, replace, show } from "./dom.js";
import { verifyRound } from "./fairness.js";
import { t } from "./i18n.js";
import { renderHistory, renderRecall, rememberRound, updateVerifyTarget, verifyTarget } from "./table-history.js";
import { announce, showError } from "./table-messages.js";
import { act, pairHasDealt } from "./table-play.js";
import { el, HISTORY_PAGE, state } from "./table-state.js";

export function renderSeeds(seeds) {
  state.seeds = seeds;
  el.seedHash.textContent = seeds.server_seed_hash;
  el.nextNonce.textContent = String(seeds.next_nonce);
  el.clientSeed.value = seeds.client_seed;
  const dealt = pairHasDealt(seeds);
  el.seedNote.textContent = seeds.client_seed_chosen
    ? ""
    : dealt
      ? t("fair.note.dealt")
      : t("fair.note.fresh");
  show(el.seedNote, !seeds.client_seed_chosen);
  updateVerifyTarget();
}

export async function saveClientSeed() {
  const value = el.clientSeed.value;
  if (!/^[ -~]{1,64}$/.test(value)) {
    showError(() => t("fair.seed_invalid"));
    return;
  }
  await act(async () => {
    const seeds = await state.client.put(`/api/v1/players/${state.playerId}/seeds/client`, {
      client_seed: value,
    });
    renderSeeds(seeds);
    announce(t("fair.seed_set", { nonce: seeds.next_nonce }));
  }, saveClientSeed);
}

export async function rotateSeed() {
  await act(async () => {
    // Keyed: a retry after a lost answer replays the rotation, never rotates twice.
    const rotation = await state.client.money(`/api/v1/players/${state.playerId}/seeds/rotate`);
    renderSeeds(rotation.current);
    state.revealed = rotation.revealed;
    renderRevealed();
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
    announce(t("fair.rotated"));
  }, rotateSeed, { money: true });
}

export function renderRevealed() {
  const r = state.revealed;
  if (!r) return;
  const span =
    r.last_nonce === null
      ? t("fair.revealed.no_rounds")
      : t("fair.revealed.nonces", { first: r.first_nonce, last: r.last_nonce });
  replace(
    el.revealed,
    h("p", {}, h("strong", {}, t("fair.revealed.title", { span }))),
    h("code", { class: "revealed-seed" }, r.server_seed),
    h("p", { class: "hint" }, t("fair.revealed.hint")),
  );
  show(el.revealed, true);
}

export async function verifySelected() {
  const target = verifyTarget();
  if (!target) {
    showError(() => t("verify.nothing"));
    return;
  }
  await act(async () => {
    const round = await state.client.get(`/api/v1/rounds/${target.id}`);
    rememberRound(round);
    let result = null;
    if (round.fairness.server_seed) {
      try {
        result = await verifyRound(round);
      } catch {
        // Seeds that are not what docs/fairness.md describes (not hex, not 32 bytes).
        showVerifyResult(false, h("p", {}, t("verify.unreadable", { nonce: round.fairness.nonce })));
        return;
      }
    }
    state.verified = { round, result };
    renderVerified();
    if (!result) return;
    const nonce = round.fairness.nonce;
    announce(result.ok ? t("verify.ok.announce", { nonce }) : t("verify.bad.announce", { nonce }));
  }, verifySelected);
}

export function renderVerified() {
  if (!state.verified) return;
  const { round, result } = state.verified;
  const nonce = round.fairness.nonce;
  if (!result) {
    showVerifyResult(false, h("p", {}, t("verify.secret", { nonce })));
    return;
  }
  const dealt = h("div", { class: "card-row" }, result.cards.slice(0, result.shown.length).map((c) => cardElement(c, { size: "tiny" })));
  if (result.ok) {
    showVerifyResult(true,
      h("p", {}, h("strong", {}, t("verify.ok.title", { nonce })), " ",
        t("verify.ok.detail", { seed: round.fairness.client_seed, nonce, cards: result.shown.map(cardText).join(" ") })),
      dealt);
    return;
  }
  const problems = [];
  if (!result.commitmentOk) problems.push(t("verify.bad.commitment"));
  for (const x of result.mismatches) {
    problems.push(t("verify.bad.card", { position: x.position, shown: cardText(x.shown), dealt: cardText(x.dealt) }));
  }
  showVerifyResult(false,
    h("p", {}, h("strong", {}, t("verify.bad.title", { nonce })), " ", t("verify.bad.list", { problems: problems.join("; ") })),
    dealt);
}

function showVerifyResult(ok, ...content) {
  el.verifyResult.className = `verify-result ${ok ? "ok" : "bad"}`;
  replace(el.verifyResult, ...content);
  show(el.verifyResult, true);
}
