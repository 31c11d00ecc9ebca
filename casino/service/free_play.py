"""Free-play War use cases over a unit of work: create, view, move, autoplay, simulate.

Games are stored in the database (`casino.store.free_play_models.FreePlayGame`) so that any
worker can serve the next move. A stored game is the engine's JSON record (seed, seats and
the moves made); each request replays it, acts, and writes the new record back. Writers lock
the row (``SELECT … FOR UPDATE`` on PostgreSQL; SQLite transactions take the write lock when
they begin), and the row's version counter refuses a write based on a stale read, so two
moves on one game can never both apply to the same position. The caller commits.

No money is involved and nothing here needs a player. A game belongs to whoever created it:
creation hands out a game token (stored only as its SHA-256), and every later use case takes
it; without the right one a game answers as if it did not exist (its hidden hands and its
moves are its owner's alone).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from casino.engine.war import (
    CorruptRecord,
    IllegalMove,
    SeatKind,
    WarGame,
    build_rules,
    new_game,
    variant_catalogue,
)
from casino.engine.war.simulation import simulate_bounded
from casino.service.errors import Conflict, Invalid, NotFound
from casino.store.free_play import GameRecord, StaleGame
from casino.store.free_play_records import (
    AWAITING_DECISION,
    FINISHED,
    IN_PROGRESS,
)
from casino.store.types import utcnow
from casino.store.uow import UnitOfWork

log = logging.getLogger(__name__)

#: Most games one simulation request may ask for.
MAX_SIMULATION_GAMES = 10_000
#: Default work bounds of one simulation request (the API reads its own from the app config).
DEFAULT_SIMULATION_MAX_BATTLES = 5_000_000
DEFAULT_SIMULATION_MAX_SECONDS = 10.0
UNTIL = ("battle", "decision", "end")
GAME_TOKEN_PREFIX = "gm_"

# The engine's view status -> the API's (and the stored column's) spelling.
_STATUS = {
    "in-progress": IN_PROGRESS,
    "awaiting-decision": AWAITING_DECISION,
    "finished": FINISHED,
}


@dataclass(frozen=True)
class SimulationLimits:
    """Bounds on one simulation request: after the game that reaches either, it stops.

    ``max_battles`` is deterministic (the same request stops at the same game every time);
    ``max_seconds`` is the safety net for the slow variants (choices, several seats), whose
    battles cost up to fifty times those of two-player War.
    """

    max_battles: int = DEFAULT_SIMULATION_MAX_BATTLES
    max_seconds: float = DEFAULT_SIMULATION_MAX_SECONDS


# ---------------------------------------------------------------- variants


def variants() -> list[dict[str, Any]]:
    """Every preset with its description, base rules and option schema."""
    return variant_catalogue()


# ---------------------------------------------------------------- games


def create_game(
    uow: UnitOfWork,
    variant: str,
    options: Mapping[str, Any] | None = None,
    seed: str | None = None,
    seats: Sequence[Mapping[str, Any]] | None = None,
    human_seat: int | str | None = None,
) -> dict[str, Any]:
    """A new game, dealt and stored; nothing is played until a move or an autoplay.

    The view carries ``token``, the game token every later request needs; it is shown
    this once (only its hash is kept).

    ``human_seat``: with the default seats, where the human sits (a seat number, or
    ``"draw"`` to draw it from the game's seed). Raises the engine's ``InvalidRules``
    (unknown variant, option, seat list or seat; seats and human_seat together) or
    ``InvalidSeed``.
    """
    specs = [dict(s) for s in seats] if seats is not None else None
    game = new_game(variant, dict(options or {}), seed, specs, human_seat=human_seat)
    now = utcnow()
    token = GAME_TOKEN_PREFIX + secrets.token_urlsafe(32)
    row = uow.free_play.add(
        game_id=str(uuid.uuid4()),
        variant=variant,
        status=_status(game),
        state=game.to_dict(),
        created_at=now,
        owner_hash=_token_hash(token),
    )
    return {**_view(row, game, None, None), "token": token}


def get_game(
    uow: UnitOfWork,
    game_id: str,
    seat: int | None = None,
    log_tail: int | None = None,
    *,
    token: str | None,
) -> dict[str, Any]:
    """The game as ``seat`` may see it (default: its only human seat, else a spectator)."""
    row = _require(uow, game_id, token, lock=False)
    return _view(row, _replay(row), seat, log_tail)


def make_move(
    uow: UnitOfWork,
    game_id: str,
    move: Mapping[str, Any],
    seat: int | None = None,
    log_tail: int | None = None,
    *,
    token: str | None,
) -> dict[str, Any]:
    """A human seat's move; play goes on to the end of the battle or the next choice.

    ``seat`` may be left out when the game has exactly one human seat. An illegal move is a
    ``Conflict`` ``illegal_move`` whose ``legal`` member lists the moves that are.
    """
    row = _require(uow, game_id, token, lock=True)
    game = _replay(row)
    if game.finished:
        raise Conflict("The game is over.", code="game_finished", legal=[])
    mover = _mover(game, seat)
    try:
        game.apply(mover, dict(move))
    except IllegalMove as error:
        raise Conflict(
            error.detail,
            code="illegal_move",
            seat=mover,
            legal=error.legal,
            pending=[{"seat": d.seat, "kind": d.kind.value} for d in game.pending],
        ) from None
    row = _store(uow, row, game)
    return _view(row, game, mover, log_tail)


def autoplay(
    uow: UnitOfWork,
    game_id: str,
    until: str,
    seat: int | None = None,
    log_tail: int | None = None,
    *,
    token: str | None,
) -> dict[str, Any]:
    """Play on until one more ``battle`` is done, a human must choose (``decision``) or the
    game is over (``end``; pending human choices are then made by ``greedy`` and recorded)."""
    if until not in UNTIL:
        raise Invalid(f"until must be one of {', '.join(UNTIL)}", code="invalid_until")
    row = _require(uow, game_id, token, lock=True)
    game = _replay(row)
    viewer = _viewer(game, seat)
    if not game.finished:
        game.advance(until)
        row = _store(uow, row, game)
    return _view(row, game, viewer, log_tail)


# ---------------------------------------------------------------- simulations


def simulate(
    variant: str,
    options: Mapping[str, Any] | None,
    games: int,
    seed: str,
    limits: SimulationLimits | None = None,
) -> dict[str, Any]:
    """Statistics of up to ``games`` seeded all-computer games (game ``i`` has seed
    ``"<seed>:i"``), stopping early - after at least one game - at the request's bounds.

    The summary covers the games played: ``games`` of ``games_requested``, ``complete``
    false and ``stopped_by`` (``battle_budget`` or ``time_limit``) when it stopped early.
    """
    bounds = limits or SimulationLimits()
    check_simulation(variant, options, games)
    return simulate_bounded(variant, options, games, seed, bounds.max_battles, bounds.max_seconds)


def check_simulation(variant: str, options: Mapping[str, Any] | None, games: int) -> None:
    """Refuse a simulation request before any work: ``Invalid`` for the game count, the
    engine's ``InvalidRules`` for the variant and options."""
    if isinstance(games, bool) or not isinstance(games, int):
        raise Invalid("games must be an integer", code="invalid_games")
    if not 1 <= games <= MAX_SIMULATION_GAMES:
        raise Invalid(
            f"a simulation plays 1 to {MAX_SIMULATION_GAMES:,} games", code="invalid_games"
        )
    build_rules(variant, options)


# ---------------------------------------------------------------- helpers


def _require(uow: UnitOfWork, game_id: str, token: str | None, *, lock: bool) -> GameRecord:
    """The game, for the bearer of its token; anyone else is told it does not exist."""
    row = uow.free_play.get(game_id, lock=lock)
    if row is None or not _owns(row, token):
        raise NotFound("no such game", code="game_not_found")
    return row


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _owns(row: GameRecord, token: str | None) -> bool:
    if row.owner_hash is None or not token:
        return False
    return hmac.compare_digest(_token_hash(token), row.owner_hash)


def _replay(row: GameRecord) -> WarGame:
    try:
        return WarGame.from_dict(row.state)
    except CorruptRecord:
        # The record no longer replays to its digest: the rules engine changed under it.
        log.error("free-play game %s does not replay on this engine version", row.id)
        raise Conflict(
            "This game was recorded by another version of the game engine and cannot be "
            "continued; start a new game.",
            code="game_unreplayable",
        ) from None


def _store(uow: UnitOfWork, row: GameRecord, game: WarGame) -> GameRecord:
    try:
        return uow.free_play.save(
            row, state=game.to_dict(), status=_status(game), updated_at=utcnow()
        )
    except StaleGame:
        # Another request changed the game since it was read (only possible where the row
        # lock is not available); nothing was written.
        raise Conflict(
            "The game changed while this request was played; fetch it and try again.",
            code="concurrent_update",
        ) from None


def _status(game: WarGame) -> str:
    if game.finished:
        return FINISHED
    return AWAITING_DECISION if game.pending else IN_PROGRESS


def _humans(game: WarGame) -> list[int]:
    return [i for i, spec in enumerate(game.seats) if spec.kind is SeatKind.HUMAN]


def _check_seat(game: WarGame, seat: int) -> int:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(game.seats):
        raise Invalid(f"seat must be 0 to {len(game.seats) - 1} in this game", code="invalid_seat")
    return seat


def _viewer(game: WarGame, seat: int | None) -> int | None:
    """The seat whose view is shown: the one asked for, else the only human seat, else
    nobody's (a spectator sees no hand and no pending choice's details)."""
    if seat is not None:
        return _check_seat(game, seat)
    humans = _humans(game)
    return humans[0] if len(humans) == 1 else None


def _mover(game: WarGame, seat: int | None) -> int:
    if seat is not None:
        return _check_seat(game, seat)
    humans = _humans(game)
    if len(humans) == 1:
        return humans[0]
    if not humans:
        raise Conflict(
            "No seat of this game is played by a human; use autoplay.",
            code="illegal_move",
            legal=[],
        )
    raise Invalid(
        f"This game has {len(humans)} human seats ({', '.join(map(str, humans))}); "
        "say which seat moves.",
        code="seat_required",
    )


def _view(row: GameRecord, game: WarGame, seat: int | None, log_tail: int | None) -> dict[str, Any]:
    view = game.view(_viewer(game, seat), log_tail=log_tail)
    view["status"] = _STATUS.get(view["status"], view["status"])
    return {
        "id": row.id,
        "version": row.version,
        "created_at": row.created_at,
        "updated_at": row.updated_at,
        **view,
    }


def purge_games(uow: UnitOfWork, older_than: timedelta) -> int:
    """Delete free-play games untouched for ``older_than``: no money hangs on them, and
    without a purge the table only grows."""
    if older_than <= timedelta(0):
        raise Invalid("the age must be positive", code="invalid_age")
    return uow.free_play.purge(utcnow() - older_than)


def purge_simulations(uow: UnitOfWork, older_than: timedelta) -> int:
    """Delete simulation jobs started more than ``older_than`` ago."""
    if older_than <= timedelta(0):
        raise Invalid("the age must be positive", code="invalid_age")
    return uow.simulation_jobs.purge(utcnow() - older_than)
