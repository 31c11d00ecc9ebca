"""A game as JSON and back: the record holds the seed and the moves; loading replays them.

A War game is fully determined by its rules, seed, seats and the moves of its human seats, so
that is all a record needs (plus where play stopped). ``replay_record`` plays the game again
and checks it arrives at the same position, by a digest of every card's place: a record that
does not replay to its digest is refused rather than silently played differently.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from casino.engine.errors import EngineError
from casino.engine.war.rules import WarRules

if TYPE_CHECKING:
    from casino.engine.war.game import WarGame

FORMAT = "war-game/1"


class CorruptRecord(EngineError):
    code = "corrupt_game_record"


def state_digest(game: WarGame) -> str:
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


def game_record(game: WarGame) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "variant": game.variant,
        "options": dict(game.options),
        "rules": game.rules.to_dict(),
        "seed": game.seed,
        "seats": [s.to_dict() for s in game.seats],
        "log": game.log is not None,
        "battle_cap": game.battle_cap,
        "moves": [dict(m, move=dict(m["move"])) for m in game.moves],
        "battles": game.battles,
        "paused": bool(game.pending),
        "finished": game.result is not None,
        "digest": state_digest(game),
    }


def replay_record(data: dict[str, Any]) -> WarGame:
    from casino.engine.war.game import WarGame
    from casino.engine.war.seats import SeatSpec

    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CorruptRecord(f"not a {FORMAT} record")
    try:
        game = WarGame(
            WarRules.from_dict(data["rules"]),
            data["seed"],
            [SeatSpec.from_dict(s) for s in data["seats"]],
            variant=data.get("variant"),
            options=data.get("options"),
            log=bool(data.get("log", True)),
            battle_cap=int(data["battle_cap"]),
        )
        for move in data["moves"]:
            game.advance("decision")
            game._apply(int(move["seat"]), move["move"], auto=bool(move.get("auto")))
        target = int(data["battles"])
        if data["paused"] or data["finished"]:
            game.advance("decision")
        while game.battles < target and not game.finished and not game.pending:
            game.advance("battle")
    except (KeyError, TypeError, ValueError, EngineError) as exc:
        if isinstance(exc, CorruptRecord):
            raise
        raise CorruptRecord(f"game record does not replay: {exc}") from exc
    if game.battles != target or state_digest(game) != data["digest"]:
        raise CorruptRecord("game record does not replay to its recorded position")
    return game
