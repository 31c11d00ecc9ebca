"""Who sits at a War table: a human (choices come through the API) or a computer strategy."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from casino.engine.errors import InvalidRules
from casino.engine.war import strategies


class SeatKind(StrEnum):
    HUMAN = "human"
    COMPUTER = "computer"


@dataclass(frozen=True)
class SeatSpec:
    kind: SeatKind = SeatKind.COMPUTER
    strategy: str | None = "greedy"

    def __post_init__(self) -> None:
        kind = SeatKind(self.kind) if not isinstance(self.kind, SeatKind) else self.kind
        object.__setattr__(self, "kind", kind)
        if kind is SeatKind.HUMAN:
            object.__setattr__(self, "strategy", None)
        else:
            strategies.strategy(self.strategy or "greedy")
            object.__setattr__(self, "strategy", self.strategy or "greedy")

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind.value, "strategy": self.strategy}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SeatSpec:
        kind = data.get("type", "computer")
        if kind not in ("human", "computer"):
            raise InvalidRules(f"seat type must be 'human' or 'computer', not {kind!r}")
        return cls(SeatKind(kind), data.get("strategy"))
