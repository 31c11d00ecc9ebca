"""A wallet written from docs/integration.md alone, as an operator would: it imports nothing of
casino (the test that runs the certification kit against it proves the page is enough).

In memory, one lock around every decision, the standard library's HTTP server.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LARGEST = 9007199254740991  # 2^53 - 1
PATHS = ("/balance", "/bet", "/win", "/rollback")
# §5.1: what "the same payload" compares, besides the path.
COMPARED = {
    "/bet": ("player", "currency", "round_id", "amount", "kind"),
    "/win": ("player", "currency", "round_id", "amount"),
    "/rollback": ("player", "currency", "round_id", "amount", "reference_transaction_id"),
}


class Malformed(Exception):
    pass


def _string(body: dict[str, Any], name: str, longest: int, empty: bool = False) -> None:
    value = body.get(name)
    if not isinstance(value, str) or len(value) > longest or (not value and not empty):
        raise Malformed(name)


def _integer(body: dict[str, Any], name: str, least: int) -> None:
    value = body.get(name)
    if type(value) is not int or not least <= value <= LARGEST:
        raise Malformed(name)


def validate(path: str, raw: bytes) -> dict[str, Any]:
    """§3: the fields of the path, of the right types and ranges, or Malformed."""
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise Malformed("not UTF-8 JSON") from None
    if not isinstance(body, dict):
        raise Malformed("not an object")
    for name in ("request_id", "player"):
        _string(body, name, 200)
    _string(body, "session", 4096, empty=True)
    currency = body.get("currency")
    if not (isinstance(currency, str) and len(currency) == 3 and currency.isascii()
            and currency.isalpha() and currency.isupper()):  # fmt: skip
        raise Malformed("currency")
    if path == "/balance":
        return body
    _string(body, "transaction_id", 200)
    _string(body, "round_id", 200)
    if path == "/bet":
        _integer(body, "amount", 1)
        if body.get("kind") not in ("deal", "raise") or body.get("round_closed") is not False:
            raise Malformed("kind or round_closed")
    elif path == "/win":
        _integer(body, "amount", 0)
        if body.get("round_closed") is not True:
            raise Malformed("round_closed")
    else:
        _integer(body, "amount", 1)
        _string(body, "reference_transaction_id", 200)
        if body["reference_transaction_id"] == body["transaction_id"]:
            raise Malformed("a rollback naming itself")
    return body


class DocWallet:
    def __init__(self, secret: bytes) -> None:
        self.secret = secret
        self.lock = threading.Lock()
        self.balances: dict[tuple[str, str], int] = {}
        self.blocked: set[str] = set()
        self.expired_sessions: set[str] = set()
        # transaction_id -> {"path", "body", "status", "ref"}
        self.records: dict[str, dict[str, Any]] = {}
        self.dead_bets: set[str] = set()  # cancelled before they arrived (§5.4, 2)
        self.cancelled_bets: set[str] = set()
        self.closed_rounds: set[str] = set()
        self.counter = 0

    # §2
    def genuine(self, timestamp: str | None, header: str | None, raw: bytes) -> bool:
        if not timestamp or not header or not timestamp.isdigit():
            return False
        if abs(int(timestamp) - time.time()) > 300:
            return False
        expected = hmac.new(self.secret, timestamp.encode() + b"." + raw, hashlib.sha256)
        digest = expected.hexdigest().encode()
        found = False
        for entry in header.split(","):
            scheme, _, value = entry.strip().partition("=")
            if scheme == "v1" and hmac.compare_digest(digest, value.strip().encode()):
                found = True
        return found

    def answer(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            if path == "/balance":
                return self.balance(body)
            key = (body["player"], body["currency"])
            tid = body["transaction_id"]
            record = self.records.get(tid)
            if record is not None:  # §5.1
                same = record["path"] == path and all(
                    record["body"][name] == body[name] for name in COMPARED[path]
                )
                status = record["status"] if same else "DUPLICATE_TRANSACTION"
                reply: dict[str, Any] = {"status": status}
                if same:
                    reply["operator_transaction_id"] = record["ref"]
                return self.with_balance(reply, key)
            rule = {"/bet": self.bet, "/win": self.win, "/rollback": self.rollback}[path]
            status, delta, keep = rule(body, key)
            reply = {"status": status}
            if keep:
                self.counter += 1
                ref = f"doc-{self.counter}"
                self.records[tid] = {"path": path, "body": body, "status": status, "ref": ref}
                reply["operator_transaction_id"] = ref
            if delta:
                self.balances[key] += delta
            return self.with_balance(reply, key)

    def with_balance(self, reply: dict[str, Any], key: tuple[str, str]) -> dict[str, Any]:
        if key in self.balances:
            reply["balance"] = self.balances[key]
        return reply

    def balance(self, body: dict[str, Any]) -> dict[str, Any]:  # §5.5
        key = (body["player"], body["currency"])
        if key not in self.balances or body["player"] in self.blocked:
            return {"status": "PLAYER_BLOCKED"}
        if body["session"] in self.expired_sessions:
            return {"status": "SESSION_EXPIRED"}
        return {"status": "OK", "balance": self.balances[key]}

    def bet(self, body: dict[str, Any], key: tuple[str, str]) -> tuple[str, int, bool]:  # §5.2
        if body["transaction_id"] in self.dead_bets:
            return "DUPLICATE_TRANSACTION", 0, False
        if body["round_id"] in self.closed_rounds:
            return "DUPLICATE_TRANSACTION", 0, True
        if key not in self.balances or body["player"] in self.blocked:
            return "PLAYER_BLOCKED", 0, True
        if body["session"] in self.expired_sessions:
            return "SESSION_EXPIRED", 0, True
        if self.balances[key] < body["amount"]:
            return "NOT_ENOUGH_MONEY", 0, True
        return "OK", -body["amount"], True

    def win(self, body: dict[str, Any], key: tuple[str, str]) -> tuple[str, int, bool]:  # §5.3
        if body["round_id"] in self.closed_rounds:
            return "DUPLICATE_TRANSACTION", 0, True
        if key not in self.balances:
            return "PLAYER_BLOCKED", 0, True
        self.closed_rounds.add(body["round_id"])
        return "OK", body["amount"], True

    def rollback(self, body: dict[str, Any], key: tuple[str, str]) -> tuple[str, int, bool]:
        # §5.4
        bet_id = body["reference_transaction_id"]
        bet = self.records.get(bet_id)
        if bet is None:
            self.dead_bets.add(bet_id)
            return "TRANSACTION_NOT_FOUND", 0, True
        fields = ("player", "currency", "round_id", "amount")
        if bet["path"] != "/bet" or any(bet["body"][f] != body[f] for f in fields):
            return "DUPLICATE_TRANSACTION", 0, True
        if bet_id in self.cancelled_bets:
            return "OK", 0, True
        if bet["body"]["round_id"] in self.closed_rounds:
            return "DUPLICATE_TRANSACTION", 0, True
        self.cancelled_bets.add(bet_id)
        if bet["status"] != "OK":
            return "OK", 0, True
        return "OK", bet["body"]["amount"], True


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: DocWalletServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        wallet = self.server.wallet
        if self.path not in PATHS:
            self.reply(404, b"{}")
            return
        if not wallet.genuine(
            self.headers.get("X-Casino-Timestamp"), self.headers.get("X-Casino-Signature"), raw
        ):
            self.reply(200, b'{"status":"INVALID_SIGNATURE"}')
            return
        try:
            body = validate(self.path, raw)
        except Malformed as error:
            self.reply(400, json.dumps({"error": str(error)}).encode())
            return
        self.reply(200, json.dumps(wallet.answer(self.path, body)).encode())

    def reply(self, code: int, data: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        request_id = self.headers.get("X-Request-Id")
        if request_id:
            self.send_header("X-Request-Id", request_id)
        self.end_headers()
        self.wfile.write(data)


class DocWalletServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 64

    def __init__(self, wallet: DocWallet) -> None:
        self.wallet = wallet
        super().__init__(("127.0.0.1", 0), _Handler)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"
