"""A minimal JSON-over-HTTP client for loopback load: one connection per request, or one
persistent HTTP/1.1 connection per thread and server (``keep_alive=True``).

A fresh connection per request keeps failures unambiguous: a reset can only belong to the
request that was in flight, never to an idle keep-alive socket the server closed earlier.
Production's clients (a reverse proxy's upstream pool, an API client with a session) keep
their connections instead, and so does pgbench: ``keep_alive=True`` measures that. A kept
connection the server has closed meanwhile (gunicorn's ``keepalive`` timeout, a worker
restart) fails before any byte of an answer arrives: the request is then sent once more on
a fresh connection, as urllib3 and every proxy do, and any other failure is reported as is.
Every reply is classified into a ``kind`` (``"201"``, ``"409 insufficient_funds"``,
``"network ConnectionRefusedError"``, ...) so runs can count errors by kind.

The client shares the machine with the server it measures, so it speaks HTTP/1.1 over a raw
socket instead of ``http.client``: one ``sendall`` of prebuilt bytes, and a response parser
that only does what these replies need. ``http.client`` (with its ``email`` header parser)
cost several times the CPU per request, all of it taken from the server under test. Errors
are still raised as the ``http.client`` classes (``RemoteDisconnected``, ``IncompleteRead``,
``BadStatusLine``, ``LineTooLong``) so error kinds read as they always did.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from http.client import (
    BadStatusLine,
    HTTPException,
    IncompleteRead,
    InvalidURL,
    LineTooLong,
    RemoteDisconnected,
)
from typing import Any
from urllib.parse import urlsplit

_RECV = 65536
#: Same limits as ``http.client``: a peer sending garbage must not grow the buffer forever.
_MAX_HEAD = 65536 + 100 * 65536
_MAX_LINE = 65536
_BODYLESS_METHODS = frozenset({"HEAD"})
_BODY_METHODS = frozenset({"PATCH", "POST", "PUT"})
#: ``http.client`` refuses these in a method or path rather than send a broken request line.
_BAD_REQUEST_LINE = re.compile(r"[\x00-\x20\x7f]")
_HEADER_NAME = re.compile(r"[^:\s][^:\r\n]*").fullmatch
#: Headers the fast path writes itself; a caller naming one of them takes the general path.
_OWN_HEADERS = frozenset(
    {
        "host",
        "accept",
        "accept-encoding",
        "connection",
        "authorization",
        "content-type",
        "content-length",
        "transfer-encoding",
    }
)
_FIXED = "Accept-Encoding: identity\r\nAccept: application/json\r\nConnection: close\r\n"
#: HTTP/1.1 connections are persistent unless a side says ``close``: nothing to announce.
_FIXED_KEEP = "Accept-Encoding: identity\r\nAccept: application/json\r\n"
_HEAD_END = re.compile(rb"\r?\n\r?\n")


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


@dataclass(frozen=True)
class _Target:
    addresses: list[tuple[Any, ...]]  # getaddrinfo rows, tried in order like create_connection
    host_header: str


_targets: dict[str, _Target] = {}


def _target(base_url: str) -> _Target:
    # Resolved once per base URL: the harness talks to a few fixed loopback addresses, and a
    # getaddrinfo per request was a measurable share of the client's CPU.
    target = _targets.get(base_url)
    if target is None:
        parts = urlsplit(base_url)
        host = parts.hostname or "127.0.0.1"
        port = parts.port or 80
        rows = socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM)
        shown = f"[{host}]" if ":" in host else host
        target = _Target(
            [(family, kind, proto, address) for family, kind, proto, _, address in rows],
            shown if port == 80 else f"{shown}:{port}",
        )
        _targets[base_url] = target
    return target


def _connect(target: _Target, timeout: float) -> socket.socket:
    error: OSError | None = None
    for family, kind, proto, address in target.addresses:
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(timeout)
            sock.connect(address)
            return sock
        except OSError as err:
            sock.close()
            error = err
    raise error or OSError("getaddrinfo returned no address")


def _encode_request(
    method: str,
    path: str,
    host_header: str,
    token: str | None,
    body: bytes | None,
    is_json: bool,
    headers: dict[str, str] | None,
    keep_alive: bool = False,
) -> bytes:
    if _BAD_REQUEST_LINE.search(method) or _BAD_REQUEST_LINE.search(path):
        raise InvalidURL(f"refusing a request line with control characters: {method} {path!r}")
    extra = ""
    if headers:
        if not _OWN_HEADERS.isdisjoint(name.lower() for name in headers):
            return _encode_general(
                method, path, host_header, token, body, is_json, headers, keep_alive
            )
        for name, value in headers.items():
            _check_header(name, value)
            extra += f"{name}: {value}\r\n"
    fixed = _FIXED_KEEP if keep_alive else _FIXED
    head = f"{method} {path} HTTP/1.1\r\nHost: {host_header}\r\n{fixed}"
    if token is not None:
        _check_header("Authorization", token)
        head += f"Authorization: Bearer {token}\r\n"
    if is_json:
        head += "Content-Type: application/json\r\n"
    head += extra
    if body is not None:
        head += f"Content-Length: {len(body)}\r\n\r\n"
        return head.encode("latin-1") + body
    if method in _BODY_METHODS:
        head += "Content-Length: 0\r\n"
    return (head + "\r\n").encode("latin-1")


def _check_header(name: str, value: str) -> None:
    # http.client refuses these too: a CR or LF would let a value smuggle a header in.
    if "\r" in value or "\n" in value or not _HEADER_NAME(name):
        raise ValueError(f"invalid header {name!r}: {value!r}")


def _encode_general(
    method: str,
    path: str,
    host_header: str,
    token: str | None,
    body: bytes | None,
    is_json: bool,
    headers: dict[str, str],
    keep_alive: bool = False,
) -> bytes:
    """The caller overrides a header the fast path writes itself: merge as http.client did."""
    sent = {"Accept": "application/json"}
    if not keep_alive:
        sent["Connection"] = "close"
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    if is_json:
        sent["Content-Type"] = "application/json"
    sent.update(headers)
    names = {name.lower() for name in sent}
    lines = [f"{method} {path} HTTP/1.1"]
    if "host" not in names:
        lines.append(f"Host: {host_header}")
    if "accept-encoding" not in names:
        lines.append("Accept-Encoding: identity")
    for name, value in sent.items():
        _check_header(name, value)
        lines.append(f"{name}: {value}")
    if "content-length" not in names and "transfer-encoding" not in names:
        if body is not None:
            lines.append(f"Content-Length: {len(body)}")
        elif method in _BODY_METHODS:
            lines.append("Content-Length: 0")
    lines.append("\r\n")
    head = "\r\n".join(lines).encode("latin-1")
    return head + body if body else head


def _head_end(buffer: bytes, start: int) -> tuple[int, int]:
    """Where the header block ends and the body starts; (-1, -1) while incomplete."""
    end = buffer.find(b"\r\n\r\n", start)
    if end >= 0:
        return end, end + 4
    match = _HEAD_END.search(buffer, start)  # bare LF line ends, which http.client accepts
    return (match.start(), match.end()) if match else (-1, -1)


def _read_head(sock: socket.socket, buffer: bytes) -> tuple[int, dict[str, str], bytes]:
    """Status, lowercased headers and whatever of the body came with them (1xx skipped);
    ``buffer`` is the answer's first bytes, already received."""
    while True:
        end, body_start = _head_end(buffer, 0)
        while end < 0:
            if len(buffer) > _MAX_HEAD:
                raise HTTPException("got more than 100 headers")
            chunk = sock.recv(_RECV)
            if not chunk:
                if not buffer:
                    raise RemoteDisconnected("Remote end closed connection without response")
                raise IncompleteRead(buffer)
            # Search only what may now hold the blank line, not the whole buffer again.
            start = max(0, len(buffer) - 3)
            buffer += chunk
            end, body_start = _head_end(buffer, start)
        lines = buffer[:end].decode("iso-8859-1").split("\n")
        status_line = lines[0].rstrip("\r")
        if len(status_line) > _MAX_LINE:
            raise LineTooLong("status line")
        parts = status_line.split(None, 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/"):
            raise BadStatusLine(status_line)
        try:
            status = int(parts[1])
        except ValueError:
            raise BadStatusLine(status_line) from None
        if not 100 <= status <= 999:
            raise BadStatusLine(status_line)
        if status < 200 and status != 101:
            # An interim answer (100 Continue, 103 Early Hints): the real one follows.
            buffer = buffer[body_start:]
            continue
        headers: dict[str, str] = {}
        last = ""
        for line in lines[1:]:
            if line[:1] in (" ", "\t") and last:
                # Obsolete line folding: http.client keeps the line break in the value.
                headers[last] += "\r\n" + line.rstrip("\r")
                continue
            name, colon, value = line.partition(":")
            if colon:
                last = name.lower()
                headers[last] = value.lstrip(" \t").rstrip("\r")
        return status, headers, buffer[body_start:]


def _read_exactly(sock: socket.socket, data: bytes, length: int) -> bytes:
    chunks = [data]
    have = len(data)
    while have < length:
        chunk = sock.recv(max(_RECV, length - have))
        if not chunk:
            raise IncompleteRead(b"".join(chunks), length - have)
        chunks.append(chunk)
        have += len(chunk)
    data = b"".join(chunks) if len(chunks) > 1 else data
    return data[:length]


def _read_to_eof(sock: socket.socket, data: bytes) -> bytes:
    chunks = [data]
    while chunk := sock.recv(_RECV):
        chunks.append(chunk)
    return b"".join(chunks)


def _read_chunked(sock: socket.socket, data: bytes) -> bytes:
    """Decode ``Transfer-Encoding: chunked``, reading more from the socket as needed."""
    out: list[bytes] = []
    buffer = data
    position = 0

    def line() -> bytes:
        nonlocal buffer, position
        while (end := buffer.find(b"\n", position)) < 0:
            if len(buffer) - position > _MAX_LINE:
                raise LineTooLong("chunk size")
            chunk = sock.recv(_RECV)
            if not chunk:
                raise IncompleteRead(b"".join(out))
            buffer = buffer[position:] + chunk
            position = 0
        text = buffer[position:end]
        position = end + 1
        return text.rstrip(b"\r")

    while True:
        size_text = line().split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise IncompleteRead(b"".join(out)) from None
        if size == 0:
            while line():  # trailers, up to the blank line that ends the message
                pass
            return b"".join(out)
        need = size + 2  # the chunk and its CRLF
        if len(buffer) - position < need:
            buffer = _read_exactly(sock, buffer[position:], need)
            position = 0
        out.append(buffer[position : position + size])
        position += need


def _read_body(
    sock: socket.socket, method: str, status: int, headers: dict[str, str], data: bytes
) -> bytes:
    if method in _BODYLESS_METHODS or status in (204, 304) or 100 <= status < 200:
        return b""
    if headers.get("transfer-encoding", "").lower() == "chunked":
        return _read_chunked(sock, data)
    length_text = headers.get("content-length")
    if length_text is not None:
        try:
            length = int(length_text)
        except ValueError:
            length = -1
        if length >= 0:
            return _read_exactly(sock, data, length)
    return _read_to_eof(sock, data)


class _NothingReceived(Exception):
    """The request could not be sent, or the peer closed before a byte of an answer."""

    def __init__(self, cause: BaseException) -> None:
        super().__init__(str(cause))
        self.cause = cause


def _exchange(
    sock: socket.socket, message: bytes, method: str
) -> tuple[int, dict[str, str], bytes, bool]:
    """Send, read the answer; the last item says whether the connection may carry another."""
    try:
        sock.sendall(message)
        first = sock.recv(_RECV)
    except OSError as err:
        raise _NothingReceived(err) from err
    if not first:
        raise _NothingReceived(RemoteDisconnected("Remote end closed connection without response"))
    status, headers, data = _read_head(sock, first)
    framed = (
        method in _BODYLESS_METHODS
        or status in (204, 304)
        or headers.get("transfer-encoding", "").lower() == "chunked"
        or "content-length" in headers
    )
    data = _read_body(sock, method, status, headers, data)
    closing = "close" in headers.get("connection", "").lower()
    return status, headers, data, framed and not closing


class _Kept(threading.local):
    """This thread's persistent connections, one per server address."""

    def __init__(self) -> None:
        self.sockets: dict[str, socket.socket] = {}


_kept = _Kept()


def close_kept_connections() -> None:
    """Close the calling thread's persistent connections (a client thread that is done)."""
    for sock in _kept.sockets.values():
        sock.close()
    _kept.sockets.clear()


def _send(
    target: _Target, base_url: str, message: bytes, method: str, timeout: float, keep: bool
) -> tuple[int, dict[str, str], bytes]:
    if not keep:
        sock = _connect(target, timeout)
        try:
            status, headers, data, _ = _exchange(sock, message, method)
        except _NothingReceived as err:
            raise err.cause from None
        finally:
            sock.close()
        return status, headers, data
    kept = _kept.sockets.pop(base_url, None)
    reused = kept is not None
    sock = kept if kept is not None else _connect(target, timeout)
    try:
        sock.settimeout(timeout)
        try:
            status, headers, data, reusable = _exchange(sock, message, method)
        except _NothingReceived as err:
            if not reused:
                raise err.cause from None
            # The server closed the idle connection (its keep-alive timeout, a restart)
            # before this request reached it: the same request once more, on a new one.
            sock.close()
            sock = _connect(target, timeout)
            try:
                status, headers, data, reusable = _exchange(sock, message, method)
            except _NothingReceived as again:
                raise again.cause from None
    except BaseException:
        sock.close()
        raise
    if reusable:
        _kept.sockets[base_url] = sock
    else:
        sock.close()
    return status, headers, data


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
    keep_alive: bool = False,
) -> Reply:
    """One request; ``keep_alive`` sends it on this thread's persistent connection to
    ``base_url`` (opened, or re-opened after the server closed it, as needed)."""
    body = raw_body
    is_json = json_body is not None
    if is_json:
        body = json.dumps(json_body).encode()
    started = time.perf_counter()
    try:
        target = _target(base_url)
        message = _encode_request(
            method, path, target.host_header, token, body, is_json, headers, keep_alive
        )
        status, reply_headers, data = _send(target, base_url, message, method, timeout, keep_alive)
    except (OSError, HTTPException) as err:
        return Reply(None, None, {}, time.perf_counter() - started, type(err).__name__)
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
