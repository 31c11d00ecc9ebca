"""Where a shared round stands, as small plain data a dealer stores after every step.

Phases, in order (``steps`` moves a round from one to the next)::

    betting -> closed -> dealt ------------------------------> settled -> (next round)
                           \\-> decisions -> war ----------/
                           \\-> war (a tie nobody has to decide) -/
    any phase before settled -> voided -> (next round)

* ``betting``: bets are taken until ``closes_at``;
* ``closed``: no more bets; ``bettors`` and ``antes`` count them (from the dealer's book);
* ``dealt``: the player's and dealer's cards are out and settle every bet (no tie);
* ``decisions``: a tie: every bettor with an ante decides, war or surrender, until
  ``deadline``; the clock surrenders for whoever did not;
* ``war``: the war (and any repeated wars) dealt: every bet can be settled;
* ``settled``: every bet paid; the next round opens at ``next_at``;
* ``voided``: the round could not complete; its bets are returned (the service's part).

The state holds no bettor: bets and decisions are stored per bettor (``SharedBet``), so a
round's state stays a few hundred bytes whatever the number of bettors.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import datetime
from enum import StrEnum
from typing import Any


class Phase(StrEnum):
    BETTING = "betting"
    CLOSED = "closed"
    DEALT = "dealt"
    DECISIONS = "decisions"
    WAR = "war"
    SETTLED = "settled"
    VOIDED = "voided"


#: Phases in which every bet of the round can be settled: the cards are all out.
FINAL_CARDS = frozenset({Phase.DEALT, Phase.WAR})
#: Phases after which the next round may open.
OVER = frozenset({Phase.SETTLED, Phase.VOIDED})


def check_clock(now: datetime) -> datetime:
    if not isinstance(now, datetime) or now.utcoffset() is None:
        raise ValueError("the clock is a timezone-aware datetime")
    return now


def _time(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _parse_time(value: Any) -> datetime | None:
    return None if value is None else check_clock(datetime.fromisoformat(value))


@dataclass(frozen=True)
class RoundState:
    """One round of a shared table: which shoe (its index in the chain) and which round of
    it (1, 2, ...) starting at which position, its phase and times, the cards turned face up
    so far (codes in dealing order: player, dealer, then each war's two; the burns are face
    down and stay out of the state until the shoe is revealed) and ``seq``, the id of the
    last event the table emitted (numbered 1, 2, ... per table, across rounds and shoes)."""

    shoe: int
    round: int
    start: int
    phase: Phase
    seq: int
    opened_at: datetime
    closes_at: datetime
    bettors: int = 0
    antes: int = 0
    cards: tuple[str, ...] = ()
    wars: int = 0
    deadline: datetime | None = None
    at_war: int = 0
    finished_at: datetime | None = None
    next_at: datetime | None = None
    void_reason: str | None = None

    def but(self, **changes: Any) -> RoundState:
        """A copy with ``changes`` (field names only: every step stores one)."""
        unknown = changes.keys() - _FIELDS
        if unknown:
            raise TypeError(f"RoundState has no field(s) {sorted(unknown)}")
        # dataclasses.replace re-runs __init__ field by field: a third of a step's cost.
        copy = object.__new__(RoundState)
        copy.__dict__.update(self.__dict__)
        copy.__dict__.update(changes)
        return copy

    @property
    def due_at(self) -> datetime | None:
        """When the round's next step is due; None: at once (the cards are out and the bets
        wait to be settled; bets closed and the cards wait to be dealt)."""
        phase = self.phase
        if phase is Phase.BETTING:
            return self.closes_at
        if phase is Phase.DECISIONS:
            return self.deadline
        if phase in OVER:
            return self.next_at
        return None

    @property
    def next_step(self) -> str:
        """The name of the ``steps`` function that moves the round on."""
        return _NEXT_STEP[self.phase]

    def to_dict(self) -> dict[str, Any]:
        return {
            "shoe": self.shoe,
            "round": self.round,
            "start": self.start,
            "phase": self.phase.value,
            "seq": self.seq,
            "opened_at": _time(self.opened_at),
            "closes_at": _time(self.closes_at),
            "bettors": self.bettors,
            "antes": self.antes,
            "cards": list(self.cards),
            "wars": self.wars,
            "deadline": _time(self.deadline),
            "at_war": self.at_war,
            "finished_at": _time(self.finished_at),
            "next_at": _time(self.next_at),
            "void_reason": self.void_reason,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RoundState:
        opened, closes = _parse_time(data["opened_at"]), _parse_time(data["closes_at"])
        assert opened is not None and closes is not None
        return cls(
            shoe=int(data["shoe"]),
            round=int(data["round"]),
            start=int(data["start"]),
            phase=Phase(data["phase"]),
            seq=int(data["seq"]),
            opened_at=opened,
            closes_at=closes,
            bettors=int(data.get("bettors", 0)),
            antes=int(data.get("antes", 0)),
            cards=tuple(data.get("cards", ())),
            wars=int(data.get("wars", 0)),
            deadline=_parse_time(data.get("deadline")),
            at_war=int(data.get("at_war", 0)),
            finished_at=_parse_time(data.get("finished_at")),
            next_at=_parse_time(data.get("next_at")),
            void_reason=data.get("void_reason"),
        )


_FIELDS = frozenset(f.name for f in fields(RoundState))
_NEXT_STEP = {
    Phase.BETTING: "close_betting",
    Phase.CLOSED: "deal",
    Phase.DEALT: "settle",
    Phase.DECISIONS: "close_decisions",
    Phase.WAR: "settle",
    Phase.SETTLED: "next_round",
    Phase.VOIDED: "next_round",
}
