// Following a shared table: its events (GET /tables/{id}/events as Server-Sent Events,
// resumed after the last event seen with Last-Event-ID), else polling GET /tables/{id}/round.
//
// EventSource cannot send the session's bearer token, so the stream is read through fetch:
// the same frames (id, event, data, retry), parsed here. The API answers the events there
// are and ends the stream with a `retry` (an event server keeps it open: both read alike);
// the follower reconnects after `retry` ms with Last-Event-ID, so nothing is missed. A
// stream that fails STREAM_FAILURES times in a row is given up for polling the round.

import { sleep } from "./dom.js";
import { language } from "./i18n.js";

const STREAM_FAILURES = 3;
const POLL_MS = 1000;
const DEFAULT_RETRY_MS = 1000;

export class Follower {
  // onEvent(event): every event, in order, once; onPoll(): time to read the round again
  // (polling only); onMode(mode): "events" or "polling".
  constructor({ client, tableId, after = 0, onEvent, onPoll, onMode }) {
    this.client = client;
    this.path = `/api/v1/tables/${encodeURIComponent(tableId)}/events`;
    this.lastId = after;
    this.onEvent = onEvent;
    this.onPoll = onPoll;
    this.onMode = onMode;
    this.retryMs = DEFAULT_RETRY_MS;
    this.stopped = false;
  }

  stop() {
    this.stopped = true;
  }

  async run() {
    let failures = 0;
    this.onMode("events");
    while (!this.stopped && failures < STREAM_FAILURES) {
      try {
        await this.readStream();
        failures = 0;
      } catch (error) {
        if (error?.fatal) throw error;
        failures += 1;
      }
      await sleep(this.retryMs);
    }
    if (this.stopped) return;
    this.onMode("polling");
    while (!this.stopped) {
      try {
        await this.onPoll();
      } catch (error) {
        if (error?.fatal) throw error;
      }
      await sleep(POLL_MS);
    }
  }

  async readStream() {
    const headers = {
      Accept: "text/event-stream",
      "Accept-Language": language(),
      "Last-Event-ID": String(this.lastId),
    };
    if (this.client.token) headers.Authorization = `Bearer ${this.client.token}`;
    const response = await fetch(this.client.base + this.path, { headers, cache: "no-store" });
    if (response.status === 401 || response.status === 403) {
      throw Object.assign(new Error(`events: HTTP ${response.status}`), { fatal: true, status: response.status });
    }
    const type = response.headers.get("Content-Type") || "";
    if (!response.ok || !type.includes("text/event-stream") || !response.body) {
      throw new Error(`events: HTTP ${response.status}`);
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value.replace(/\r\n?/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        this.frame(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
      }
    }
  }

  // One frame: its fields; comments (": keep-alive") and unknown fields are passed over.
  frame(text) {
    let id = null;
    const data = [];
    for (const line of text.split("\n")) {
      if (!line || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") id = Number(value);
      else if (field === "data") data.push(value);
      else if (field === "retry" && /^\d+$/.test(value)) this.retryMs = Number(value);
    }
    if (!data.length || !Number.isFinite(id) || id <= this.lastId) return;
    let event;
    try {
      event = JSON.parse(data.join("\n"));
    } catch {
      return;
    }
    this.lastId = id;
    this.onEvent(event);
  }
}
