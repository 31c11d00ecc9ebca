"""Texts the API words for people, in the request's language (casino/api/language.py): a
reality check's message and a statement's summary. Figures stay numbers beside them."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from casino.i18n import clock_time, moment, money, plural_text, text


def reality_check_message(language: str, check: Mapping[str, Any]) -> str:
    """In words: "You have been playing for 62 minutes (since 14:02 UTC). You asked for a
    reality check every 60 minutes." UTC's time: the server knows no player's time zone."""
    started = check["session_started_at"]
    since = clock_time(language, started if isinstance(started, datetime) else _parse(started))
    return " ".join(
        (
            plural_text(language, "reality.played", int(check["minutes_played"]), since=since),
            plural_text(language, "reality.interval", int(check["interval_minutes"])),
        )
    )


def statement_title(language: str, start: datetime, end: datetime) -> str:
    start_text, end_text = moment(language, start), moment(language, end)
    return text(language, "statement.title", start=start_text, end=end_text)


def statement_summary(language: str, line: Any) -> str:
    """One currency's line in words, amounts the language's way ("1.234,50 €")."""

    def m(minor: int) -> str:
        return money(language, minor, line.currency)

    return text(
        language,
        "statement.summary",
        currency=line.currency,
        opening=m(line.opening_balance),
        deposits=m(line.deposits),
        withdrawals=m(line.withdrawals),
        wagered=m(line.wagered),
        won=m(line.won),
        net=m(line.net),
        closing=m(line.closing_balance),
        rounds=plural_text(language, "statement.rounds", line.rounds),
    )


def _parse(value: str) -> datetime:
    return datetime.fromisoformat(value)
