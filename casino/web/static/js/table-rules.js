// A table's rules in one line of the player's language: limits, the tie bet (or its ladder),
// the war's rules, the hands a round may play, tie-only bets and the decision clock.

import { t, tn } from "./i18n.js";
import { money } from "./money.js";

export function rulesText(rules, currency) {
  const m = (v) => money(v, currency);
  const parts = [
    t("table.rules.ante", { min: m(rules.min_ante), max: m(rules.max_ante), step: m(rules.bet_increment) }),
    rules.max_tie_bet > 0
      ? t("table.rules.tie_bet", { max: m(rules.max_tie_bet), pays: rules.tie_pays })
      : t("table.rules.no_tie_bet"),
    tn("table.rules.decks", rules.decks),
  ];
  if ((rules.max_hands ?? 1) > 1) parts.push(tn("table.rules.max_hands", rules.max_hands));
  if (rules.war_ties === "repeat") parts.push(tn("table.rules.war_ties_repeat", rules.max_war_ties));
  else if (rules.war_tie_bonus) parts.push(t("table.rules.war_tie_bonus"));
  if (rules.tie_ladder && rules.max_tie_bet > 0) {
    parts.push(t("table.rules.tie_ladder", { pays: rules.tie_ladder.join(" / ") }));
  }
  if (rules.war_tie_bet?.enabled) {
    parts.push(t("table.rules.war_tie_bet", { max: m(rules.war_tie_bet.max), pays: rules.war_tie_bet.pays }));
  }
  if (rules.tie_only && rules.max_tie_bet > 0) parts.push(t("table.rules.tie_only"));
  if (rules.decision_seconds) parts.push(tn("table.rules.clock", rules.decision_seconds));
  if (!rules.surrender_allowed) parts.push(t("table.rules.no_surrender"));
  return parts.join(" · ");
}

// Whether a hand's bets make a hand the table deals: an ante in its limits, or (tie_only
// tables) a tie bet alone.
export function handPlayable(rules, hand) {
  if (hand.ante === 0) return Boolean(rules.tie_only) && hand.tie > 0;
  return hand.ante >= rules.min_ante;
}

export function tieOnlyAllowed(rules) {
  return Boolean(rules.tie_only) && rules.max_tie_bet > 0;
}
