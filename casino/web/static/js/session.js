// The tab's game session: from a launch URL's one-time code to a token kept for reloads.
//
// A launch URL is /play/?table=T&lang=xx#code=lc_…: the code rides in the fragment, which a
// browser never sends to a server nor puts in a Referer. The page takes the code out of the
// address bar and out of this history entry (history.replaceState) before anything else,
// exchanges it once (POST /api/v1/sessions/exchange, within two minutes of the launch) for
// the session's token, and keeps the token in sessionStorage. sessionStorage is per tab and
// ends with it: a reload keeps playing, while the address bar, the history, a bookmark or a
// copied link hold nothing reusable (the code is spent). Not localStorage: that would keep
// the token after the tab is closed and hand it to every tab of the origin.

import { Client } from "./api.js";

const TOKEN_KEY = "casino.session-token";
const EXCHANGE = "/api/v1/sessions/exchange";

// The session token of this tab: a launch code in the fragment is exchanged for a new one;
// otherwise the one kept for reloads (null: the page was not launched).
export async function sessionToken({ base = "", onWait } = {}) {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const code = fragment.get("code");
  if (!code) return sessionStorage.getItem(TOKEN_KEY);
  history.replaceState(history.state, "", location.pathname + location.search);
  // A new launch replaces the tab's previous session, even if the exchange fails.
  forgetSession();
  const session = await new Client({ base, onWait }).post(EXCHANGE, { code });
  sessionStorage.setItem(TOKEN_KEY, session.token);
  return session.token;
}

// A new launch in this tab may change the fragment only (same page and table): the browser
// then keeps the page as it is, so start it again with the new code.
addEventListener("hashchange", () => {
  if (new URLSearchParams(location.hash.slice(1)).has("code")) location.reload();
});

// The session ended (expired, revoked, logged out): a reload must not try its token again.
export function forgetSession() {
  sessionStorage.removeItem(TOKEN_KEY);
}
