// The table page's state and elements, shared by its modules (table.js starts them).

export const HISTORY_PAGE = 15;

export const state = {
  client: null,
  playerId: null,
  table: null,
  currency: "EUR",
  balance: 0,
  // The bets of each hand the next deal plays: [{ante, tie}] (one entry at a table of one hand).
  hands: [],
  // Where chips go: a hand and its spot ("ante" or "tie").
  target: { hand: 0, bet: "ante" },
  // War tie bets chosen for the hands awaiting a decision (hand -> minor units).
  warTie: {},
  // The server's clock minus this device's (ms), estimated from round answers; null: unknown.
  serverOffset: null,
  round: null,
  // Round answers shown so far: a quiet re-read of the open round started before the last
  // one is stale.
  roundAnswers: 0,
  busy: false,
  dead: false,
  retry: null,
  focusNext: null,
  history: [],
  nextCursor: null,
  selected: null,
  seeds: null,
  // A reality check due now (a round answer's reality_check), until acknowledged.
  realityCheck: null,
  // What the fairness panel last showed (a rotation's revealed seed, a verification), kept
  // to draw it again in another language.
  revealed: null,
  verified: null,
  // The error banner's message, kept to say it again in another language.
  shownError: null,
};

// The page's elements by camel-cased id ("reality-ack" is el.realityAck).
export const el = {};

export function bindElements(ids) {
  for (const id of ids) {
    el[id.replace(/-([a-z])/g, (_, c) => c.toUpperCase())] = document.getElementById(id);
  }
}
