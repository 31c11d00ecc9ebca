// The live (shared) table page's state and elements, shared by its modules (live.js starts
// them). `round` is the last GET /tables/{id}/round answer; the page draws from it.

export const state = {
  client: null,
  playerId: null,
  session: null,
  tableId: null,
  table: null,
  currency: "EUR",
  balance: 0,
  // The stake being built with the chips (added to the round's bet when placed).
  ante: 0,
  tie: 0,
  target: "ante",
  // The war tie bet to go to war with, where the table offers one (set while deciding).
  warTie: 0,
  round: null,
  // Server time minus this browser's (ms): the countdowns run on the server's clock.
  offset: 0,
  // "events" (the event stream) or "polling" (GET .../round, the stream failing).
  follow: null,
  busy: false,
  dead: false,
  shownError: null,
};

export const el = {};

export function bindElements(ids) {
  for (const id of ids) {
    el[id.replace(/-([a-z])/g, (_, c) => c.toUpperCase())] = document.getElementById(id);
  }
}

// The server's "now", in ms since the epoch.
export function serverNow() {
  return Date.now() + state.offset;
}
