// RFC 9457 problem documents (and network failures) in words a player understands, in the
// player's language.
//
// Every code of the spec's Problem.code enum has a sentence in the catalogues, under
// "problem.<code>" (tests/unit/i18n holds the list against the spec); a few build theirs
// from the problem's members (limits, breaks, their ends).

import { dateText, has, N_, t, timeText } from "./i18n.js";
import { money } from "./money.js";

// Codes whose detail tells the player more than the sentence (which clash, which moves);
// other details speak in minor units and field names, which the sentence already covers.
const KEEP_DETAIL = new Set(["invalid_rules", "illegal_move", "internal_error"]);

// Sentences built from the problem's members; null when a member they need is missing.
const BUILDERS = {
  limit_exceeded: limitSentence,
  self_excluded: (p) => untilSentence(N_("problem.self_excluded.until"), p.ends_at),
  cooling_off: (p) => untilSentence(N_("problem.cooling_off.until"), p.ends_at),
  session_time_limit: (p) => untilSentence(N_("problem.session_time_limit.until"), p.resets_at),
};

// "This bet would go over your daily wager limit of {amount}", per limit and period: whole
// sentences, so each language words (and agrees) them its own way.
const LIMIT_HEADS = {
  deposit: {
    day: N_("limit.head.deposit.day"),
    week: N_("limit.head.deposit.week"),
    month: N_("limit.head.deposit.month"),
  },
  wager: {
    day: N_("limit.head.wager.day"),
    week: N_("limit.head.wager.week"),
    month: N_("limit.head.wager.month"),
  },
  loss: {
    day: N_("limit.head.loss.day"),
    week: N_("limit.head.loss.week"),
    month: N_("limit.head.loss.month"),
  },
};
const PERIOD_NOW = { day: N_("limit.now.day"), week: N_("limit.now.week"), month: N_("limit.now.month") };

export function describeProblem(problem, { currency } = {}) {
  if (!problem) return t("problem.generic");
  const code = problem.code;
  const built = BUILDERS[code]?.(problem, currency) || null;
  const sentence = built || (code && has(`problem.${code}`) ? t(`problem.${code}`) : null);
  const detail = typeof problem.detail === "string" ? problem.detail.trim() : "";
  const parts = [];
  if (code === "validation_failed" && problem.errors) {
    const fields = Object.entries(problem.errors).map(
      ([field, messages]) => `${field}: ${[].concat(messages).flat().join(" ")}`,
    );
    return t("problem.fields", { fields: fields.join("; ") });
  }
  if (sentence) parts.push(sentence);
  if (detail && detail !== sentence && (!sentence || KEEP_DETAIL.has(code))) {
    parts.push(capitalise(detail.endsWith(".") ? detail : `${detail}.`));
  }
  if (!parts.length) parts.push(problem.title || t("problem.generic"));
  return parts.join(" ");
}

export function describeError(error, context = {}) {
  if (error && error.problem) return describeProblem(error.problem, context);
  if (error && error.name === "NetworkError") return t("problem.network");
  // Errors the pages raise with a sentence of the catalogues (said: true); any other error's
  // message is a programmer's English, not for the player.
  return error?.said && error.message ? error.message : t("problem.generic");
}

// An error whose message is for the player (already in the page's language).
export function saidError(message) {
  return Object.assign(new Error(message), { said: true });
}

// "This bet could take your losses over your daily loss limit of €100.00: you have lost
// €80.00 today, €20.00 is left. The limit starts again tomorrow at 01:00."
function limitSentence(problem, fallbackCurrency) {
  const { limit, period, limit_amount: amount, used, remaining, resets_at: resets } = problem;
  const currency = problem.currency || fallbackCurrency;
  const headKey = LIMIT_HEADS[limit]?.[period];
  if (!headKey || !Number.isInteger(amount) || !currency) return null;
  const m = (v) => money(v, currency);
  const now = t(PERIOD_NOW[period]);
  let spent = null;
  if (Number.isInteger(used)) {
    if (limit === "deposit") spent = t("limit.spent.deposit", { amount: m(used), now });
    else if (limit === "wager") spent = t("limit.spent.wager", { amount: m(used), now });
    // A loss limit counts what the bet could lose (a tie's raise included).
    else if (used > 0) spent = t("limit.spent.loss", { amount: m(used), now });
    else if (used < 0) spent = t("limit.spent.ahead", { amount: m(-used), now });
    else spent = t("limit.spent.nothing", { now });
  }
  const left = Number.isInteger(remaining) ? t("limit.left", { amount: m(remaining) }) : null;
  const head = t(headKey, { amount: m(amount) });
  let sentence;
  if (spent && left) sentence = t("limit.sentence", { head, spent, left });
  else if (spent || left) sentence = t("limit.sentence_one", { head, fact: spent || left });
  else sentence = t("limit.sentence_bare", { head });
  const when = whenText(resets);
  return when ? `${sentence} ${t("limit.reset", { when })}` : sentence;
}

function untilSentence(key, iso) {
  const when = whenText(iso);
  return when ? t(key, { when }) : null;
}

// A moment in words, in the player's time zone: "today at 14:30", "tomorrow at 01:00",
// "on Monday 8 December at 01:00", "on 3 March 2027 at 12:00".
export function whenText(iso, now = new Date()) {
  if (typeof iso !== "string" || !iso) return "";
  const when = new Date(iso);
  if (Number.isNaN(when.getTime())) return "";
  const time = timeText(iso, { seconds: false });
  const day = (d) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const days = Math.round((day(when) - day(now)) / 86_400_000);
  if (days === 0) return t("when.today", { time });
  if (days === 1) return t("when.tomorrow", { time });
  const options = { day: "numeric", month: "long" };
  if (days > 1 && days < 7) options.weekday = "long";
  if (when.getFullYear() !== now.getFullYear()) options.year = "numeric";
  return t("when.on", { date: dateText(when, options), time });
}

export function hasSentence(code) {
  return has(`problem.${code}`) || code in BUILDERS || code === "validation_failed";
}

function capitalise(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
