"""How a War game ended."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class EndReason(StrEnum):
    ALL_CARDS = "all-cards"
    THREE_WARS = "three-wars"
    ONE_PASS = "one-pass"
    HOLDER_LOSES = "holder-loses"
    FIRST_OUT_LOSES = "first-out-loses"
    BATTLE_LIMIT = "battle-limit"
    VOID = "void"  # every player still holding cards ran out in the same tied war
    CYCLE = "cycle"
    BATTLE_CAP = "battle-cap"


@dataclass(frozen=True)
class GameResult:
    winners: tuple[int, ...]
    losers: tuple[int, ...]
    reason: EndReason
    battles: int

    @property
    def draw(self) -> bool:
        return not self.winners

    def to_dict(self) -> dict[str, Any]:
        return {
            "outcome": "draw" if self.draw else "win",
            "winners": list(self.winners),
            "losers": list(self.losers),
            "reason": self.reason.value,
            "battles": self.battles,
        }
