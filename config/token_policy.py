"""What production accepts as an operator token in ``CASINO_OPERATOR_TOKENS``.

An operator token moves money, so it must not be guessable: at least 32 characters, drawn
from a reasonable alphabet, with no placeholder word or run that a person would type. A
token from ``casino create-operator-token``, ``openssl rand -hex 32`` or
``python -c "import secrets; print(secrets.token_urlsafe(32))"`` passes; "changeme…",
"aaaa…" or "0123456789…" do not.
"""

from __future__ import annotations

import secrets

MIN_LENGTH = 32
MIN_DISTINCT = 8
#: Words that mark a token as typed by hand (checked case-insensitively).
PLACEHOLDERS = (
    "changeme",
    "password",
    "secret",
    "example",
    "placeholder",
    "default",
    "letmein",
    "qwerty",
    "admin",
    "test",
    "demo",
    "token",
)
_RUNS = ("0123456789", "abcdefghijklmnopqrstuvwxyz")
_RUN_LENGTH = 6


def weakness(token: str) -> str | None:
    """Why ``token`` is too weak for production, or None when it is acceptable."""
    if len(token) < MIN_LENGTH:
        return f"shorter than {MIN_LENGTH} characters"
    if len(set(token)) < MIN_DISTINCT:
        return f"fewer than {MIN_DISTINCT} distinct characters"
    lowered = token.lower()
    for word in PLACEHOLDERS:
        if word in lowered:
            return f"contains the placeholder word {word!r}"
    for run in _RUNS:
        for start in range(len(run) - _RUN_LENGTH + 1):
            piece = run[start : start + _RUN_LENGTH]
            if piece in lowered or piece[::-1] in lowered:
                return f"contains the run {piece!r}"
    return None


def random_token(prefix: str = "") -> str:
    """A random token that this policy accepts.

    About one ``secrets.token_urlsafe(32)`` in two thousand spells a placeholder word by
    chance ("test", "demo", ...); drawing again costs nothing and keeps generated tokens
    (and the test suites' random ones) from being refused at start-up.
    """
    while True:
        token = prefix + secrets.token_urlsafe(32)
        if weakness(token) is None:
            return token
