"""The event server (casino.api.events_server): a follower gets the backlog after its
Last-Event-ID, then every new event pushed as the dealer stores it, on one asyncio loop."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from casino.api.events_server import EventServer, run
from casino.store.database import Database

from .helpers import OPERATOR_TOKEN, Api
from .protection_helpers import Clock
from .shared_helpers import DriveDealer, create_shared_table


@pytest.fixture
def events_port(database_url: str, clock: Clock) -> Iterator[int]:
    database = Database.open(database_url, clock=clock)
    server = EventServer(database, [OPERATOR_TOKEN], [], poll=0.05, keep_alive=0.5)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    ready = threading.Event()
    loop = asyncio.new_event_loop()
    task: list[asyncio.Task[None]] = []

    def serve() -> None:
        asyncio.set_event_loop(loop)
        task.append(loop.create_task(run(server, "127.0.0.1", port, ready.set)))
        with contextlib.suppress(asyncio.CancelledError):
            loop.run_until_complete(task[0])

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert ready.wait(10)
    yield port

    async def shutdown() -> None:
        # The followers' tasks first: the server's own task ends the loop.
        others = [t for t in asyncio.all_tasks() if t not in (asyncio.current_task(), task[0])]
        for running in others:
            running.cancel()
        if others:
            await asyncio.wait(others, timeout=2)

    assert thread.is_alive(), "the event server stopped by itself"
    asyncio.run_coroutine_threadsafe(shutdown(), loop).result(10)
    loop.call_soon_threadsafe(task[0].cancel)
    thread.join(10)
    loop.close()
    database.dispose()


def _open(port: int, headers: str) -> socket.socket:
    conn = socket.create_connection(("127.0.0.1", port), timeout=5)
    conn.sendall(f"GET /api/v1/tables/live/events HTTP/1.1\r\nHost: x\r\n{headers}\r\n".encode())
    return conn


def _read_events(
    conn: socket.socket, count: int, head_first: bool = True
) -> tuple[str, list[dict]]:
    buffer = b""
    events: list[dict] = []
    # Keep-alive comments keep the socket busy: a missing event must fail, not hang.
    deadline = time.monotonic() + 15
    while len(events) < count:
        assert time.monotonic() < deadline, f"{len(events)} of {count} events: {events}"
        chunk = conn.recv(65536)
        assert chunk, "stream closed"
        buffer += chunk
        head, _, body = buffer.partition(b"\r\n\r\n") if head_first else (b"", b"", buffer)
        events = [
            json.loads(line[6:]) for line in body.decode().split("\n") if line.startswith("data: ")
        ]
    return head.decode(), events


def test_backlog_then_pushed_events(
    capi: Api, clock: Clock, database_url: str, events_port: int
) -> None:
    create_shared_table(capi)
    dealer = DriveDealer(database_url, clock)
    try:
        dealer.run()  # shoe_changed, round_opened
        auth = f"Authorization: Bearer {OPERATOR_TOKEN}\r\nLast-Event-ID: 1\r\n"
        conn = _open(events_port, auth)
        head, backlog = _read_events(conn, 1)
        assert head.startswith("HTTP/1.1 200") and "text/event-stream" in head
        assert [e["type"] for e in backlog] == ["round_opened"]
        clock.advance(seconds=10)
        dealer.run()  # bets closed, cards ... results, the next round later
        _, seen = _read_events(conn, 3, head_first=False)
        assert [e["id"] for e in seen] == list(range(3, 3 + len(seen)))
        assert [e["type"] for e in seen[:2]] == ["bets_closed", "cards"]
        conn.close()
    finally:
        dealer.close()


def test_refused_without_a_token_or_table(capi: Api, events_port: int) -> None:
    create_shared_table(capi)
    with _open(events_port, "") as conn:
        assert conn.recv(4096).startswith(b"HTTP/1.1 401")
    with socket.create_connection(("127.0.0.1", events_port), timeout=5) as conn:
        conn.sendall(
            f"GET /api/v1/tables/nope/events HTTP/1.1\r\nAuthorization: Bearer {OPERATOR_TOKEN}"
            "\r\n\r\n".encode()
        )
        assert conn.recv(4096).startswith(b"HTTP/1.1 404")


def test_a_follower_joining_while_the_table_moves_misses_nothing(
    capi: Api,
    clock: Clock,
    database_url: str,
    events_port: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """B's backlog is read, then the hub hands out new events before B's stream starts:
    B still gets every event once, in order (it joins the hub before reading its backlog)."""
    create_shared_table(capi)
    dealer = DriveDealer(database_url, clock)
    release, read = threading.Event(), threading.Event()
    original = EventServer._events

    def slow(self: EventServer, operator_id: str, table_id: str, after: int, limit: int = 1000):  # type: ignore[no-untyped-def]
        found = original(self, operator_id, table_id, after, limit)
        if after == 1:  # B's backlog: read now, written only once the hub has moved on
            read.set()
            release.wait(10)
        return found

    monkeypatch.setattr(EventServer, "_events", slow)
    try:
        dealer.run()  # 1 shoe_changed, 2 round_opened
        auth = f"Authorization: Bearer {OPERATOR_TOKEN}\r\n"
        a = _open(events_port, auth + "Last-Event-ID: 2\r\n")
        b = _open(events_port, auth + "Last-Event-ID: 1\r\n")
        assert read.wait(10)
        clock.advance(seconds=10)
        dealer.run()  # bets closed, the cards, the results...
        _, seen_a = _read_events(a, 3)  # the hub has handed them out
        release.set()
        _, seen_b = _read_events(b, 1 + len(seen_a))
        ids = [e["id"] for e in seen_b]
        assert ids == list(range(2, 2 + len(ids))), ids
        assert ids[1:] == [e["id"] for e in seen_a]
        a.close()
        b.close()
    finally:
        dealer.close()
