"""What a follower of a shared table sees: events as plain data.

Each step of a round emits its events; a table numbers them 1, 2, ... across rounds and
shoes (``RoundState.seq`` is the last number used), so a follower resumes after the last id
it saw, and a step re-run from the same stored state emits the same events with the same
ids. The dealer stores a step's events with the state it produced, in one transaction, and
publishes them only then. Every event names its shoe and round (``shoe_changed``: round 0).

| type | data |
|---|---|
| ``shoe_changed`` | the new shoe (``SharedShoe.public()``: index, commitment, burn, |
| | cut); ``previous``: the shoe just over, revealed (its seed), or null |
| ``round_opened`` | ``closes_at``, ``betting_seconds`` |
| ``bets_closed`` | ``bettors``, ``antes`` |
| ``cards`` | ``player_card``, ``dealer_card``, ``winner`` (player, dealer or tie) |
| ``decisions_due`` | ``deadline``, ``decision_seconds``, ``antes`` (the bettors deciding) |
| ``war`` | ``war`` (1, 2, ...), ``burnt`` (3, face down: the revealed shoe shows them), |
| | ``player_card``, ``dealer_card``, ``tie``, ``at_war`` |
| ``results`` | the face-up cards and wars, ``winner``, ``ties``, ``bettors``, ``antes``, |
| | ``at_war``, ``last_of_shoe`` |
| ``round_voided`` | ``reason`` |
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any


class EventType(StrEnum):
    SHOE_CHANGED = "shoe_changed"
    ROUND_OPENED = "round_opened"
    BETS_CLOSED = "bets_closed"
    CARDS = "cards"
    DECISIONS_DUE = "decisions_due"
    WAR = "war"
    RESULTS = "results"
    ROUND_VOIDED = "round_voided"


@dataclass(frozen=True)
class Event:
    id: int
    type: EventType
    shoe: int
    round: int
    at: datetime
    data: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type.value,
            "shoe": self.shoe,
            "round": self.round,
            "at": self.at.isoformat(),
            "data": dict(self.data),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Event:
        return cls(
            id=int(data["id"]),
            type=EventType(data["type"]),
            shoe=int(data["shoe"]),
            round=int(data["round"]),
            at=datetime.fromisoformat(data["at"]),
            data=dict(data.get("data", {})),
        )
