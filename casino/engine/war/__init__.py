"""Free-play War and its relatives on the shared card engine (pure, standard library only).

The API the service and the CLI use:

* ``variant_catalogue()`` - every preset with its description and option schema;
* ``new_game(variant, options, seed, seats)`` - a ``WarGame`` (raises ``InvalidRules``);
* ``game.view(seat)`` - what a seat may see (JSON-ready), with its pending decision;
* ``game.apply(seat, move)`` - a human move (raises ``IllegalMove`` listing the legal ones);
* ``game.advance("battle" | "decision" | "end")`` - autoplay;
* ``game.to_dict()`` / ``WarGame.from_dict(data)`` - JSON record (seed + moves, replayed and
  checked on load; raises ``CorruptRecord``);
* ``simulate(variant, options, games, seed)`` - statistics of many seeded games.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from casino.engine.errors import IllegalAction, InvalidRules, InvalidSeed
from casino.engine.war.decisions import Decision, DecisionKind, IllegalMove, Move
from casino.engine.war.game import BATTLE_CAP, WarGame
from casino.engine.war.presets import (
    PRESETS,
    build_rules,
    parse_option_value,
    preset,
    variant_catalogue,
)
from casino.engine.war.records import CorruptRecord
from casino.engine.war.results import EndReason, GameResult
from casino.engine.war.rules import WarRules
from casino.engine.war.seats import SeatKind, SeatSpec
from casino.engine.war.simulation import simulate
from casino.engine.war.strategies import STRATEGIES

__all__ = [
    "BATTLE_CAP",
    "PRESETS",
    "STRATEGIES",
    "CorruptRecord",
    "Decision",
    "DecisionKind",
    "EndReason",
    "GameResult",
    "IllegalAction",
    "IllegalMove",
    "InvalidRules",
    "InvalidSeed",
    "Move",
    "SeatKind",
    "SeatSpec",
    "WarGame",
    "WarRules",
    "build_rules",
    "default_seats",
    "new_game",
    "parse_option_value",
    "preset",
    "seats_from_json",
    "simulate",
    "variant_catalogue",
]


def default_seats(count: int) -> list[SeatSpec]:
    """Seat 0 is a human, the others play ``greedy``."""
    return [SeatSpec(SeatKind.HUMAN)] + [SeatSpec(SeatKind.COMPUTER, "greedy")] * (count - 1)


def seats_from_json(data: Sequence[Any] | None, count: int) -> list[SeatSpec]:
    """``[{"type": "human" | "computer", "strategy"?: name}, ...]``, one per seat."""
    if data is None:
        return default_seats(count)
    if len(data) != count:
        raise InvalidRules(f"this game seats {count} players: give {count} seats, not {len(data)}")
    seats = []
    for item in data:
        if not isinstance(item, Mapping):
            raise InvalidRules("each seat is an object with a 'type'")
        unknown = set(item) - {"type", "strategy"}
        if unknown:
            raise InvalidRules(f"unknown seat field(s): {', '.join(sorted(unknown))}")
        if item.get("type") == "human" and item.get("strategy") is not None:
            raise InvalidRules("a human seat has no strategy")
        seats.append(SeatSpec.from_dict(dict(item)))
    return seats


def new_game(
    variant: str,
    options: Mapping[str, Any] | None = None,
    seed: str | None = None,
    seats: Sequence[Mapping[str, Any]] | Sequence[SeatSpec] | None = None,
    *,
    log: bool = True,
) -> WarGame:
    """A new game of a preset. Without a seed one is drawn (and revealed when the game ends);
    without seats, seat 0 is a human and the rest are ``greedy`` computers."""
    rules = build_rules(variant, options)
    specs: list[SeatSpec]
    if seats and all(isinstance(s, SeatSpec) for s in seats):
        specs = [s for s in seats if isinstance(s, SeatSpec)]
    else:
        specs = seats_from_json(seats, rules.seats)
    return WarGame(
        rules,
        seed if seed is not None else secrets.token_hex(16),
        specs,
        variant=variant,
        options=dict(options or {}),
        log=log,
    )
