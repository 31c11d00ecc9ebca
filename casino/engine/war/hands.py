"""Hand of three: choosing the card to play from a hand refilled from the stock.

Functions on a game's ``GameState``, kept apart because only the hand-of-three variant uses
them.
"""

from __future__ import annotations

from casino.engine.war.decisions import BattleGen, Decision, DecisionKind
from casino.engine.war.rules import ShortStack
from casino.engine.war.state import GameState


def commit(
    game: GameState, seats: list[int], pot: list[list[int]], up: list[int], rnd: int
) -> BattleGen:
    requests = []
    for s in seats:
        game.refill_hand(s)
        hand = game.hands[s]
        if len({game.ranks[c] for c in hand}) > 1:
            context = {
                "hand": [{"card": game.codes[c], "strength": game.ranks[c]} for c in hand],
                "war": rnd > 0,
                "pot": sum(map(len, pot)),
            }
            legal = tuple({"action": "play", "card": game.codes[c]} for c in hand)
            requests.append(Decision(s, DecisionKind.HAND_CARD, legal, context))
    answers = (yield requests) if requests else {}
    for s in seats:
        hand = game.hands[s]
        move = answers.get(s)
        card = game.index[move["card"]] if move else hand[0]
        hand.remove(card)
        pot[s].append(card)
        up[s] = card
        game.refill_hand(s)


def short_stack(
    game: GameState, contenders: list[int], top: list[int], down: int
) -> tuple[dict[int, int | None], list[int], list[int] | None]:
    """Hand of three: face-down cards come from the stock, the deciding card from the hand."""
    lose = game.rules.short_stack is ShortStack.LOSE
    out = [s for s in contenders if not game.hands[s] or (lose and len(game.stocks[s]) < down)]
    if len(out) == len(contenders):
        if lose:
            held = {s: game.cards_held(s) for s in contenders}
            most = max(held.values())
            survivors = [s for s in contenders if held[s] == most]
            if len(survivors) > 1:
                return {}, [], survivors
            return {}, [s for s in contenders if s not in survivors], None
        return {}, [], top
    plan: dict[int, int | None] = {
        s: min(down, len(game.stocks[s])) for s in contenders if s not in out
    }
    return plan, out, None
