"""Shared tables in system tests: real ``casino dealer`` processes, the table's stored state,
a chain of shoe seeds chosen by the test (to steer to ties), following the event server (and
the reverse proxy that puts it on the API's origin), and the ledger's view of each shared
round's money."""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from casino.engine.shared import HashChain
from casino.store.database import Database
from harness import pg

REPO = Path(__file__).resolve().parents[2]
#: The public value the chosen chains are dealt with (the table's own is replaced by it).
PUBLIC_VALUE = "0" * 64

T = TypeVar("T")


def start_dealer(url: str, name: str, log: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "DATABASE_URL": url, "CASINO_ENV": "development"}
    command = "from casino.cli import main; main()"
    return subprocess.Popen(
        [sys.executable, "-c", command, "dealer", "--name", name],
        cwd=REPO,
        env=env,
        stdout=log.open("ab"),
        stderr=subprocess.STDOUT,
    )


def table_state(database: Database, table_id: str = "live") -> tuple[dict[str, Any], str | None]:
    """The table's round state (empty before a dealer opened it) and its lease holder."""
    with database.unit_of_work("default") as uow:
        record = uow.shared.get(table_id)
        assert record is not None
        return dict(record.state or {}), record.lease_holder


def wait_for(predicate: Callable[[], T], timeout: float, what: str) -> T:
    """The first truthy answer of ``predicate`` (asked every 50 ms) within ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def use_chain(url: str, chain: HashChain, table_id: str = "live") -> None:
    """Deal the table from ``chain`` (a test's choice of secret, so that the test knows its
    shoes) and ``PUBLIC_VALUE``: before any dealer has held the table."""
    public = {"source": "operator", "reference": "system test", "value": PUBLIC_VALUE}
    changed = pg.fetch_all(
        url,
        "UPDATE shared_tables SET chain_secret = %s, chain_commitment = %s, "
        "public_value = %s::json WHERE table_id = %s AND seq = 0 RETURNING table_id",
        (chain.secret, chain.commitment.hex(), json.dumps(public), table_id),
    )
    assert changed == [(table_id,)], "the table was opened already"


def repeated_money(url: str) -> list[tuple[object, ...]]:
    """Shared rounds' transactions of one kind made twice for one player in one round (a
    stake, raise or payment taken or paid twice): none may be."""
    return pg.fetch_all(
        url,
        "SELECT reference, player_id, kind, count(*) FROM ledger_transactions "
        "WHERE reference LIKE 'shared:%%' GROUP BY reference, player_id, kind "
        "HAVING count(*) > 1",
    )


def shared_ledger_nets(url: str) -> dict[str, int]:
    """Per player, what the shared rounds' transactions moved in and out of its wallet."""
    rows = pg.fetch_all(
        url,
        "SELECT t.player_id, sum(p.amount) FROM ledger_transactions t "
        "JOIN postings p ON p.transaction_id = t.id AND p.account_id = t.wallet_id "
        "WHERE t.reference LIKE 'shared:%%' GROUP BY t.player_id",
    )
    return {str(player): int(str(net)) for player, net in rows}


# ---------------------------------------------------------------- the event server


def wait_for_port(port: int, timeout: float, what: str) -> None:
    def answers() -> bool:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            return False

    wait_for(answers, timeout, what)


class EventStream:
    """A follower of ``GET /api/v1/tables/{id}/events`` on the event server, read as it
    arrives (the server keeps the stream open: no chunks, frames until it closes)."""

    def __init__(self, port: int, table_id: str, token: str, after: int = 0) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=120)
        self.sock.sendall(
            f"GET /api/v1/tables/{table_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n"
            f"Last-Event-ID: {after}\r\n\r\n".encode()
        )
        self.file = self.sock.makefile("rb")
        status = self.file.readline().decode()
        assert status.startswith("HTTP/1.1 200"), status
        while self.file.readline() not in (b"\r\n", b""):
            pass

    def __iter__(self) -> Iterator[dict[str, Any]]:
        data: list[str] = []
        for raw in self.file:
            line = raw.decode().rstrip("\n")
            if line.startswith("data: "):
                data.append(line[6:])
            elif not line and data:
                yield json.loads("\n".join(data))
                data = []

    def close(self) -> None:
        # Unblocks a reader waiting in another thread.
        with contextlib.suppress(OSError):
            self.sock.shutdown(socket.SHUT_RDWR)
        self.file.close()
        self.sock.close()


class SameOrigin:
    """The reverse proxy production puts in front (docs/shared-tables.md): one origin on
    127.0.0.1, ``/api/v1/tables/*/events`` to the event server, everything else to the API.

    One request per connection (it asks the backend to close after answering), so each
    connection goes to the backend of its one request; bytes are copied both ways as they
    come, which keeps an event stream open for as long as both ends do."""

    EVENTS = re.compile(rb"^GET /api/v1/tables/[^/ ]+/events[? ]")

    def __init__(self, web_port: int, events_port: int) -> None:
        self.web_port, self.events_port = web_port, events_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.streams = 0  # connections sent to the event server
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.listener.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        with client, contextlib.suppress(OSError):
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = client.recv(65536)
                if not chunk:
                    return
                head += chunk
            lines, rest = head.split(b"\r\n\r\n", 1)
            kept = [
                line
                for line in lines.split(b"\r\n")
                if not line.lower().startswith((b"connection:", b"keep-alive:"))
            ]
            events = bool(self.EVENTS.match(kept[0]))
            self.streams += events
            port = self.events_port if events else self.web_port
            with socket.create_connection(("127.0.0.1", port)) as backend:
                backend.sendall(b"\r\n".join([*kept, b"Connection: close"]) + b"\r\n\r\n" + rest)
                threading.Thread(target=_copy, args=(client, backend), daemon=True).start()
                _copy(backend, client)
                client.shutdown(socket.SHUT_RDWR)  # ends the copy the other way too


def _copy(source: socket.socket, sink: socket.socket) -> None:
    """``source`` into ``sink`` until ``source`` ends, then ends ``sink``'s sending side."""
    with contextlib.suppress(OSError):
        while chunk := source.recv(65536):
            sink.sendall(chunk)
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)
