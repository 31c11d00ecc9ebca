"""Row ids whose order follows time (RFC 9562 UUID version 7).

A random id (version 4) sends every insert to a random page of its primary-key index: once
the index outgrows the database's cache, a bet reads (and later writes back) an index page
from outside it, and a bet's cost grows with the history. A version-7 id starts with the
millisecond it was made, so inserts land on the index's right-hand edge, which stays in the
cache however long the history (docs/performance.md, "Growth"). The rest is 74 bits from the
operating system's CSPRNG: ids stay unguessable enough to be unique across processes, and
they are never a credential (every read checks who asks).
"""

from __future__ import annotations

import os
import time
import uuid


def time_ordered_uuid(now_ms: int | None = None) -> str:
    """A new UUID version 7, as the canonical 36-character string (sorts by time as text)."""
    millis = time.time_ns() // 1_000_000 if now_ms is None else now_ms
    random = int.from_bytes(os.urandom(10), "big")
    rand_a = random >> 68  # 12 bits
    rand_b = random & ((1 << 62) - 1)  # 62 bits
    value = (millis & ((1 << 48) - 1)) << 80 | 0x7 << 76 | rand_a << 64 | 0b10 << 62 | rand_b
    return str(uuid.UUID(int=value))
