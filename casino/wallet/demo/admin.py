"""A client of the reference wallet's admin API (docs/integration.md §7), signed like the
protocol: tests and demos create and fund accounts, expire sessions, read the records."""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from casino.wallet import signing
from casino.wallet.client import Transport
from casino.wallet.protocol import HEADER_SIGNATURE, HEADER_TIMESTAMP


class AdminError(RuntimeError):
    pass


class DemoAdmin:
    def __init__(self, url: str, secrets: Sequence[bytes], timeout_ms: int = 10_000) -> None:
        self.secrets = list(secrets)
        self.transport = Transport(url, timeout_ms, max_connections=2)

    def _call(self, method: str, path: str, data: dict[str, Any] | None = None) -> bytes:
        body = b"" if data is None else json.dumps(data).encode()
        timestamp = str(int(time.time()))
        headers = {
            "Content-Type": "application/json",
            HEADER_TIMESTAMP: timestamp,
            HEADER_SIGNATURE: signing.signature_header(self.secrets, timestamp, body),
        }
        raw = self.transport.request(method, path, body, headers)
        if raw.status != 200:
            raise AdminError(f"{method} {path}: HTTP {raw.status}: {raw.body[:200]!r}")
        return raw.body

    def put_player(self, player: str, currency: str, **changes: Any) -> dict[str, Any]:
        """Creates or updates an account: ``balance``, ``credit``, ``blocked``, ``max_bet``."""
        data = {"player": player, "currency": currency, **changes}
        result: dict[str, Any] = json.loads(self._call("POST", "/admin/players", data))
        return result

    def account(self, player: str, currency: str) -> dict[str, Any]:
        path = f"/admin/players/{quote(player, safe='')}/{quote(currency, safe='')}"
        result: dict[str, Any] = json.loads(self._call("GET", path))
        return result

    def expire_session(self, session: str) -> None:
        self._call("POST", "/admin/sessions", {"session": session, "expired": True})

    def transactions(self) -> list[dict[str, str]]:
        text = self._call("GET", "/admin/transactions.csv").decode()
        return list(csv.DictReader(io.StringIO(text)))

    def close(self) -> None:
        self.transport.close()
