"""Issue 24, item 1: persistent connections, against gunicorn served as production serves it.

* Idle kept-alive connections hold no thread: a worker with 2 threads keeps 24 idle
  connections open and still answers a new client at once, then answers on every one of the
  idle connections again (the server parks them on its poller, not on a thread).
* The harness's keep-alive client reuses its connection, and when the server closes an idle
  one (its keep-alive timeout) it sends the next request on a fresh connection.
"""

from __future__ import annotations

import secrets
import socket
import time
from collections.abc import Iterator

import pytest

from harness import api, http
from harness.server import HOST, GunicornInstance

OPERATOR = "op_" + secrets.token_urlsafe(32)
THREADS = 2
IDLE = 24
KEEPALIVE = 2
HEALTH = (
    b"GET /api/v1/health HTTP/1.1\r\nHost: casino\r\nAccept: application/json\r\n"
    b"Accept-Encoding: identity\r\n\r\n"
)


@pytest.fixture(scope="module")
def served(database_url: str) -> Iterator[GunicornInstance]:
    instance = GunicornInstance(
        database_url,
        [OPERATOR],
        workers=1,
        serving_config=True,
        extra_env={"CASINO_WEB_THREADS": str(THREADS), "CASINO_WEB_KEEPALIVE": str(KEEPALIVE)},
    )
    with instance:
        try:
            yield instance
        except BaseException:
            print(instance.log_tail())
            raise


def _answer_on(sock: socket.socket) -> bytes:
    """One /health exchange on an open connection; the whole answer (Content-Length framed)."""
    sock.sendall(HEALTH)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, "the server closed a kept connection"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.split(b"\r\n")
        if line.lower().startswith(b"content-length:")
    )
    while len(body) < length:
        body += sock.recv(65536)
    return head


def test_idle_kept_connections_hold_no_thread(served: GunicornInstance) -> None:
    idle = []
    try:
        for _ in range(IDLE):
            sock = socket.create_connection((HOST, served.port), timeout=10)
            head = _answer_on(sock)
            assert head.startswith(b"HTTP/1.1 200"), head
            assert b"connection: close" not in head.lower()
            idle.append(sock)
        # 24 idle connections on a worker of 2 threads: were each holding a thread, this
        # request would wait for the keep-alive timeout to free one (best of three: the
        # machine is shared).
        latencies = []
        for _ in range(3):
            reply = http.request(served.base_url, "GET", "/api/v1/health", timeout=10)
            assert reply.status == 200, reply.kind
            latencies.append(reply.latency)
        assert min(latencies) < 1.0, latencies
        # Every idle connection is still open and answers again, on the same socket.
        for sock in idle:
            assert _answer_on(sock).startswith(b"HTTP/1.1 200")
    finally:
        for sock in idle:
            sock.close()


def test_client_reuses_its_connection_and_reconnects_after_the_server_closes_it(
    served: GunicornInstance,
) -> None:
    base = served.base_url
    http.close_kept_connections()
    try:
        first = http.request(base, "GET", "/api/v1/health", keep_alive=True)
        assert first.status == 200, first.kind
        kept = http._kept.sockets[base]
        port = kept.getsockname()[1]
        again = api.create_table(OPERATOR, "classic").send(base, keep_alive=True)
        assert again.status in (201, 409), again.kind
        assert http._kept.sockets[base] is kept, "a second request opened a new connection"
        # The server closes the idle connection after its keep-alive seconds: the next
        # request is answered, on a new connection.
        time.sleep(KEEPALIVE + 1.5)
        after = http.request(base, "GET", "/api/v1/health", keep_alive=True)
        assert after.status == 200, after.kind
        assert http._kept.sockets[base].getsockname()[1] != port
    finally:
        http.close_kept_connections()


def test_connection_per_request_client_keeps_nothing(served: GunicornInstance) -> None:
    http.close_kept_connections()
    reply = http.request(served.base_url, "GET", "/api/v1/health")
    assert reply.status == 200
    assert not http._kept.sockets
