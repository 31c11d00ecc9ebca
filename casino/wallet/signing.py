"""Request signatures: ``X-Casino-Signature: v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>``.

The HMAC covers the exact bytes of the body as sent, never a re-serialisation of the JSON:
two JSON libraries rarely write the same object the same way (key order, spaces, escapes,
number forms), and a wallet that verifies what it re-encoded refuses genuine requests or
accepts altered ones. The header may carry several ``v1=`` entries (a secret being replaced:
one signature per secret still valid); a request is genuine when any of them verifies.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence
from pathlib import Path

SCHEME = "v1"
#: A request whose timestamp is further than this from the wallet's clock is refused.
MAX_SKEW_SECONDS = 300
#: The longest timestamp header taken as a number (unix seconds fit in 11 digits until 5138).
_MAX_TIMESTAMP_DIGITS = 12
MIN_SECRET_BYTES = 16


def read_secret(path: str | Path) -> bytes:
    """A secret file: its text without surrounding whitespace (a trailing newline), as bytes."""
    secret = Path(path).read_bytes().strip()
    if len(secret) < MIN_SECRET_BYTES:
        raise ValueError(f"{path}: a wallet secret must be at least {MIN_SECRET_BYTES} bytes")
    return secret


def sign(secret: bytes, timestamp: str, body: bytes) -> str:
    """The lowercase hex HMAC-SHA256 of ``<timestamp>.<body>`` under ``secret``."""
    message = timestamp.encode() + b"." + body
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def signature_header(secrets: Sequence[bytes], timestamp: str, body: bytes) -> str:
    """``v1=<hex>[,v1=<hex>...]``: one entry per secret, the current one first."""
    if not secrets:
        raise ValueError("at least one secret is needed to sign")
    return ",".join(f"{SCHEME}={sign(secret, timestamp, body)}" for secret in secrets)


def signatures(header: str) -> list[str]:
    """The ``v1`` signatures of a header; entries of other schemes are ignored."""
    found = []
    for entry in header.split(","):
        scheme, _, value = entry.strip().partition("=")
        value = value.strip()
        # A hex digest is ASCII: anything else cannot match (nor be compared in constant time).
        if scheme == SCHEME and value and value.isascii():
            found.append(value.lower())
    return found


def timestamp_fresh(timestamp: str, now: float, max_skew: int = MAX_SKEW_SECONDS) -> bool:
    """Unix seconds as plain ASCII digits, at most ``max_skew`` seconds from ``now``."""
    if not (timestamp.isascii() and timestamp.isdigit()) or len(timestamp) > _MAX_TIMESTAMP_DIGITS:
        return False
    return abs(int(timestamp) - now) <= max_skew


def verify(
    secrets: Iterable[bytes],
    timestamp: str | None,
    header: str | None,
    body: bytes,
    now: float,
    max_skew: int = MAX_SKEW_SECONDS,
) -> bool:
    """Whether a request is genuine: a fresh timestamp and a signature over the bytes received
    under one of ``secrets`` (compared in constant time)."""
    if timestamp is None or header is None or not timestamp_fresh(timestamp, now, max_skew):
        return False
    offered = signatures(header)
    for secret in secrets:
        expected = sign(secret, timestamp, body)
        # No early exit on a match: the time taken says nothing about which entry verified.
        if any([hmac.compare_digest(expected, value) for value in offered]):
            return True
    return False
