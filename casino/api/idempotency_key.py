"""The ``Idempotency-Key`` request header: its name and what a well-formed value is.

Shared by the idempotency decorator (which refuses a missing or malformed key) and by
authentication (which looks the key up in its own round trip when it can).
"""

from __future__ import annotations

import re

from flask import request

HEADER = "Idempotency-Key"
#: Visible ASCII, as the spec says it (the server also strips blanks around it).
KEY_PATTERN = r"^[!-~]{1,255}$"
_KEY = re.compile(KEY_PATTERN)


def well_formed(key: str) -> bool:
    """1 to 255 visible ASCII characters (after stripping surrounding blanks)."""
    return _KEY.fullmatch(key.strip()) is not None  # fullmatch: no newline before $


def request_key() -> str | None:
    """The request's key, stripped, when present and well formed; else None."""
    key = request.headers.get(HEADER)
    if key is None or not well_formed(key):
        return None
    return key.strip()
