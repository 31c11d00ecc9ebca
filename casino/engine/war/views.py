"""What one seat (or a spectator) may see of a game, as JSON-ready data.

Nobody looks at face-down cards in War, so until the game is over every view shows them as
counts only: the cards a war puts down, other players' hands, the card a Steal War player
looked at before choosing. The seed is hidden too (it fixes every card); views carry its
hash, and the seed itself once the game is over.
"""

from __future__ import annotations

from typing import Any

from casino.engine.war.rules import Ending, WonCards
from casino.engine.war.state import GameState


def game_view(game: GameState, seat: int | None, *, log_tail: int | None = None) -> dict[str, Any]:
    r = game.rules
    if seat is not None and not 0 <= seat < r.seats:
        raise ValueError(f"no seat {seat} at a table of {r.seats}")
    over = game.result is not None
    if over:
        status = "finished"
    elif game.pending:
        status = "awaiting-decision"
    else:
        status = "in-progress"
    entries = game.log or []
    if log_tail is not None:
        entries = entries[-log_tail:] if log_tail > 0 else []
    current = game.entry  # the battle in progress, if paused in one
    return {
        "variant": game.variant,
        "options": dict(game.options),
        "rules": r.to_dict(),
        "seed": game.seed if over else None,
        "seed_hash": game.seed_hash,
        "viewer": seat,
        "status": status,
        "battles": game.battles,
        "wars": game.wars,
        "round": game.round_no + 1,
        "seats": [_seat_view(game, s, seat, over) for s in range(r.seats)],
        "pending": [
            d.to_dict() if over or d.seat == seat else {"seat": d.seat, "kind": d.kind.value}
            for d in game.pending
        ],
        "table": current.freeze().to_dict(over) if current is not None else None,
        "log": [entry.to_dict(over) for entry in entries],
        "log_size": len(game.log or []),
        "result": game.result.to_dict() if game.result is not None else None,
    }


def _seat_view(game: GameState, s: int, viewer: int | None, over: bool) -> dict[str, Any]:
    r = game.rules
    spec = game.seats[s]
    info: dict[str, Any] = {
        "seat": s,
        "type": spec.kind.value,
        "strategy": spec.strategy,
        "cards": game.cards_held(s),
        "stock": len(game.stocks[s]),
    }
    if r.won_cards is WonCards.PILE:
        pile = game.piles[s]
        info["pile"] = len(pile)
        info["pile_top"] = game.code(pile[-1]) if pile else None
    if r.won_cards is WonCards.ASIDE:
        info["won"] = len(game.aside[s])
    if r.hand_size:
        hand = game.hands[s]
        info["hand_size"] = len(hand)
        info["hand"] = [game.code(c) for c in hand] if over or s == viewer else None
    if r.ending is Ending.THREE_WARS:
        info["wars_won"] = game.wars_won[s]
    if r.rounds > 1:
        info["rounds_won"] = game.round_wins[s]
    return info
