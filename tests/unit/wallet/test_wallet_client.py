"""The wallet client: what it sends (headers, a signature over the bytes sent, a new request id
per attempt) and how it classifies every outcome — a definite answer or UNKNOWN, never an
exception and never a guess. A local HTTP server plays the wallet with canned behaviours."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from casino.wallet import signing
from casino.wallet.client import WalletClient, retry_delay
from casino.wallet.protocol import Bet, BetKind, Rollback, Status, Win, parse_request

SECRET = b"client-test-secret-0123456789"
BET = Bet("player-42", "op-session", "EUR", "tx-1", "round-1", 250, BetKind.DEAL)
ROLLBACK = Rollback("player-42", "op-session", "EUR", "tx-2", "tx-1", "round-1", 250)


@dataclass
class Reply:
    status: int = 200
    body: bytes = b'{"status":"OK","balance":9750,"operator_transaction_id":"w-1"}'
    headers: tuple[tuple[str, str], ...] = ()
    echo_request_id: bool = True
    delay: float = 0.0
    drop: bool = False


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


class CannedWallet(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        self.reply: Callable[[Received], Reply] = lambda _: Reply()
        self.received: list[Received] = []
        self.connections = 0
        super().__init__(("127.0.0.1", 0), _Handler)

    def verify_request(self, request: Any, client_address: Any) -> bool:
        self.connections += 1
        return True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: CannedWallet

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        received = Received(self.path, dict(self.headers.items()), body)
        self.server.received.append(received)
        reply = self.server.reply(received)
        time.sleep(reply.delay)
        if reply.drop:
            self.close_connection = True
            return
        try:
            self.send_response(reply.status)
            self.send_header("Content-Length", str(len(reply.body)))
            if reply.echo_request_id:
                self.send_header("X-Request-Id", self.headers["X-Request-Id"])
            for name, value in reply.headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(reply.body)
        except OSError:
            self.close_connection = True


@pytest.fixture
def wallet() -> Iterator[CannedWallet]:
    server = CannedWallet()
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def client(wallet: CannedWallet) -> Iterator[WalletClient]:
    with WalletClient(
        wallet.url, "acme", [SECRET], timeout_ms=500, clock=lambda: 1_767_225_600
    ) as c:
        yield c


# ------------------------------------------------------------------------------ the request


def test_a_call_is_signed_over_the_exact_bytes_sent(
    client: WalletClient, wallet: CannedWallet
) -> None:
    outcome = client.send(BET)
    (received,) = wallet.received
    headers = received.headers
    assert received.path == "/bet"
    assert headers["X-Casino-Operator"] == "acme"
    assert headers["X-Casino-Timestamp"] == "1767225600"
    assert headers["Content-Type"] == "application/json"
    assert headers["X-Casino-Signature"] == "v1=" + signing.sign(
        SECRET, "1767225600", received.body
    )
    request_id, call = parse_request("bet", received.body)
    assert call == BET
    assert request_id == headers["X-Request-Id"] == outcome.request_id


def test_every_attempt_has_a_new_request_id_and_the_same_transaction(
    client: WalletClient, wallet: CannedWallet
) -> None:
    first, again = client.send(BET), client.send(BET)
    assert first.request_id != again.request_id
    bodies = [json.loads(r.body) for r in wallet.received]
    assert bodies[0]["transaction_id"] == bodies[1]["transaction_id"] == "tx-1"
    assert bodies[0]["request_id"] != bodies[1]["request_id"]


def test_every_secret_still_valid_signs(wallet: CannedWallet) -> None:
    with WalletClient(wallet.url, "acme", [b"new-secret-0123456789", SECRET]) as rotating:
        rotating.send(BET)
    received = wallet.received[0]
    header = received.headers["X-Casino-Signature"]
    assert header.count("v1=") == 2
    timestamp = received.headers["X-Casino-Timestamp"]
    for secret in (SECRET, b"new-secret-0123456789"):
        assert signing.verify([secret], timestamp, header, received.body, now=int(timestamp))


def test_connections_are_kept_and_reused(client: WalletClient, wallet: CannedWallet) -> None:
    for _ in range(20):
        assert client.send(BET).ok
    assert wallet.connections == 1


def test_the_client_is_shared_safely_between_threads(wallet: CannedWallet) -> None:
    with (
        WalletClient(wallet.url, "acme", [SECRET], max_connections=4) as shared,
        ThreadPoolExecutor(max_workers=8) as pool,
    ):
        outcomes = list(pool.map(lambda _: shared.send(BET), range(80)))
    assert all(outcome.ok for outcome in outcomes)
    assert len({outcome.request_id for outcome in outcomes}) == 80
    ids = {parse_request("bet", r.body)[0] for r in wallet.received}
    assert ids == {outcome.request_id for outcome in outcomes}


def test_a_wallet_url_with_a_path_prefixes_the_calls(wallet: CannedWallet) -> None:
    with WalletClient(wallet.url + "/casino/", "acme", [SECRET]) as prefixed:
        prefixed.send(BET)
    assert wallet.received[0].path == "/casino/bet"


@pytest.mark.parametrize("url", ["ftp://wallet", "wallet.example.com", "http://"])
def test_a_wallet_url_must_be_http(url: str) -> None:
    with pytest.raises(ValueError):
        WalletClient(url, "acme", [SECRET])


# ------------------------------------------------------------------------ definite answers


@pytest.mark.parametrize("status", [s for s in Status if s is not Status.UNKNOWN])
def test_every_status_but_unknown_is_a_definite_answer(
    client: WalletClient, wallet: CannedWallet, status: Status
) -> None:
    body = json.dumps({"status": status.value, "balance": 10}).encode()
    wallet.reply = lambda _: Reply(body=body)
    outcome = client.send(BET)
    assert outcome.definite and outcome.status is status and outcome.balance == 10
    assert outcome.http_status == 200 and outcome.reason == ""


def test_an_ok_answer_carries_the_balance_and_the_operators_id(client: WalletClient) -> None:
    outcome = client.send(BET)
    assert (outcome.status, outcome.balance, outcome.operator_transaction_id) == (
        Status.OK,
        9750,
        "w-1",
    )
    assert outcome.ok and outcome.done and not outcome.refused and not outcome.send_again


def test_an_answer_without_the_request_id_header_is_still_definite(
    client: WalletClient, wallet: CannedWallet
) -> None:
    wallet.reply = lambda _: Reply(echo_request_id=False)
    assert client.send(BET).definite


def test_done_refused_and_send_again_say_what_the_caller_does(
    client: WalletClient, wallet: CannedWallet
) -> None:
    wallet.reply = lambda _: Reply(body=b'{"status":"TRANSACTION_NOT_FOUND"}')
    rollback, bet = client.send(ROLLBACK), client.send(BET)
    assert rollback.done and not rollback.refused  # final for a rollback: nothing to cancel
    assert bet.refused and not bet.done
    wallet.reply = lambda _: Reply(body=b'{"status":"INVALID_SIGNATURE"}')
    win = client.send(Win("player-42", "s", "EUR", "tx-3", "round-1", 10))
    assert win.definite and win.refused and win.send_again
    wallet.reply = lambda _: Reply(body=b'{"status":"DUPLICATE_TRANSACTION"}')
    assert not client.send(ROLLBACK).send_again


# ------------------------------------------------------------------------ unknown outcomes


UNKNOWN_REPLIES = {
    "HTTP 500": Reply(status=500, body=b"oops"),
    "HTTP 503 with a protocol body": Reply(status=503, body=b'{"status":"OK","balance":1}'),
    "HTTP 404": Reply(status=404, body=b'{"status":"OK","balance":1}'),
    "HTTP 400": Reply(status=400, body=b"bad request"),
    "HTTP 302": Reply(status=302, body=b"", headers=(("Location", "/elsewhere"),)),
    "HTTP 204": Reply(status=204, body=b""),
    "status UNKNOWN": Reply(body=b'{"status":"UNKNOWN","balance":100}'),
    "not JSON": Reply(body=b"<html>gateway</html>"),
    "a status not the protocol's": Reply(body=b'{"status":"SUCCESS","balance":1}'),
    "OK without a balance": Reply(body=b'{"status":"OK"}'),
    "a balance as a string": Reply(body=b'{"status":"OK","balance":"9750"}'),
    "another request's id": Reply(echo_request_id=False, headers=(("X-Request-Id", "other"),)),
    "an answer too large": Reply(body=b'{"status":"OK","balance":1,"x":"' + b"y" * 70_000 + b'"}'),
    "the connection dropped": Reply(drop=True),
    "too late": Reply(delay=1.5),
}


@pytest.mark.parametrize("case", sorted(UNKNOWN_REPLIES))
def test_anything_else_is_unknown_never_an_exception(
    client: WalletClient, wallet: CannedWallet, case: str
) -> None:
    wallet.reply = lambda _: UNKNOWN_REPLIES[case]
    outcome = client.send(BET)
    assert not outcome.definite
    assert outcome.status is Status.UNKNOWN
    assert outcome.reason
    assert not outcome.ok and not outcome.done and not outcome.refused and outcome.send_again


def test_a_timeout_says_so(client: WalletClient, wallet: CannedWallet) -> None:
    wallet.reply = lambda _: Reply(delay=1.5)
    outcome = client.send(BET)
    assert outcome.reason == "timeout"
    # The client gave up at its timeout (500 ms here), not when the answer came.
    assert outcome.elapsed_ms < 1400


def test_a_call_may_wait_longer_than_the_clients_timeout(
    client: WalletClient, wallet: CannedWallet
) -> None:
    wallet.reply = lambda _: Reply(delay=0.8)
    assert client.send(BET).reason == "timeout"
    assert client.send(BET, timeout_ms=3000).ok


def test_a_refused_connection_is_unknown() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with WalletClient(f"http://127.0.0.1:{port}", "acme", [SECRET]) as nowhere:
        outcome = nowhere.send(BET)
    assert not outcome.definite and outcome.reason.startswith("connection error")


def test_after_an_unknown_outcome_the_next_call_gets_a_fresh_connection(
    client: WalletClient, wallet: CannedWallet
) -> None:
    replies = iter([Reply(drop=True), Reply(delay=1.0), Reply(body=b"x" * 70_000)])
    wallet.reply = lambda _: next(replies, Reply())
    assert [client.send(BET).definite for _ in range(4)] == [False, False, False, True]


def test_wins_and_rollbacks_are_retried_after_1_2_4_seconds_up_to_5_minutes() -> None:
    assert [retry_delay(n) for n in range(1, 12)] == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300]
    assert retry_delay(10_000) == 300
    with pytest.raises(ValueError):
        retry_delay(0)
