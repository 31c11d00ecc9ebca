"""Keep secrets out of logs: bearer tokens and server seeds never reach a log line.

The API itself never logs headers or bodies, and the engine is created with
``hide_parameters`` so SQL errors do not print bound values (token hashes, seeds). As a
second line of defence every log record is scrubbed when it is created, whichever library
logs it (werkzeug, gunicorn, SQLAlchemy...).
"""

from __future__ import annotations

import logging
import re
from typing import Any

_PATTERNS = (
    # Authorization: Bearer <token>
    (re.compile(r"(?i)(bearer\s+)[^\s'\",;]+"), r"\1[redacted]"),
    # server_seed=..., 'server_seed': '...', "server_seed": "..." (not server_seed_hash)
    (
        re.compile(r"(?i)(server_seed['\"]?\s*[:=]\s*(?:b?['\"])?)[0-9a-fx\\]{16,}"),
        r"\1[redacted]",
    ),
    # token=..., 'token': '...'
    (re.compile(r"(?i)(\btoken['\"]?\s*[:=]\s*['\"]?)[^\s'\",;&]+"), r"\1[redacted]"),
)
# Each pattern needs one of these words (in any case): text without them has nothing to
# redact, and most log lines (one per request) are checked with a casefold() and three
# finds. casefold, not lower: the patterns' (?i) also matches e.g. U+017F for "s".
_TRIGGERS = ("bearer", "server_seed", "token")
_installed = False
_TRACEBACKS = logging.Formatter()


def redact(text: str) -> str:
    folded = text.casefold()
    if not any(trigger in folded for trigger in _TRIGGERS):
        return text
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def install() -> None:
    """Wrap the log record factory once per process."""
    global _installed
    if _installed:
        return
    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        try:
            message = record.getMessage()
        except Exception:  # a broken format string is the logger's problem, not ours
            return record
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and not record.exc_text:
            # Formatters reuse exc_text when it is set, so the traceback (whose exception
            # messages may quote a header or a value) is scrubbed once, here.
            record.exc_text = redact(_TRACEBACKS.formatException(record.exc_info))
        return record

    logging.setLogRecordFactory(factory)
    _installed = True
