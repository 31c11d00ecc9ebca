"""A game as JSON and back: the record holds the seed and the moves; loading replays them.

A War game is fully determined by its rules, seed, seats and the moves of its human seats, so
that is all a record needs (plus where play stopped, and the rule revision it is played by).
``WarGame.from_dict`` replays it and checks it arrives at the same position, by a digest of
every card's place: a record that does not replay to its digest is refused rather than
silently played differently. This module writes records and reads them back into a
``Record``; it works on ``GameState`` and does not import the game model.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from casino.engine.errors import EngineError
from casino.engine.war.rules import WarRules
from casino.engine.war.seats import SeatSpec
from casino.engine.war.state import RULE_REVISION, GameState

FORMAT = "war-game/1"
#: Records written before rule revisions existed carry no ``revision``: they are revision 1.
FIRST_REVISION = 1


class CorruptRecord(EngineError):
    code = "corrupt_game_record"


@dataclass(frozen=True)
class Record:
    """A record read back: what rebuilds the game, and where it must arrive."""

    rules: WarRules
    seed: str
    seats: tuple[SeatSpec, ...]
    variant: str | None
    options: dict[str, Any] | None
    log: bool
    battle_cap: int
    revision: int
    moves: tuple[dict[str, Any], ...]
    battles: int
    paused: bool
    finished: bool
    digest: str


def state_digest(game: GameState) -> str:
    state = {
        "stocks": [[game.code(c) for c in s] for s in game.stocks],
        "piles": [[game.code(c) for c in p] for p in game.piles],
        "hands": [[game.code(c) for c in h] for h in game.hands],
        "aside": [[game.code(c) for c in a] for a in game.aside],
        "battles": game.battles,
        "round": game.round_no,
        "wars_won": game.wars_won,
        "pending": [d.to_dict() for d in game.pending],
        "result": game.result.to_dict() if game.result else None,
    }
    text = json.dumps(state, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def game_record(game: GameState) -> dict[str, Any]:
    record = {
        "format": FORMAT,
        "variant": game.variant,
        "options": dict(game.options),
        "rules": game.rules.to_dict(),
        "seed": game.seed,
        "seats": [s.to_dict() for s in game.seats],
        "log": game.logging,
        "battle_cap": game.battle_cap,
        "moves": [dict(m, move=dict(m["move"])) for m in game.moves],
        "battles": game.battles,
        "paused": bool(game.pending),
        "finished": game.result is not None,
        "digest": state_digest(game),
    }
    if game.revision != FIRST_REVISION:
        record["revision"] = game.revision
    return record


def parse_record(data: object) -> Record:
    """``data`` as a ``Record``; ``CorruptRecord`` for anything that is not one."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CorruptRecord(f"not a {FORMAT} record")
    try:
        revision = data.get("revision", FIRST_REVISION)
        if type(revision) is not int or not FIRST_REVISION <= revision <= RULE_REVISION:
            raise CorruptRecord(f"unknown rule revision {revision!r}")
        return Record(
            rules=WarRules.from_dict(data["rules"]),
            seed=data["seed"],
            seats=tuple(SeatSpec.from_dict(s) for s in data["seats"]),
            variant=data.get("variant"),
            options=data.get("options"),
            log=bool(data.get("log", True)),
            battle_cap=int(data["battle_cap"]),
            revision=revision,
            moves=tuple(data["moves"]),
            battles=int(data["battles"]),
            paused=bool(data["paused"]),
            finished=bool(data["finished"]),
            digest=str(data["digest"]),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise CorruptRecord(f"game record does not replay: {exc}") from exc
    except EngineError as exc:
        if isinstance(exc, CorruptRecord):
            raise
        raise CorruptRecord(f"game record does not replay: {exc}") from exc
