"""Free-play War and its relatives on the shared card engine (pure, standard library only).

The API the service and the CLI use:

* ``variant_catalogue()`` - every preset with its description and option schema;
* ``new_game(variant, options, seed, seats, human_seat=...)`` - a ``WarGame`` (raises
  ``InvalidRules``); ``human_seat`` picks the human's seat, or ``"draw"`` draws it;
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
from casino.engine.war.randomness import draw_seat, validate_seed
from casino.engine.war.records import CorruptRecord
from casino.engine.war.results import EndReason, GameResult
from casino.engine.war.rules import WarRules
from casino.engine.war.seats import SeatKind, SeatSpec
from casino.engine.war.simulation import simulate
from casino.engine.war.strategies import STRATEGIES

__all__ = [
    "BATTLE_CAP",
    "DRAW_SEAT",
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
    "draw_seat",
    "new_game",
    "parse_option_value",
    "preset",
    "resolve_human_seat",
    "seats_from_json",
    "simulate",
    "variant_catalogue",
]


#: ``human_seat`` value asking for the human's seat to be drawn from the game's seed.
DRAW_SEAT = "draw"


def default_seats(count: int, human_seat: int = 0, strategy: str = "greedy") -> list[SeatSpec]:
    """One human at ``human_seat`` (seat 0 unless told), the others computers."""
    computer = SeatSpec(SeatKind.COMPUTER, strategy)
    return [SeatSpec(SeatKind.HUMAN) if s == human_seat else computer for s in range(count)]


def resolve_human_seat(human_seat: int | str, seed: str, count: int) -> int:
    """The human's seat: a seat number, or ``"draw"`` for ``draw_seat(seed, count)``.

    Seats are not equal in every variant (with a fixed return order the later seat wins
    more often: docs/war-variants.md), so a player may pick its seat or have it drawn."""
    if human_seat == DRAW_SEAT:
        return draw_seat(seed, count)
    if type(human_seat) is not int or not 0 <= human_seat < count:
        raise InvalidRules(
            f"human_seat must be a seat from 0 to {count - 1} or {DRAW_SEAT!r}, not {human_seat!r}"
        )
    return human_seat


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
    human_seat: int | str | None = None,
    log: bool = True,
) -> WarGame:
    """A new game of a preset. Without a seed one is drawn (and revealed when the game ends);
    without seats, one seat is a human and the rest are ``greedy`` computers: seat 0, or
    ``human_seat`` (a seat number, or ``"draw"`` to draw it from the seed). ``human_seat``
    and ``seats`` do not go together (the seat list already says who sits where)."""
    rules = build_rules(variant, options)
    game_seed = seed if seed is not None else secrets.token_hex(16)
    specs: list[SeatSpec]
    if human_seat is not None:
        if seats is not None:
            raise InvalidRules("give either seats or human_seat, not both")
        validate_seed(game_seed)
        specs = default_seats(rules.seats, resolve_human_seat(human_seat, game_seed, rules.seats))
    elif seats and all(isinstance(s, SeatSpec) for s in seats):
        specs = [s for s in seats if isinstance(s, SeatSpec)]
    else:
        specs = seats_from_json(seats, rules.seats)
    return WarGame(
        rules,
        game_seed,
        specs,
        variant=variant,
        options=dict(options or {}),
        log=log,
    )
