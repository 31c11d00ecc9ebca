"""Choices a seat makes, the moves that answer them, and the error for a wrong move.

A move is a small JSON object: ``{"action": "play"}``, ``{"action": "steal"}`` (every
matching pile) or ``{"action": "steal", "from": [1, 3]}`` (Steal War: those piles only),
``{"action": "play", "card": "QH"}`` (hand of three) or ``{"action": "top", "card": "9S"}``
(Steal War: which won card lies on top of the capture pile).
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from casino.engine.errors import IllegalAction

Move = dict[str, Any]


class DecisionKind(StrEnum):
    STEAL_OR_PLAY = "steal-or-play"  # Steal War: the card looked at matches a capture pile
    HAND_CARD = "hand-card"  # hand of three: which card of the hand to play
    PILE_TOP = "pile-top"  # Steal War: which won card goes on top of the capture pile


@dataclass(frozen=True)
class Decision:
    """A choice awaited from one seat, with every legal move and what the seat can see."""

    seat: int
    kind: DecisionKind
    legal: tuple[Move, ...]
    context: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "kind": self.kind.value,
            "legal": [dict(m) for m in self.legal],
            "context": dict(self.context),
        }


class IllegalMove(IllegalAction):
    """A move the game does not allow now; ``legal`` lists those it does (maybe none)."""

    def __init__(self, detail: str, legal: tuple[Move, ...] | list[Move] = ()) -> None:
        self.legal = [dict(m) for m in legal]
        if self.legal:
            listed = "; ".join(describe(m) for m in self.legal)
            detail = f"{detail}; legal moves: {listed}"
        super().__init__(detail)


def describe(move: Mapping[str, Any]) -> str:
    parts = [str(move.get("action"))]
    parts += [f"{k}={v}" for k, v in move.items() if k != "action"]
    return " ".join(parts)


def normalise(move: object) -> Move:
    """The canonical form of a move as received (card codes upper-case, no stray types)."""
    if not isinstance(move, Mapping):
        raise IllegalMove(f"a move is an object with an 'action', not {move!r}")
    out: Move = {}
    for key, value in move.items():
        if not isinstance(key, str):
            raise IllegalMove(f"move keys are text, not {key!r}")
        if key == "card" and isinstance(value, str):
            value = value.strip().upper()
        elif key == "from" and isinstance(value, list) and all(type(v) is int for v in value):
            value = sorted(value)  # the piles to steal, as a set
        out[key] = value
    if isinstance(out.get("action"), str):
        out["action"] = out["action"].strip().lower()
    return out


#: A battle in progress: yields the decisions it needs, receives the moves by seat.
BattleGen = Generator[list[Decision], dict[int, Move], None]
