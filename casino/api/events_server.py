"""The event server: ``GET /api/v1/tables/{id}/events`` as Server-Sent Events that stay
open, for many idle followers at once (``casino events``; ``casino serve`` starts one
beside the web workers).

Why not the WSGI workers: a gunicorn sync (or gthread) worker gives each open response a
process (or a thread) for its whole life, and a follower's stream lasts as long as the
player stays at the table, so a few hundred followers would take every worker from the bets.
One asyncio loop holds each follower as a socket and a small queue instead; the database is
read by one poll per followed table (every ``POLL`` seconds, in a worker thread), whatever
the number of its followers, and every new event is framed once and written to all of
them. So followers cost memory (some tens of kB each, ``python -m bench sse``), not
threads or database connections.

The protocol is the API's (docs/shared-tables.md): the same bearer tokens (checked once, at
connect, by the API's own ``authenticate``), ``Last-Event-ID`` or ``?after=`` to resume,
``: keep-alive`` comments every ``KEEP_ALIVE`` seconds, CORS for the game client (it sends
its token in ``Authorization``, which ``EventSource`` cannot: the client reads the stream
with ``fetch``). Same origin: route ``/api/v1/tables/*/events`` to it in the reverse proxy
(docs/shared-tables.md); the API itself answers the same URL with a burst and ``retry``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from casino.api.sse import frame
from casino.service import auth as service_auth
from casino.service.errors import ServiceError
from casino.store.database import Database

logger = logging.getLogger(__name__)

POLL = 0.2
KEEP_ALIVE = 15.0
MAX_HEADER = 16 * 1024
BACKLOG_LIMIT = 1000
_PATH = re.compile(r"^/api/v1/tables/([a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)/events$")


@dataclass(eq=False)
class Follower:
    #: (event id, its frame) as the hub polls them; None ends the stream
    queue: asyncio.Queue[tuple[int, bytes] | None]
    last_id: int


@dataclass
class Hub:
    """One followed table: its followers and the last event id handed to them."""

    operator_id: str
    table_id: str
    last_id: int
    followers: set[Follower] = field(default_factory=set)
    task: asyncio.Task[None] | None = None


class EventServer:
    def __init__(
        self,
        database: Database,
        operator_tokens: list[str],
        platform_tokens: list[str],
        *,
        poll: float = POLL,
        keep_alive: float = KEEP_ALIVE,
    ) -> None:
        self.database = database
        self.operator_tokens = operator_tokens
        self.platform_tokens = platform_tokens
        self.poll = poll
        self.keep_alive = keep_alive
        self.hubs: dict[tuple[str, str], Hub] = {}
        self.followers = 0
        self.polls = 0

    # --- the database, from worker threads ----------------------------------------------

    def _authenticate(self, token: str) -> str | None:
        with self.database.unit_of_work() as uow:
            try:
                principal = service_auth.authenticate(
                    uow, token, self.operator_tokens, platform_tokens=self.platform_tokens
                )
            except ServiceError:
                return None
            return principal.operator_id

    def _events(
        self, operator_id: str, table_id: str, after: int, limit: int = BACKLOG_LIMIT
    ) -> list[dict[str, Any]] | None:
        """Events after ``after``; None when the operator has no such shared table."""
        with self.database.unit_of_work(operator_id) as uow:
            if uow.shared.get(table_id) is None:
                return None
            return uow.shared.events_after(table_id, after, limit)

    # --- hubs ---------------------------------------------------------------------------

    def _join(self, operator_id: str, table_id: str, follower: Follower) -> Hub:
        key = (operator_id, table_id)
        hub = self.hubs.get(key)
        if hub is None:
            hub = self.hubs[key] = Hub(operator_id, table_id, follower.last_id)
            hub.task = asyncio.get_running_loop().create_task(self._poll(hub))
        hub.followers.add(follower)
        self.followers += 1
        return hub

    def _leave(self, hub: Hub, follower: Follower) -> None:
        hub.followers.discard(follower)
        self.followers -= 1
        if not hub.followers:
            self.hubs.pop((hub.operator_id, hub.table_id), None)
            if hub.task is not None:
                hub.task.cancel()

    async def _poll(self, hub: Hub) -> None:
        while True:
            await asyncio.sleep(self.poll)
            try:
                events = await asyncio.to_thread(
                    self._events, hub.operator_id, hub.table_id, hub.last_id
                )
            except Exception:  # a database hiccup: try again next time
                logger.warning("polling %s failed", hub.table_id, exc_info=True)
                continue
            self.polls += 1
            if not events:
                continue
            hub.last_id = events[-1]["id"]
            framed = [(event["id"], frame(event)) for event in events]
            for follower in list(hub.followers):
                for event_id, data in framed:
                    if event_id > follower.last_id:
                        follower.queue.put_nowait((event_id, data))
                        follower.last_id = event_id

    # --- HTTP ---------------------------------------------------------------------------

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._handle(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        if len(head) > MAX_HEADER:
            return await _answer(writer, 431, {"code": "request_header_fields_too_large"})
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = ([*lines[0].split(" "), "", "", ""])[:3]
        headers = {}
        for line in lines[1:]:
            name, sep, value = line.partition(":")
            if sep:
                headers[name.strip().lower()] = value.strip()
        if method == "OPTIONS":
            return await _answer(writer, 204, None)
        url = urlsplit(target)
        match = _PATH.match(url.path)
        if method != "GET" or match is None:
            return await _answer(writer, 404, {"code": "not_found"})
        table_id = match.group(1)
        token = headers.get("authorization", "")
        if not token.lower().startswith("bearer "):
            return await _answer(writer, 401, {"code": "unauthenticated"})
        operator_id = await asyncio.to_thread(self._authenticate, token[7:].strip())
        if operator_id is None:
            return await _answer(writer, 401, {"code": "unauthenticated"})
        after = _resume(headers.get("last-event-id"), parse_qs(url.query).get("after"))
        if after is None:
            return await _answer(writer, 422, {"code": "validation_failed"})
        # Join the table's hub first, then read the backlog: what the hub hands out from now
        # on waits in the queue, and everything it handed out before is in the database
        # (read after it), so no event falls between the two; the duplicates are skipped.
        follower = Follower(asyncio.Queue(), after)
        hub = self._join(operator_id, table_id, follower)
        try:
            backlog = await asyncio.to_thread(self._events, operator_id, table_id, after)
            if backlog is None:
                return await _answer(writer, 404, {"code": "table_not_found"})
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                b"Cache-Control: no-store\r\nConnection: keep-alive\r\n"
                b"X-Accel-Buffering: no\r\n" + _CORS + b"\r\n"
            )
            sent = after
            while backlog:
                for event in backlog:
                    writer.write(frame(event))
                    sent = event["id"]
                await writer.drain()
                if len(backlog) < BACKLOG_LIMIT:
                    break
                backlog = await asyncio.to_thread(self._events, operator_id, table_id, sent)
                backlog = backlog or []
            follower.last_id = max(follower.last_id, sent)
            await self._stream(reader, writer, follower, sent)
        finally:
            self._leave(hub, follower)

    async def _stream(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        follower: Follower,
        sent: int,
    ) -> None:
        """The hub's events after ``sent`` (the last one written), in order, each once."""
        closed = asyncio.ensure_future(reader.read())  # EOF: the follower went away
        try:
            while not closed.done():
                getter = asyncio.ensure_future(follower.queue.get())
                done, _ = await asyncio.wait(
                    {getter, closed}, timeout=self.keep_alive, return_when=asyncio.FIRST_COMPLETED
                )
                if getter in done:
                    item = getter.result()
                    if item is None:
                        return
                    event_id, data = item
                    if event_id <= sent:  # read with the backlog already
                        continue
                    writer.write(data)
                    sent = event_id
                else:
                    getter.cancel()
                    if closed in done:
                        return
                    writer.write(b": keep-alive\n\n")
                await writer.drain()
        finally:
            closed.cancel()


_CORS = (
    b"Access-Control-Allow-Origin: *\r\n"
    b"Access-Control-Allow-Headers: Authorization, Last-Event-ID\r\n"
    b"Access-Control-Allow-Methods: GET, OPTIONS\r\n"
)


async def _answer(writer: asyncio.StreamWriter, status: int, body: dict[str, Any] | None) -> None:
    reason = {204: "No Content", 401: "Unauthorized", 404: "Not Found"}.get(status, "Error")
    payload = b"" if body is None else json.dumps({"status": status, **body}).encode()
    kind = b"Content-Type: application/problem+json\r\n" if body is not None else b""
    writer.write(
        f"HTTP/1.1 {status} {reason}\r\n".encode()
        + kind
        + f"Content-Length: {len(payload)}\r\nConnection: close\r\n".encode()
        + _CORS
        + b"\r\n"
        + payload
    )
    await writer.drain()


def _resume(last_event_id: str | None, after: list[str] | None) -> int | None:
    text = (last_event_id or "").strip() or (after[0] if after else "0")
    if not text.isdigit() or len(text) > 18:
        return None
    return int(text)


async def run(server: EventServer, host: str, port: int, ready: Callable[[], None] | None = None):
    listener = await asyncio.start_server(server.handle, host, port, backlog=4096)
    if ready is not None:
        ready()
    async with listener:
        await listener.serve_forever()


def serve_events(config: str | None, host: str, port: int) -> None:
    """Serve until interrupted, with the API's configuration (its database and tokens)."""
    from casino import create_app
    from casino.api.database import EXTENSION_KEY

    app = create_app(config)
    database: Database = app.extensions[EXTENSION_KEY]
    server = EventServer(
        database,
        list(app.config.get("CASINO_OPERATOR_TOKENS", [])),
        list(app.config.get("CASINO_PLATFORM_TOKENS", [])),
    )
    logger.info("event server on %s:%s", host, port)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run(server, host, port))
