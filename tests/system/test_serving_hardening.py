"""Issue 10 against real gunicorn instances served as production serves them (the Procfile's
``casino.api.gunicorn_conf``), on SQLite and on PostgreSQL.

While an attack runs, ``/health`` and a bet must each answer within a second:

* point 1 - free-play simulations as heavy as the API allows, from several addresses at
  once: they run in the workers' simulation pools, a few at a time, and are polled;
* point 2 - slow and idle clients: sockets that announce a body and stop sending it, and
  sockets that connect and say nothing;
* point 5 - a chunked body over the size limit is refused (413) like one with a
  Content-Length, not silently cut and accepted.
"""

from __future__ import annotations

import contextlib
import json
import socket
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pytest

from config.token_policy import random_token
from harness import api
from harness.http import Reply, request
from harness.server import HOST, GunicornInstance

OPERATOR = random_token("op_")
BODY_TIMEOUT = 3.0
SIMULATION_SECONDS = 6.0
HEAVIEST = {"variant": "multiplayer", "options": {"seats": 4}, "games": 10_000, "seed": "x"}


@dataclass
class Served:
    instance: GunicornInstance
    player_id: str
    player_token: str

    @property
    def base(self) -> str:
        return self.instance.base_url

    def bet(self) -> Reply:
        return api.place_bet(self.player_token, "classic", 100).send(self.base, timeout=10)

    def health(self) -> Reply:
        return request(self.base, "GET", "/api/v1/health", timeout=10)


def _ok(reply: Reply, status: int = 201) -> dict:
    assert reply.status == status, (reply.kind, reply.body)
    assert isinstance(reply.body, dict)
    return reply.body


@pytest.fixture(scope="module")
def served(database_url: str) -> Iterator[Served]:
    instance = GunicornInstance(
        database_url,
        [OPERATOR],
        workers=2,
        serving_config=True,
        extra_env={
            "CASINO_CLIENT_BODY_TIMEOUT": str(BODY_TIMEOUT),
            "CASINO_FREE_PLAY_SIMULATION_MAX_SECONDS": str(SIMULATION_SECONDS),
            # The attackers' addresses come in X-Forwarded-For, as from a proxy.
            "CASINO_PROXY_FIX_X_FOR": "1",
        },
    )
    with instance:
        base = instance.base_url
        _ok(api.create_table(OPERATOR, "classic").send(base))
        player = _ok(api.create_player(OPERATOR, f"serving-{uuid.uuid4()}").send(base))
        _ok(api.deposit(OPERATOR, player["id"], 10**8, "funds").send(base))
        try:
            yield Served(instance, player["id"], player["token"])
        except BaseException:
            print(instance.log_tail())
            raise


def _assert_served_promptly(served: Served) -> None:
    """``/health`` and a bet each answer within a second. The machine running the tests is
    shared and may be loaded: the best of three tries counts (a starved server, as before
    the fix, is slow on every try)."""
    health = [served.health() for _ in range(3)]
    assert all(r.status == 200 for r in health), [r.kind for r in health]
    assert min(r.latency for r in health) < 1.0, [r.latency for r in health]
    bets = []
    for _ in range(3):
        bet = served.bet()
        assert bet.status in (201, 409), bet.kind  # 409: the previous bet tied and awaits
        if bet.status == 409:
            assert bet.code == "round_in_progress"
            decided = api.decide(served.player_token, bet.body["round_id"], "surrender")
            assert decided.send(served.base).status == 200
        bets.append(bet)
        if bet.status == 201 and bet.latency < 1.0:
            break
    assert any(b.status == 201 and b.latency < 1.0 for b in bets), [
        (b.kind, b.latency) for b in bets
    ]


def _port_of(base: str) -> int:
    return int(base.rsplit(":", 1)[1])


@contextlib.contextmanager
def _stalled_clients(base: str, bodies: int, idle: int) -> Iterator[list[socket.socket]]:
    """``bodies`` sockets that send the headers of a 100-byte JSON body and 4 bytes of it,
    and ``idle`` sockets that connect and send nothing; all held open."""
    port = _port_of(base)
    sockets: list[socket.socket] = []
    try:
        for _ in range(bodies):
            sock = socket.create_connection((HOST, port), timeout=30)
            sock.sendall(
                b"POST /api/v1/free-play/games HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
                b'{"va'
            )
            sockets.append(sock)
        for _ in range(idle):
            sockets.append(socket.create_connection((HOST, port), timeout=30))
        time.sleep(0.5)  # let the server pick them all up
        yield sockets
    finally:
        for sock in sockets:
            sock.close()


def _status_line(sock: socket.socket, timeout: float) -> bytes:
    sock.settimeout(timeout)
    data = b""
    with contextlib.suppress(OSError):
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    return data.split(b"\r\n", 1)[0]


# ---------------------------------------------------------------- point 1


def _simulate(base: str, address: str) -> Reply:
    return request(
        base,
        "POST",
        "/api/v1/free-play/simulations",
        json_body=HEAVIEST,
        headers={"X-Forwarded-For": address},
        timeout=30,
    )


def test_heavy_simulations_do_not_hold_up_health_or_bets(served: Served) -> None:
    addresses = [f"203.0.113.{i}" for i in range(1, 5)]
    with ThreadPoolExecutor(len(addresses)) as attackers:
        replies = list(attackers.map(lambda a: _simulate(served.base, a), addresses))
    statuses = sorted(r.status or 0 for r in replies)
    # Two slots in the whole deployment (the default): the others are told to come back.
    assert statuses == [202, 202, 503, 503], [r.kind for r in replies]
    assert all(int(r.headers["retry-after"]) >= 1 for r in replies if r.status == 503)
    jobs = [r.headers["location"] for r in replies if r.status == 202]
    # While both run (each for its whole time bound), the money API answers at once.
    for _ in range(int(SIMULATION_SECONDS) - 2):
        _assert_served_promptly(served)
        time.sleep(0.5)
    running = [request(served.base, "GET", job).body for job in jobs]
    assert [job["status"] for job in running] == ["running", "running"], running
    deadline = time.monotonic() + SIMULATION_SECONDS + 30
    while time.monotonic() < deadline:
        finished = [request(served.base, "GET", job).body for job in jobs]
        if all(job["status"] != "running" for job in finished):
            break
        time.sleep(0.5)
    for job in finished:
        assert job["status"] == "done", job
        assert job["result"]["stopped_by"] == "time_limit" and job["result"]["games"] >= 1
    # The slots are free again.
    again = _simulate(served.base, addresses[-1])
    assert again.status == 202, again.kind


# ---------------------------------------------------------------- point 2


def test_slow_and_idle_clients_do_not_hold_up_health_or_bets(served: Served) -> None:
    with _stalled_clients(served.base, bodies=3, idle=3) as sockets:
        for _ in range(3):
            _assert_served_promptly(served)
        # The stalled bodies are cut at their deadline: 408, and their threads are free.
        started = time.monotonic()
        line = _status_line(sockets[0], timeout=BODY_TIMEOUT + 10)
        assert line.startswith(b"HTTP/1.1 408"), line
        assert time.monotonic() - started < BODY_TIMEOUT + 5
        _assert_served_promptly(served)


# ---------------------------------------------------------------- point 5


def _chunked_post(base: str, path: str, body: bytes, chunk: int = 64 * 1024) -> Reply:
    """POST ``body`` with ``Transfer-Encoding: chunked`` (no Content-Length)."""
    sock = socket.create_connection((HOST, _port_of(base)), timeout=30)
    started = time.perf_counter()
    try:
        sock.sendall(
            f"POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {OPERATOR}\r\n"
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
            "Connection: close\r\n\r\n".encode()
        )
        with contextlib.suppress(OSError):  # the server may answer before reading it all
            for start in range(0, len(body), chunk):
                piece = body[start : start + chunk]
                sock.sendall(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
            sock.sendall(b"0\r\n\r\n")
        data = b""
        with contextlib.suppress(OSError):
            while chunk_in := sock.recv(65536):
                data += chunk_in
    finally:
        sock.close()
    head, _, payload = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else None
    headers = {}
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.decode("latin-1").partition(":")
        headers[name.strip().lower()] = value.strip()
    try:
        parsed = json.loads(payload) if payload else None
    except ValueError:
        parsed = None
    return Reply(status, parsed, headers, time.perf_counter() - started)


def test_a_chunked_body_over_the_limit_is_413_and_creates_nothing(served: Served) -> None:
    ref = f"chunked-{uuid.uuid4()}"
    # Valid JSON within the first MiB, then trailing whitespace past it: a body cut at the
    # limit would still parse, and the player would be created from a truncated request.
    document = json.dumps({"external_ref": ref}).encode()
    oversized = document + b" " * (1024 * 1024 + 4096)
    refused = _chunked_post(served.base, "/api/v1/players", oversized)
    assert refused.status == 413, (refused.status, refused.body)
    assert refused.body["code"] == "payload_too_large"
    assert refused.headers["content-type"].startswith("application/problem+json")
    # Nothing was created: the same player can be created now, once (a chunked body within
    # the limit is read whole and accepted), and not twice.
    within = _chunked_post(served.base, "/api/v1/players", document + b" " * 1000)
    assert within.status == 201, (within.status, within.body)
    again = _chunked_post(served.base, "/api/v1/players", document)
    assert again.status == 409, (again.status, again.body)
    _assert_served_promptly(served)
