"""Issue 10, point 16: a blocked or silent PostgreSQL costs a request a few seconds and a 503,
never a worker. A real gunicorn instance (production serving settings, two workers) talks to
PostgreSQL through a small TCP proxy that this test can stop.

* a lock: another session holds ``ACCESS EXCLUSIVE`` on ``accounts`` (a long migration, a
  ``VACUUM FULL``, a stuck session) - a bet is refused after the lock timeout;
* a silent network: the proxy stops forwarding in both directions but keeps every
  connection open (what dropped packets look like to the app) - the client's own bound cuts
  the exchange.

Either way: 503 ``service_unavailable`` with Retry-After, ``/health`` at once, ``/ready``
503, no worker killed; once the database is back, a retry with the same Idempotency-Key
plays once.

With the default bounds (issue 19), a silent database costs a request at most 5 s: the
client bound is the statement bound (3.5 s) + 0.5 s, and a connection cut for silence is not
retried on a fresh one (which would wait out the connect timeout on the same network).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import psycopg
import pytest

from config.token_policy import random_token
from harness import api, pg
from harness.http import Reply, request
from harness.server import GunicornInstance, free_port

pytestmark = pytest.mark.postgres

OPERATOR = random_token("op_")
LOCK_TIMEOUT = 1.0
STATEMENT_TIMEOUT = 2.0
CLIENT_TIMEOUT = 3.0
CONNECT_TIMEOUT = 2.0


class StallingProxy:
    """TCP forwarding from a local port to PostgreSQL that can stop passing bytes on.

    Stopped, it keeps reading what arrives and holds it (the sender's kernel sees its data
    acknowledged, as it would by any middlebox), passing nothing either way until resumed.
    """

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.port = free_port()
        self._flowing = threading.Event()
        self._flowing.set()
        self._closed = False
        self._sockets: list[socket.socket] = []
        self._listener = socket.create_server(("127.0.0.1", self.port))
        threading.Thread(target=self._accept, daemon=True).start()

    def stop_forwarding(self) -> None:
        self._flowing.clear()

    def resume(self) -> None:
        self._flowing.set()

    def close(self) -> None:
        self._closed = True
        self._flowing.set()
        for sock in [self._listener, *self._sockets]:
            with contextlib.suppress(OSError):
                sock.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
                upstream = socket.create_connection(self.target, timeout=10)
            except OSError:
                return
            upstream.settimeout(None)
            self._sockets += [client, upstream]
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                self._flowing.wait()
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


@dataclass
class World:
    instance: GunicornInstance
    proxy: StallingProxy
    direct_url: str  # libpq URL of the test database, not through the proxy
    player_id: str
    player_token: str

    @property
    def base(self) -> str:
        return self.instance.base_url

    def bet(self, key: str) -> Reply:
        return api.place_bet(self.player_token, "classic", 100, key=key).send(self.base, 30)

    def rounds_played(self) -> int:
        rows = pg.fetch_all(
            self.direct_url, "SELECT count(*) FROM rounds WHERE player_id = %s", (self.player_id,)
        )
        return int(rows[0][0])  # type: ignore[call-overload]


#: Issue 19: what a request may wait on a database silent on the network, by default.
DEFAULT_BOUND = 5.0
TIMEOUTS = {
    "CASINO_DATABASE_LOCK_TIMEOUT": str(LOCK_TIMEOUT),
    "CASINO_DATABASE_STATEMENT_TIMEOUT": str(STATEMENT_TIMEOUT),
    "CASINO_DATABASE_CLIENT_TIMEOUT": str(CLIENT_TIMEOUT),
    "CASINO_DATABASE_CONNECT_TIMEOUT": str(CONNECT_TIMEOUT),
}


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    yield from _world("stalls", TIMEOUTS)


@pytest.fixture(scope="module")
def default_world() -> Iterator[World]:
    """The same, with every database bound at its default."""
    yield from _world("stall-defaults", {})


def _world(name: str, timeouts: dict[str, str]) -> Iterator[World]:
    with pg.scratch_database(name) as db:
        pg.migrate(db.url)
        proxy = StallingProxy(("127.0.0.1", 5432))
        proxied = db.url.replace("@127.0.0.1:5432/", f"@127.0.0.1:{proxy.port}/")
        assert proxied != db.url, db.url
        instance = GunicornInstance(
            proxied, [OPERATOR], workers=2, serving_config=True, extra_env=timeouts
        )
        try:
            with instance:
                base = instance.base_url
                assert api.create_table(OPERATOR, "classic").send(base).status == 201
                player = api.create_player(OPERATOR, f"stall-{uuid.uuid4()}").send(base)
                assert player.status == 201, player.kind
                funded = api.deposit(OPERATOR, player.body["id"], 10**8, "funds").send(base)
                assert funded.status == 201, funded.kind
                yield World(instance, proxy, db.libpq_url, player.body["id"], player.body["token"])
                print(instance.log_tail())
        finally:
            proxy.close()


def _assert_unavailable(reply: Reply, within: float) -> None:
    assert reply.status == 503, (reply.kind, reply.body)
    assert reply.code == "service_unavailable" and reply.is_problem
    assert int(reply.headers["retry-after"]) >= 1
    assert reply.latency < within, reply.latency


def _assert_health_at_once(world: World) -> None:
    health = request(world.base, "GET", "/api/v1/health", timeout=10)
    assert health.status == 200 and health.latency < 1.0, (health.kind, health.latency)


def _ready(world: World, timeout: float = 30) -> Reply:
    return request(world.base, "GET", "/api/v1/ready", timeout=timeout)


def _wait_ready(world: World) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if _ready(world).status == 200:
            return
        time.sleep(0.2)
    raise AssertionError("the instance did not become ready again")


def _play_once(world: World, key: str, before: int) -> None:
    """The retry with the key of the refused request: the bet is there exactly once."""
    retried = world.bet(key)
    assert retried.status == 201, retried.kind
    again = world.bet(key)
    assert again.status == 201 and again.replayed, again.kind
    assert again.body["id"] == retried.body["id"]
    assert world.rounds_played() == before + 1
    if retried.body["status"] == "awaiting_decision":  # a tie: settle it for the next test
        decided = api.decide(world.player_token, retried.body["id"], "surrender")
        assert decided.send(world.base).status == 200


def test_a_locked_table_answers_503_at_the_lock_timeout(world: World) -> None:
    workers = world.instance.worker_pids()
    before = world.rounds_played()
    key = str(uuid.uuid4())
    with psycopg.connect(world.direct_url, autocommit=False) as locker:
        locker.execute("LOCK TABLE accounts IN ACCESS EXCLUSIVE MODE")
        for _ in range(3):  # on both workers, and a retry of the same key alike
            _assert_unavailable(world.bet(key), within=LOCK_TIMEOUT + 2)
            _assert_health_at_once(world)
        ready = _ready(world)
        assert ready.status == 503 and ready.code == "service_unavailable", ready.kind
        assert ready.latency < LOCK_TIMEOUT + 2
        locker.rollback()
    assert world.instance.worker_pids() == workers  # nobody was killed
    assert "WORKER TIMEOUT" not in world.instance.log_text()
    _wait_ready(world)
    _play_once(world, key, before)


def test_a_silent_database_answers_503_at_the_client_bound(world: World) -> None:
    workers = world.instance.worker_pids()
    before = world.rounds_played()
    key = str(uuid.uuid4())
    world.proxy.stop_forwarding()
    try:
        # The exchange is cut at the client bound and answered 503 at once; the next
        # request's fresh connection waits for the connect timeout at most.
        bound = max(CLIENT_TIMEOUT, CONNECT_TIMEOUT) + 1.5
        _assert_unavailable(world.bet(key), within=bound)
        _assert_health_at_once(world)
        ready = _ready(world)
        assert ready.status == 503, ready.kind
        assert ready.latency < bound
        _assert_unavailable(world.bet(key), within=bound)
        _assert_health_at_once(world)
    finally:
        world.proxy.resume()
    assert world.instance.worker_pids() == workers
    assert "WORKER TIMEOUT" not in world.instance.log_text()
    _wait_ready(world)
    _play_once(world, key, before)


def test_a_silent_database_costs_at_most_five_seconds_by_default(default_world: World) -> None:
    world = default_world
    before = world.rounds_played()
    key = str(uuid.uuid4())
    world.proxy.stop_forwarding()
    try:
        for _ in range(3):  # a pooled connection, then fresh ones, on both workers
            _assert_unavailable(world.bet(key), within=DEFAULT_BOUND)
            _assert_health_at_once(world)
        ready = _ready(world)
        assert ready.status == 503 and ready.latency < DEFAULT_BOUND, (ready.kind, ready.latency)
    finally:
        world.proxy.resume()
    assert "WORKER TIMEOUT" not in world.instance.log_text()
    _wait_ready(world)
    _play_once(world, key, before)
