// The road: the table's last 50 finished rounds (GET .../round `road`, oldest first) as a
// bead plate, filled down columns of six like the boards over live tables, each bead named
// for screen readers ("Round 41: the dealer won, 4♣ against J♥").

import { h, replace, show } from "./dom.js";
import { cardText } from "./cards.js";
import { N_, t } from "./i18n.js";
import { el, state } from "./live-state.js";

const BEAD = {
  player: { letter: N_("live.road.letter.player"), said: N_("live.road.player") },
  dealer: { letter: N_("live.road.letter.dealer"), said: N_("live.road.dealer") },
  tie: { letter: N_("live.road.letter.tie"), said: N_("live.road.tie") },
  void: { letter: N_("live.road.letter.void"), said: N_("live.road.void") },
};

function beadLabel(entry) {
  const said = t(BEAD[entry.winner]?.said || BEAD.void.said);
  const cards =
    entry.player_card && entry.dealer_card
      ? t("live.road.cards", { player: cardText(entry.player_card), dealer: cardText(entry.dealer_card) })
      : "";
  return [t("live.road.round", { shoe: entry.shoe, round: entry.round }), said, cards]
    .filter(Boolean)
    .join(" ");
}

export function renderRoad() {
  const road = state.round?.road || [];
  const counts = { player: 0, dealer: 0, tie: 0 };
  for (const entry of road) if (entry.winner in counts) counts[entry.winner] += 1;
  replace(
    el.road,
    road.map((entry) =>
      h(
        "li",
        {
          class: `bead bead-${entry.winner}`,
          title: beadLabel(entry),
          dataset: { winner: entry.winner, round: `${entry.shoe}-${entry.round}` },
        },
        // The letter is for the eye; screen readers read the bead's sentence.
        h("span", { "aria-hidden": "true" }, t(BEAD[entry.winner]?.letter || BEAD.void.letter)),
        h("span", { class: "sr-only" }, beadLabel(entry)),
      ),
    ),
  );
  show(el.roadEmpty, road.length === 0);
  show(el.roadCounts, road.length > 0);
  el.roadCounts.textContent = t("live.road.counts", {
    player: counts.player,
    dealer: counts.dealer,
    tie: counts.tie,
  });
}
