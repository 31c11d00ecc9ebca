// RFC 9457 problem documents (and network failures) in words a player understands.

const SENTENCES = {
  insufficient_funds: "Not enough money in your wallet for this bet.",
  round_in_progress: "A round is still waiting for your decision: finish it first.",
  round_not_awaiting_decision: "This round no longer waits for a decision.",
  session_expired:
    "Your game session has expired. Go back to the casino and open the game again.",
  unauthenticated:
    "This game session is no longer valid (it was ended or is unknown). " +
    "Open the game again from the casino.",
  invalid_token: "This game session is not valid. Open the game again from the casino.",
  forbidden: "This game session may not do that.",
  rate_limited: "Too many requests right now.",
  service_unavailable: "The game service is briefly unavailable.",
  request_in_progress: "Your previous request is still being processed.",
  idempotency_key_reused: "That request was already sent with different details.",
  table_not_found: "This table does not exist.",
  table_inactive: "This table is closed.",
  ante_out_of_range: "The ante is outside the table's limits.",
  ante_not_multiple_of_increment: "The ante must be a multiple of the table's bet step.",
  tie_bet_out_of_range: "The tie bet is outside the table's limits.",
  tie_bet_not_multiple_of_increment: "The tie bet must be a multiple of the table's bet step.",
  surrender_not_allowed: "This table does not allow surrender.",
  seed_rotation_in_progress: "Your seeds are being rotated; try again in a moment.",
  round_not_found: "That round cannot be found.",
  player_not_found: "Your player account cannot be found.",
  session_not_found: "This page needs a game session launched by the casino.",
  illegal_move: "That move is not allowed now.",
  game_finished: "This game is over.",
  concurrent_update: "The game changed meanwhile; showing its latest state.",
  game_not_found: "That game cannot be found.",
  invalid_rules: "These options cannot be played together.",
  internal_error: "Something went wrong on the server.",
};

// Codes whose detail tells the player more than the sentence (which clash, which moves);
// other details speak in minor units and field names, which the sentence already covers.
const KEEP_DETAIL = new Set(["invalid_rules", "illegal_move", "internal_error"]);

export function describeProblem(problem) {
  if (!problem) return "Something went wrong.";
  const sentence = SENTENCES[problem.code];
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

export function describeError(error) {
  if (error && error.problem) return describeProblem(error.problem);
  if (error && error.name === "NetworkError") {
    return "The connection to the game service was lost. Check your network and try again.";
  }
  return (error && error.message) || "Something went wrong.";
}

function capitalise(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
