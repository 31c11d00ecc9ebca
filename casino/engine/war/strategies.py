"""Computer players: pick one of a decision's legal moves.

A strategy sees only the decision: its legal moves and the context the seat is allowed to see
(its own hand or the card it looked at, pile sizes and tops, the cards on the table). Random
draws come from the seat's own stream, so one seat's luck never depends on another's.

* ``random`` - uniform over the legal moves.
* ``greedy`` - the best move for the battle at hand:
  - hand of three: in a plain battle the weakest card, as the deciding card of a war the
    strongest. A battle moves one card, the loser's: losing costs least with a low card, and
    the strong cards stay in hand for wars, where eight cards go to the higher card. (Playing
    the strongest card every time does no better than random; this beats random nearly
    always, see the tests.)
  - steal or play: steal unless the card looks like winning a pot worth more than the piles
    it would steal (a stealer keeps its card and still plays its next, unknown card);
  - pile top: the won card whose rank has the fewest copies left unseen, so the fewest cards
    can steal the pile (ties: the higher rank).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from casino.engine.errors import InvalidRules
from casino.engine.war.decisions import Decision, DecisionKind, Move
from casino.engine.war.randomness import BitSource

Strategy = Callable[[Decision, BitSource], Move]


def random_strategy(decision: Decision, rng: BitSource) -> Move:
    return dict(decision.legal[rng.below(len(decision.legal))])


def greedy_strategy(decision: Decision, rng: BitSource) -> Move:
    ctx = decision.context
    if decision.kind is DecisionKind.HAND_CARD:
        return _hand_card(decision, ctx)
    if decision.kind is DecisionKind.STEAL_OR_PLAY:
        return _steal_or_play(decision, ctx)
    return _safest_top(decision, ctx)


def _hand_card(decision: Decision, ctx: dict[str, Any] | Any) -> Move:
    strength = {card["card"]: card["strength"] for card in ctx["hand"]}
    pick = max if ctx["war"] else min
    chosen: Move = pick(decision.legal, key=lambda m: strength[m["card"]])
    return dict(chosen)


def _steal_or_play(decision: Decision, ctx: dict[str, Any] | Any) -> Move:
    stealable = sum(t["cards"] for t in ctx["targets"])
    pot = ctx["pot"]
    mine = ctx["strength"]
    showing = ctx["showing"]
    # Opponents already committed: the card either beats them all or it does not.
    win = (1.0 if mine > max(showing) else 0.0) if showing else ctx["beats_share"]
    # Stealing keeps the card and plays the next, unknown one: worth about half the pot.
    steal_value = stealable + 0.5 * pot
    play_value = win * pot
    action = "steal" if steal_value >= play_value else "play"
    return {"action": action}


def _safest_top(decision: Decision, ctx: dict[str, Any] | Any) -> Move:
    unseen = ctx["unseen"]
    strength = ctx["strength"]

    def risk(move: Move) -> tuple[int, int]:  # fewest unseen copies, then highest rank
        code = move["card"]
        return (unseen[code], -strength[code])

    best: Move = min(decision.legal, key=risk)
    return dict(best)


STRATEGIES: dict[str, Strategy] = {
    "random": random_strategy,
    "greedy": greedy_strategy,
}
#: Strategies whose choice depends on the position only (so a repeated position repeats).
DETERMINISTIC = frozenset({"greedy"})


def strategy(name: str) -> Strategy:
    try:
        return STRATEGIES[name]
    except KeyError:
        known = ", ".join(sorted(STRATEGIES))
        raise InvalidRules(f"unknown strategy {name!r}; choose one of {known}") from None
