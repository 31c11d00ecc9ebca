"""The rules of a shared table: a Casino War table's rules, plus its clock.

A shared table deals one round for everyone on it, so a bettor plays one hand (``max_hands``
1, dealt by the classic procedure: the player's card, then the dealer's) and a tied hand
waits for its bettor's decision only as long as the table's decision clock allows
(``decision_seconds``, required: the round cannot wait for everyone forever). Every other rule
of ``TableRules`` (tie pays, war ties push/bonus/repeat, the tie ladder, the war tie bet,
tie-only bets, surrender) applies as at a private table.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from casino.engine.casino_war import TableRules
from casino.engine.errors import InvalidRules

MIN_BETTING_SECONDS = 5
MAX_BETTING_SECONDS = 120
MAX_PAUSE_SECONDS = 60
DEFAULT_DECKS = 8
DEFAULT_DECISION_SECONDS = 10


def default_table() -> TableRules:
    return TableRules(decks=DEFAULT_DECKS, decision_seconds=DEFAULT_DECISION_SECONDS)


@dataclass(frozen=True)
class SharedRules:
    """A shared table: the Casino War rules every bettor plays under, how long bets are
    taken (``betting_seconds``) and the pause between a settled round and the next."""

    table: TableRules = field(default_factory=default_table)
    betting_seconds: int = 15
    pause_seconds: int = 5

    def __post_init__(self) -> None:
        table = self.table
        if not isinstance(table, TableRules):
            raise InvalidRules("a shared table's rules are TableRules")
        if table.max_hands != 1:
            raise InvalidRules(
                "a shared table deals one hand per bettor: max_hands must be 1", rule="max_hands"
            )
        if table.decision_seconds is None:
            raise InvalidRules(
                "a shared table needs a decision clock (decision_seconds): the round waits for "
                "a tied bettor's decision only that long",
                rule="decision_seconds",
            )
        _check_seconds(
            "betting_seconds", self.betting_seconds, MIN_BETTING_SECONDS, MAX_BETTING_SECONDS
        )
        _check_seconds("pause_seconds", self.pause_seconds, 0, MAX_PAUSE_SECONDS)

    @property
    def decks(self) -> int:
        return self.table.decks

    @property
    def betting_window(self) -> timedelta:
        return timedelta(seconds=self.betting_seconds)

    @property
    def decision_window(self) -> timedelta:
        seconds = self.table.decision_seconds
        assert seconds is not None  # checked at creation
        return timedelta(seconds=seconds)

    @property
    def pause(self) -> timedelta:
        return timedelta(seconds=self.pause_seconds)

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table.to_dict(),
            "betting_seconds": self.betting_seconds,
            "pause_seconds": self.pause_seconds,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SharedRules:
        """The dict form; a table without ``decks`` has the shared default, 8."""
        unknown = sorted(set(data) - {"table", "betting_seconds", "pause_seconds"})
        if unknown:
            raise InvalidRules(
                f"unknown shared table rule(s): {', '.join(unknown)}",
                code="unknown_rule",
                rule=unknown[0],
            )
        table = dict(data.get("table", {}))
        table.setdefault("decks", DEFAULT_DECKS)
        table.setdefault("decision_seconds", DEFAULT_DECISION_SECONDS)
        return cls(
            TableRules.from_dict(table),
            data.get("betting_seconds", 15),
            data.get("pause_seconds", 5),
        )


def _check_seconds(name: str, value: object, low: int, high: int) -> None:
    if type(value) is not int or not low <= value <= high:
        raise InvalidRules(f"{name} must be a whole number from {low} to {high}", rule=name)
