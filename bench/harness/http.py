"""A minimal JSON-over-HTTP client for loopback load: one connection per request.

A fresh connection per request keeps failures unambiguous: a reset can only belong to the
request that was in flight, never to an idle keep-alive socket the server closed earlier.
Every reply is classified into a ``kind`` (``"201"``, ``"409 insufficient_funds"``,
``"network ConnectionRefusedError"``, ...) so runs can count errors by kind.
"""

from __future__ import annotations

import http.client
import json
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Reply:
    status: int | None  # None: no HTTP answer at all (refused, reset, timeout)
    body: Any
    headers: dict[str, str]
    latency: float
    network_error: str | None = None
    raw: bytes = field(default=b"", repr=False)

    @property
    def code(self) -> str | None:
        """The problem document's stable ``code``, when the body is one."""
        if isinstance(self.body, dict):
            code = self.body.get("code")
            return code if isinstance(code, str) else None
        return None

    @property
    def kind(self) -> str:
        if self.status is None:
            return f"network {self.network_error}"
        code = self.code if self.status >= 400 else None
        return f"{self.status} {code}" if code else str(self.status)

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    @property
    def replayed(self) -> bool:
        return self.headers.get("idempotent-replayed", "").lower() == "true"

    @property
    def is_problem(self) -> bool:
        return self.headers.get("content-type", "").startswith("application/problem+json")


def request(
    base_url: str,
    method: str,
    path: str,
    *,
    token: str | None = None,
    json_body: Any = None,
    raw_body: bytes | None = None,
    headers: dict[str, str] | None = None,
    timeout: float = 30.0,
) -> Reply:
    parts = urlsplit(base_url)
    conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)
    sent_headers = {"Accept": "application/json", "Connection": "close"}
    if token is not None:
        sent_headers["Authorization"] = f"Bearer {token}"
    body = raw_body
    if json_body is not None:
        body = json.dumps(json_body).encode()
        sent_headers["Content-Type"] = "application/json"
    sent_headers.update(headers or {})
    started = time.perf_counter()
    try:
        conn.request(method, path, body=body, headers=sent_headers)
        response = conn.getresponse()
        data = response.read()
        status = response.status
        reply_headers = {k.lower(): v for k, v in response.getheaders()}
    except (OSError, http.client.HTTPException) as err:
        return Reply(None, None, {}, time.perf_counter() - started, type(err).__name__)
    finally:
        conn.close()
    latency = time.perf_counter() - started
    parsed: Any = None
    if data:
        try:
            parsed = json.loads(data)
        except ValueError:
            parsed = None
    return Reply(status, parsed, reply_headers, latency, None, data)


def http_status_ok(url: str, timeout: float = 2.0) -> bool:
    parts = urlsplit(url)
    base = f"{parts.scheme}://{parts.netloc}"
    reply = request(base, "GET", parts.path or "/", timeout=timeout)
    return reply.status == 200
