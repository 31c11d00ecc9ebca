"""The reference wallet over HTTP: the protocol's four paths and a small signed admin API.

The standard library's threaded HTTP server (a thread per connection, HTTP/1.1 keep-alive)
rather than a WSGI stack: the wallet must verify the exact bytes it received and, for the
``drop`` fault, close a connection without answering, and both are direct here. It needs
nothing beyond the standard library, so ``casino demo-wallet`` runs from a fresh install.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote

from casino.wallet import signing
from casino.wallet.demo.faults import DROP, ERROR, TIMEOUT, FaultPlan, Faults
from casino.wallet.demo.store import CSV_COLUMNS, Account
from casino.wallet.demo.wallet import DemoWallet
from casino.wallet.protocol import (
    HEADER_REQUEST_ID,
    HEADER_SIGNATURE,
    HEADER_TIMESTAMP,
    MAX_AMOUNT,
    MAX_BODY,
    Answer,
    Endpoint,
    MalformedRequest,
    Status,
    parse_request,
)

log = logging.getLogger("casino.wallet.demo")
_JSON = "application/json"
_PATHS = {endpoint.path: endpoint for endpoint in Endpoint}


class DemoWalletServer(ThreadingHTTPServer):
    daemon_threads = True
    # Bursts of concurrent calls (the kit's duplicates, a load test) queue rather than fail.
    request_queue_size = 128

    def __init__(
        self,
        address: tuple[str, int],
        wallet: DemoWallet,
        faults: Faults | None = None,
    ) -> None:
        self.wallet = wallet
        self.faults = faults or Faults(FaultPlan())
        super().__init__(address, _Handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> threading.Thread:
        """Serves in a daemon thread (tests, embedding); ``stop`` ends it."""
        thread = threading.Thread(
            target=self.serve_forever, args=(0.05,), name="demo-wallet", daemon=True
        )
        thread.start()
        return thread

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A caller that gave up (a timeout fault) closes its end: not the wallet's error.
        log.debug("connection from %s ended early", client_address, exc_info=True)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    #: An idle keep-alive connection is closed after this many seconds.
    timeout = 60
    # Headers and body leave in two writes: without TCP_NODELAY the second waits for the
    # client's delayed ACK (40 ms a call).
    disable_nagle_algorithm = True
    server: DemoWalletServer

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s " + format, self.address_string(), *args)

    # ------------------------------------------------------------------------- routing

    def do_POST(self) -> None:
        body = self._body()
        if body is None:
            return
        if self.path in _PATHS:
            self._protocol(_PATHS[self.path], body)
        elif not self._signed(body):
            self._json(401, {"error": "invalid signature"})
        elif self.path == "/admin/players":
            self._put_player(body)
        elif self.path == "/admin/sessions":
            self._expire_session(body)
        else:
            self._json(404, {"error": "no such path"})

    def do_GET(self) -> None:
        body = self._body()
        if body is None:
            return
        if not self._signed(body):
            self._json(401, {"error": "invalid signature"})
        elif self.path == "/admin/transactions.csv":
            rows = self.server.wallet.store.export_rows()
            self._send(200, csv_text(rows).encode(), "text/csv")
        elif self.path.startswith("/admin/players/") and self.path.count("/") == 4:
            _, _, _, player, currency = self.path.split("/")
            account = self.server.wallet.store.account(unquote(player), unquote(currency))
            if account is None:
                self._json(404, {"error": "no such account"})
            else:
                self._json(200, _account(account))
        else:
            self._json(404, {"error": "no such path"})

    # ---------------------------------------------------------------------- the protocol

    def _protocol(self, endpoint: Endpoint, body: bytes) -> None:
        fault = self.server.faults.draw()
        if fault == ERROR:
            self._send(500, b"injected fault: error", "text/plain")
            return
        if fault == TIMEOUT:
            time.sleep(self.server.faults.delay)
        code, answer = self._decide(endpoint, body)
        if fault == DROP:
            self.close_connection = True  # applied; the answer is lost
            return
        self._send(code, answer, _JSON if code == 200 else "text/plain")

    def _decide(self, endpoint: Endpoint, body: bytes) -> tuple[int, bytes]:
        wallet = self.server.wallet
        genuine = wallet.authenticate(
            self.headers.get(HEADER_TIMESTAMP), self.headers.get(HEADER_SIGNATURE), body
        )
        if not genuine:
            return 200, Answer(Status.INVALID_SIGNATURE).encode()
        try:
            _, call = parse_request(endpoint.value, body)
        except MalformedRequest as error:
            return 400, f"malformed request: {error}".encode()
        try:
            return 200, wallet.handle(call).encode()
        except Exception:
            log.exception("the wallet failed on %s", endpoint.path)
            return 500, b"internal error"

    # ------------------------------------------------------------------------- the admin

    def _signed(self, body: bytes) -> bool:
        """The admin API is signed like the protocol, with the correct rules whatever the
        wallet's broken mode."""
        return signing.verify(
            self.server.wallet.secrets,
            self.headers.get(HEADER_TIMESTAMP),
            self.headers.get(HEADER_SIGNATURE),
            body,
            now=time.time(),
        )

    def _put_player(self, body: bytes) -> None:
        try:
            data = json.loads(body)
            player, currency = data["player"], data["currency"]
            balance, credit = data.get("balance"), data.get("credit", 0)
            blocked, max_bet = data.get("blocked"), data.get("max_bet", False)
            _check_admin(player, currency, balance, credit, blocked, max_bet)
        except (ValueError, KeyError, TypeError) as error:
            self._json(400, {"error": f"bad account: {error}"})
            return
        account = self.server.wallet.store.put_account(
            player, currency, balance=balance, credit=credit, blocked=blocked, max_bet=max_bet
        )
        self._json(200, _account(account))

    def _expire_session(self, body: bytes) -> None:
        try:
            data = json.loads(body)
            session = data["session"]
            if not isinstance(session, str) or data.get("expired") is not True:
                raise ValueError('give {"session": "...", "expired": true}')
        except (ValueError, KeyError, TypeError) as error:
            self._json(400, {"error": str(error)})
            return
        self.server.wallet.store.expire_session(session)
        self._json(200, {"session": session, "expired": True})

    # ------------------------------------------------------------------------- plumbing

    def _body(self) -> bytes | None:
        """The request's body (Content-Length bytes), or None once answered with an error."""
        length = self.headers.get("Content-Length")
        if self.headers.get("Transfer-Encoding") or (length is None and self.command == "POST"):
            self.close_connection = True
            self._send(411, b"Content-Length required", "text/plain")
            return None
        try:
            size = int(length or 0)
        except ValueError:
            size = -1
        if not 0 <= size <= MAX_BODY:
            self.close_connection = True
            self._send(413, b"body too large", "text/plain")
            return None
        return self.rfile.read(size)

    def _json(self, code: int, data: dict[str, Any]) -> None:
        self._send(code, json.dumps(data).encode(), _JSON)

    def _send(self, code: int, body: bytes, content_type: str) -> None:
        try:
            self.send_response(code)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            request_id = self.headers.get(HEADER_REQUEST_ID)
            if request_id is not None:
                self.send_header(HEADER_REQUEST_ID, request_id)
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the caller gave up (a timeout fault)


def _check_admin(
    player: object,
    currency: object,
    balance: object,
    credit: object,
    blocked: object,
    max_bet: object,
) -> None:
    def amount(value: object, least: int) -> bool:
        return (
            isinstance(value, int) and not isinstance(value, bool) and least <= value <= MAX_AMOUNT
        )

    if not isinstance(player, str) or not player or not isinstance(currency, str):
        raise ValueError("player and currency are strings")
    if balance is not None and not amount(balance, 0):
        raise ValueError("balance is an amount")
    if not amount(credit, 0):
        raise ValueError("credit is an amount")
    if blocked is not None and not isinstance(blocked, bool):
        raise ValueError("blocked is true or false")
    if max_bet is not False and max_bet is not None and not amount(max_bet, 1):
        raise ValueError("max_bet is an amount or null")


def _account(account: Account) -> dict[str, Any]:
    return {
        "player": account.player,
        "currency": account.currency,
        "balance": account.balance,
        "blocked": account.blocked,
        "max_bet": account.max_bet,
    }


def csv_text(rows: list[tuple[str, ...]]) -> str:
    """The records as CSV with a header row (docs/integration.md, "Its records")."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    writer.writerows(rows)
    return out.getvalue()
