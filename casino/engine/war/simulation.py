"""Many seeded games of one variant, summarised: the pure function the API and CLI call.

Game ``i`` of a simulation with seed ``S`` is the game with seed ``"S:i"``, so any game of a
simulation can be replayed on its own. Every seat is a computer (``greedy`` unless told);
games without choices for two players run on the simulation kernel (``fast.py``), which plays
them exactly as the game model would, only quicker.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from casino.engine.errors import InvalidRules
from casino.engine.war import fast
from casino.engine.war.fast import Outcome
from casino.engine.war.game import BATTLE_CAP, WarGame
from casino.engine.war.presets import build_rules
from casino.engine.war.results import EndReason
from casino.engine.war.rules import WarRules
from casino.engine.war.seats import SeatKind, SeatSpec

MAX_GAMES = 1_000_000
_UNFINISHED = (EndReason.CYCLE, EndReason.BATTLE_CAP)


def game_seed(seed: str | int, index: int) -> str:
    return f"{seed}:{index}"


def play_one(rules: WarRules, seed: str, seats: Sequence[SeatSpec] | None = None) -> Outcome:
    """One all-computer game to its end, on the kernel when it can play the rules."""
    if seats is None and fast.supported(rules):
        return fast.play(rules, seed)
    game = WarGame(rules, seed, seats, log=False)
    game.advance("end")
    result = game.result
    assert result is not None
    return Outcome(result.winners, result.reason, game.battles, game.wars)


def outcomes(
    rules: WarRules, games: int, seed: str | int, strategies: Sequence[str] | None = None
) -> Iterator[Outcome]:
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= MAX_GAMES:
        raise InvalidRules(f"a simulation plays 1 to {MAX_GAMES:,} games, not {games!r}")
    seats = _seats(rules, strategies)
    for i in range(games):
        yield play_one(rules, game_seed(seed, i), seats)


def _seats(rules: WarRules, strategies: Sequence[str] | None) -> list[SeatSpec] | None:
    if strategies is None:
        return None
    if len(strategies) != rules.seats:
        raise InvalidRules(f"give one strategy per seat ({rules.seats}), not {len(strategies)}")
    return [SeatSpec(SeatKind.COMPUTER, name) for name in strategies]


def summarise(rules: WarRules, results: Sequence[Outcome]) -> dict[str, Any]:
    battles = sorted(o.battles for o in results)
    n = len(battles)
    wins = [0] * rules.seats
    reasons: dict[str, int] = {}
    for o in results:
        reasons[o.reason.value] = reasons.get(o.reason.value, 0) + 1
        for seat in o.winners:
            wins[seat] += 1
    return {
        "games": n,
        "battles": {
            "mean": round(statistics.fmean(battles), 2),
            "median": statistics.median(battles),
            "p95": battles[max(0, math.ceil(0.95 * n) - 1)],
            "max": battles[-1],
        },
        "wars_per_game": round(statistics.fmean(o.wars for o in results), 3),
        "wins": wins,
        "draws": sum(1 for o in results if not o.winners),
        "cycles": reasons.get(EndReason.CYCLE.value, 0),
        "unfinished": sum(1 for o in results if o.reason in _UNFINISHED),
        "endings": dict(sorted(reasons.items())),
        "battle_cap": BATTLE_CAP,
    }


def length_histogram(battles: Sequence[int], bins: int = 40) -> list[dict[str, int]]:
    """Games by length in battles: at most about ``bins`` bins of one "nice" width (1, 2 or
    5 times a power of ten), ``low`` to ``high`` inclusive, every bin between the shortest
    and the longest game present (empty ones with 0), so the bins can be drawn as they come."""
    if not battles:
        return []
    lowest, highest = min(battles), max(battles)
    width = _nice_width((highest - lowest + 1) / max(1, bins))
    start = lowest - lowest % width
    counts = [0] * ((highest - start) // width + 1)
    for length in battles:
        counts[(length - start) // width] += 1
    return [
        {"low": start + i * width, "high": start + (i + 1) * width - 1, "games": count}
        for i, count in enumerate(counts)
    ]


def _nice_width(raw: float) -> int:
    power = 1
    while True:
        for step in (1, 2, 5):
            if step * power >= raw:
                return step * power
        power *= 10


def simulate(
    variant: str,
    options: Mapping[str, Any] | None = None,
    games: int = 1000,
    seed: str | int = 0,
    *,
    strategies: Sequence[str] | None = None,
) -> dict[str, Any]:
    """Play ``games`` seeded games of ``variant`` and summarise them.

    Returns ``battles`` (mean, median, p95 by nearest rank, max - over every game, draws and
    cycles included), ``wars_per_game``, ``wins`` per seat (a seat counts once per game it
    won; P'yanitsa can have several winners), ``draws``, ``cycles``, ``unfinished`` (cycles
    plus games stopped by the safety cap) and the count of each ending.
    """
    rules = build_rules(variant, options)
    results = list(outcomes(rules, games, seed, strategies))
    summary = summarise(rules, results)
    return {
        "variant": variant,
        "options": dict(options or {}),
        "rules": rules.to_dict(),
        "seed": str(seed),
        "strategies": list(strategies) if strategies else ["greedy"] * rules.seats,
        **summary,
    }


def simulate_bounded(
    variant: str,
    options: Mapping[str, Any] | None,
    games: int,
    seed: str,
    max_battles: int,
    max_seconds: float,
) -> dict[str, Any]:
    """Like ``simulate`` (greedy seats), stopping early - after at least one game - once the
    games played reach ``max_battles`` battles or ``max_seconds`` have passed.

    The summary covers the games played: ``games`` of ``games_requested``, ``complete``
    false and ``stopped_by`` (``battle_budget`` or ``time_limit``) when it stopped early.
    Standard library only, so a worker process runs it with nothing else imported.
    """
    rules = build_rules(variant, options)
    deadline = time.monotonic() + max_seconds
    results = []
    battles = 0
    stopped_by: str | None = None
    for outcome in outcomes(rules, games, seed):
        results.append(outcome)
        battles += outcome.battles
        if len(results) == games:
            break
        if battles >= max_battles:
            stopped_by = "battle_budget"
            break
        if time.monotonic() >= deadline:
            stopped_by = "time_limit"
            break
    summary = summarise(rules, results)
    return {
        "variant": variant,
        "options": dict(options or {}),
        "rules": rules.to_dict(),
        "seed": seed,
        "strategies": ["greedy"] * rules.seats,
        "games_requested": games,
        "complete": stopped_by is None,
        "stopped_by": stopped_by,
        "limits": {"max_battles": max_battles, "max_seconds": max_seconds},
        **summary,
        "length_histogram": length_histogram([outcome.battles for outcome in results]),
    }
