// RFC 9457 problem documents (and network failures) in words a player understands.
//
// Every code of the spec's Problem.code enum that the table or the free-play page can meet
// has a sentence here (tests/browser/test_problem_words.py holds the list against the spec);
// a few build theirs from the problem's members (limits, breaks, their ends).

import { money } from "./money.js";

const SENTENCES = {
  // bets and rounds
  insufficient_funds: "Not enough money in your wallet for this bet.",
  invalid_bet: "This bet cannot be placed as it is.",
  bet_not_integer: "Bets are whole amounts of the currency's smallest unit.",
  ante_out_of_range: "The ante is outside the table's limits.",
  ante_not_multiple_of_increment: "The ante must be a multiple of the table's bet step.",
  tie_bet_out_of_range: "The tie bet is outside the table's limits.",
  tie_bet_not_multiple_of_increment: "The tie bet must be a multiple of the table's bet step.",
  tie_bet_not_offered: "This table takes no tie bet.",
  round_in_progress: "A round is still waiting for your decision: finish it first.",
  round_not_awaiting_decision: "This round no longer waits for a decision.",
  round_not_settled: "This round is not finished yet.",
  round_not_found: "That round cannot be found.",
  surrender_not_allowed: "This table does not allow surrender.",
  illegal_action: "That action is not allowed in this round now.",
  unknown_decision: "The choice on a tie is surrender or go to war.",
  engine_error: "The game could not deal this round.",
  corrupt_game_record: "This game's record is damaged and cannot be shown.",
  invalid_duration: "That length of time is not valid.",
  invalid_status: "That round status is not one the history knows.",
  invalid_cursor: "The list could not continue from there: reload it.",
  table_not_found: "This table does not exist.",
  table_inactive: "This table is closed.",
  invalid_table_id: "That is not a table's name.",
  // fairness
  invalid_seed: "A client seed is 1 to 64 printable characters.",
  seed_rotation_in_progress: "Your seeds are being rotated; try again in a moment.",
  client_seed_fixed:
    "The client seed of your current seed pair is fixed already (it was chosen, or the pair " +
    "has dealt). Set one for the next rounds with “Use this seed”, or rotate the seed.",
  // sessions and authentication
  session_expired:
    "Your game session has expired. Go back to the casino and open the game again.",
  session_not_found: "This page needs a game session launched by the casino.",
  unauthenticated:
    "This game session is no longer valid (it was ended or is unknown). " +
    "Open the game again from the casino.",
  invalid_token: "This game session is not valid. Open the game again from the casino.",
  forbidden: "This game session may not do that.",
  session_table_mismatch:
    "This game was opened for another table. Go back to the casino to play at this one.",
  player_not_found: "Your player account cannot be found.",
  // player protection and accounts
  account_suspended:
    "Your account is suspended: no new rounds or deposits for now. A round waiting for your " +
    "decision can still be finished. Please contact the casino.",
  account_closed:
    "Your account is closed: no new rounds or deposits. A round waiting for your decision can " +
    "still be finished, and your history stays readable.",
  exclusion_in_force: "A break from play is already in force and cannot be shortened.",
  invalid_exclusion: "That break from play is not one the casino offers.",
  invalid_limit: "That limit is not valid.",
  invalid_period: "That period is not valid.",
  unsupported_currency: "The casino does not offer this currency.",
  invalid_currency: "That is not a currency code.",
  invalid_amount: "That amount is not valid.",
  invalid_reference: "That payment reference is not valid.",
  limit_exceeded: "This would go over one of the play limits you set.",
  duplicate_reference:
    "That payment reference was used already for another payment: nothing was done twice.",
  // retries and keys
  rate_limited: "Too many requests right now.",
  service_unavailable: "The game service is briefly unavailable.",
  request_in_progress: "Your previous request is still being processed.",
  idempotency_key_reused: "That request was already sent with different details.",
  invalid_idempotency_key: "The page sent a request key the service does not accept.",
  idempotency_key_required: "The page sent a payment without its request key.",
  idempotency_key_invalid: "The page sent a request key the service does not accept.",
  // free play
  illegal_move: "That move is not allowed now.",
  game_finished: "This game is over.",
  concurrent_update: "The game changed meanwhile; showing its latest state.",
  game_not_found: "That game cannot be found (free games are kept for a while only).",
  game_unreplayable: "This game cannot be replayed with this version of the rules.",
  invalid_rules: "These options cannot be played together.",
  seat_required: "Say which seat makes this move.",
  invalid_seat: "There is no such seat at this game.",
  invalid_until: "Autoplay cannot stop there.",
  invalid_games: "That number of games cannot be simulated.",
  invalid_age: "That age is not valid.",
  simulation_not_found: "That simulation cannot be found (they are kept for a while only).",
  simulations_busy: "Too many simulations are running; try again in a moment.",
  // the HTTP layer
  malformed_json: "The page sent a request the service could not read.",
  bad_request: "The page sent a request the service could not read.",
  invalid_request: "That request is not valid.",
  not_found: "That cannot be found.",
  method_not_allowed: "The service does not do that here.",
  not_acceptable: "The service cannot answer in a form this page reads.",
  conflict: "That is not possible right now.",
  length_required: "The page sent a request the service could not read.",
  payload_too_large: "That request is too large.",
  unsupported_media_type: "The page sent a request the service could not read.",
  request_timeout: "The request took too long to arrive; try again.",
  internal_error: "Something went wrong on the server.",
  service_error: "Something went wrong on the server.",
  bad_gateway: "The game service cannot be reached right now.",
  gateway_timeout: "The game service took too long to answer.",
};

// Codes whose detail tells the player more than the sentence (which clash, which moves);
// other details speak in minor units and field names, which the sentence already covers.
const KEEP_DETAIL = new Set(["invalid_rules", "illegal_move", "internal_error"]);

// Sentences built from the problem's members; null when a member they need is missing.
const BUILDERS = {
  limit_exceeded: limitSentence,
  self_excluded: (p) =>
    sentenceWith(
      "You are self-excluded: no new rounds or deposits",
      p.ends_at,
      (when) => `until ${when}`,
      "A round waiting for your decision can still be finished.",
    ),
  cooling_off: (p) =>
    sentenceWith(
      "You are taking a break from play (cooling off): no new rounds or deposits",
      p.ends_at,
      (when) => `until ${when}`,
      "A round waiting for your decision can still be finished.",
    ),
  session_time_limit: (p) =>
    sentenceWith(
      "You have reached the session time limit you set",
      p.resets_at,
      (when) => `you can play again ${when}`,
      "A round waiting for your decision can still be finished.",
    ),
};

const LIMIT_NAMES = { deposit: "deposit", loss: "loss", wager: "wager" };
const PERIOD_WORDS = { day: "daily", week: "weekly", month: "monthly" };
const PERIOD_NOW = { day: "today", week: "this week", month: "this month" };

export function describeProblem(problem, { currency } = {}) {
  if (!problem) return "Something went wrong.";
  const built = BUILDERS[problem.code]?.(problem, currency) || null;
  const sentence = built || SENTENCES[problem.code];
  const detail = typeof problem.detail === "string" ? problem.detail.trim() : "";
  const parts = [];
  if (sentence) parts.push(sentence);
  if (problem.code === "validation_failed" && problem.errors) {
    const fields = Object.entries(problem.errors).map(
      ([field, messages]) => `${field}: ${[].concat(messages).flat().join(" ")}`,
    );
    parts.push(`Some values are not valid (${fields.join("; ")}).`);
  } else if (detail && (!sentence || KEEP_DETAIL.has(problem.code))) {
    parts.push(capitalise(detail.endsWith(".") ? detail : `${detail}.`));
  }
  if (!parts.length) parts.push(problem.title || "Something went wrong.");
  return parts.join(" ");
}

export function describeError(error, context = {}) {
  if (error && error.problem) return describeProblem(error.problem, context);
  if (error && error.name === "NetworkError") {
    return "The connection to the game service was lost. Check your network and try again.";
  }
  return (error && error.message) || "Something went wrong.";
}

// "This bet could take your daily loss over its limit of €100.00: you have lost €80.00 of
// it, €20.00 is left. It starts again tomorrow at 01:00."
function limitSentence(problem, fallbackCurrency) {
  const { limit, period, limit_amount: amount, used, remaining, resets_at: resets } = problem;
  const currency = problem.currency || fallbackCurrency;
  if (!LIMIT_NAMES[limit] || !PERIOD_WORDS[period] || !Number.isInteger(amount) || !currency) {
    return null;
  }
  const m = (v) => money(v, currency);
  const periodWord = PERIOD_WORDS[period];
  const now = PERIOD_NOW[period];
  const left = Number.isInteger(remaining) ? m(remaining) : null;
  const usedNow = Number.isInteger(used) ? used : null;
  let head;
  let spent = "";
  if (limit === "deposit") {
    head = `This deposit would go over your ${periodWord} deposit limit of ${m(amount)}`;
    if (usedNow !== null) spent = `you have deposited ${m(usedNow)} ${now}`;
  } else if (limit === "wager") {
    head = `This bet would go over your ${periodWord} wager limit of ${m(amount)}`;
    if (usedNow !== null) spent = `you have staked ${m(usedNow)} ${now}`;
  } else {
    // A loss limit counts what the bet could lose (a tie's raise included).
    head = `This bet could take your losses over your ${periodWord} loss limit of ${m(amount)}`;
    if (usedNow !== null) {
      spent = usedNow > 0 ? `you have lost ${m(usedNow)} ${now}`
        : usedNow < 0 ? `you are ${m(-usedNow)} ahead ${now}`
          : `you have lost nothing ${now}`;
    }
  }
  const facts = [spent, left !== null ? `${left} is left` : ""].filter(Boolean).join(", ");
  const when = whenText(resets);
  const reset = when ? ` The limit starts again ${when}.` : "";
  return `${head}${facts ? `: ${facts}` : ""}.${reset}`;
}

function sentenceWith(head, iso, phrase, tail) {
  const when = whenText(iso);
  return `${head}${when ? `, ${phrase(when)}` : ""}. ${tail}`;
}

// A moment in words, in the player's time zone: "today at 14:30", "tomorrow at 01:00",
// "on Monday 8 December at 01:00", "on 3 March 2027 at 12:00".
export function whenText(iso, now = new Date()) {
  if (typeof iso !== "string" || !iso) return "";
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return "";
  const time = when.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
  const day = (d) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const days = Math.round((day(when) - day(now)) / 86_400_000);
  if (days === 0) return `today at ${time}`;
  if (days === 1) return `tomorrow at ${time}`;
  const options = { day: "numeric", month: "long" };
  if (days > 1 && days < 7) options.weekday = "long";
  if (when.getFullYear() !== now.getFullYear()) options.year = "numeric";
  return `on ${when.toLocaleDateString([], options)} at ${time}`;
}

export function hasSentence(code) {
  return code in SENTENCES || code in BUILDERS || code === "validation_failed";
}

function capitalise(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
