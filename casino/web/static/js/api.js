// The public API over fetch: bearer token, JSON, problem+json errors, polite retries.
//
// Money requests carry an Idempotency-Key: a fresh one per new request, the same one for
// every retry of it. A request whose fate is unknown (the connection broke) stays pending:
// sending the same request again reuses its key, so it can never be charged twice.
// 429 and 503 mean "not done, come back later": the client waits for Retry-After and retries.
// Every request says the player's language (Accept-Language), so what the server words (a
// problem's detail, a reality check's message) is in it.

import { sleep } from "./dom.js";
import { language, N_, t } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.name = "ApiError";
    this.status = status;
    this.problem = problem;
  }

  get code() {
    return this.problem?.code;
  }
}

export class NetworkError extends Error {
  constructor(cause) {
    super("network error");
    this.name = "NetworkError";
    this.cause = cause;
  }
}

export function newKey() {
  if (globalThis.crypto?.randomUUID) return crypto.randomUUID();
  // Pages served over plain http to another host have no randomUUID (not a secure
  // context); getRandomValues is there everywhere.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const RETRYABLE_STATUS = new Set([429, 503]);
const MAX_ATTEMPTS = 5;
const MAX_WAIT_SECONDS = 30;

export function retryAfterSeconds(response) {
  const value = response.headers.get("Retry-After");
  if (!value) return 1;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.min(MAX_WAIT_SECONDS, Math.max(0, seconds));
  const date = Date.parse(value);
  if (!Number.isNaN(date)) {
    return Math.min(MAX_WAIT_SECONDS, Math.max(0, Math.ceil((date - Date.now()) / 1000)));
  }
  return 1;
}

export class Client {
  // onWait(why, seconds) tells the page why it waits: {key, values} of a message with a
  // {seconds} placeholder the page counts down; called with null when it stops.
  constructor({ base = "", token = null, onWait = () => {} } = {}) {
    this.base = base.replace(/\/$/, "");
    this.token = token;
    this.onWait = onWait;
    this.pending = new Map(); // request fingerprint -> Idempotency-Key of an unfinished one
  }

  get(path) {
    return this.request("GET", path);
  }

  post(path, body) {
    return this.request("POST", path, { body });
  }

  put(path, body) {
    return this.request("PUT", path, { body });
  }

  // A money-moving POST: keyed, retried with its key, resumable after a lost connection.
  async money(path, body) {
    const fingerprint = `POST ${path} ${JSON.stringify(body)}`;
    const key = this.pending.get(fingerprint) || newKey();
    this.pending.set(fingerprint, key);
    try {
      const result = await this.request("POST", path, { body, key });
      this.pending.delete(fingerprint);
      return result;
    } catch (error) {
      // Refused with an answer: nothing was done, a new attempt is a new request.
      if (!(error instanceof NetworkError)) this.pending.delete(fingerprint);
      throw error;
    }
  }

  hasPending() {
    return this.pending.size > 0;
  }

  async request(method, path, { body, key } = {}) {
    const headers = {
      Accept: "application/json, application/problem+json",
      "Accept-Language": language(),
    };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (key) headers["Idempotency-Key"] = key;
    // Without a key a write whose answer was lost must not be sent again blindly.
    const retrySafe = method === "GET" || Boolean(key);
    let lastError = null;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      let response;
      try {
        response = await fetch(this.base + path, {
          method,
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
          cache: "no-store",
        });
      } catch (error) {
        lastError = new NetworkError(error);
        if (!retrySafe || attempt === MAX_ATTEMPTS) break;
        const seconds = Math.min(8, 0.5 * 2 ** (attempt - 1));
        this.onWait(
          { key: N_("api.wait.connection"), values: { attempt, attempts: MAX_ATTEMPTS - 1 } },
          seconds,
        );
        await sleep(seconds * 1000);
        continue;
      }
      const data = await readBody(response);
      if (response.ok) {
        this.onWait(null, 0);
        return data;
      }
      const error = new ApiError(response.status, data);
      const again =
        attempt < MAX_ATTEMPTS &&
        (RETRYABLE_STATUS.has(response.status) ||
          (response.status === 409 && error.code === "request_in_progress" && key));
      if (!again) {
        this.onWait(null, 0);
        throw error;
      }
      const seconds = RETRYABLE_STATUS.has(response.status) ? retryAfterSeconds(response) : 1;
      const key =
        response.status === 429
          ? N_("api.wait.rate_limited")
          : response.status === 503
            ? N_("api.wait.busy")
            : N_("api.wait.processing");
      this.onWait({ key, values: {} }, seconds);
      await sleep(seconds * 1000);
      lastError = error;
    }
    this.onWait(null, 0);
    throw lastError;
  }
}

async function readBody(response) {
  if (response.status === 204) return null;
  const type = response.headers.get("Content-Type") || "";
  const text = await response.text();
  if (type.includes("json") && text) {
    try {
      return JSON.parse(text);
    } catch {
      return { title: t("api.unreadable"), detail: text.slice(0, 200) };
    }
  }
  return text ? { title: `HTTP ${response.status}`, detail: text.slice(0, 200) } : null;
}
