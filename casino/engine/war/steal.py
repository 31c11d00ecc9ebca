"""Steal War: looking at the next card, stealing capture piles, and the pile's top card.

Functions of the one game model (``WarGame``), kept apart because only Steal War uses them.
Seats still to commit a face-up card look at their next card at the same time; a seat whose
card matches the top of another player's capture pile may steal instead of playing. Choices are
simultaneous: a steal aimed at a pile whose owner is now playing a card of its own top's rank
fails (the thief's card is played), two thieves after one pile: the first to the owner's left
gets it, and two players stealing each other's piles exchange them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from casino.engine.war.decisions import BattleGen, Decision, DecisionKind

if TYPE_CHECKING:
    from casino.engine.war.game import WarGame

#: Steals allowed in one battle; past it a looked-at card is simply played.
STEAL_CAP = 64


def _left_of(owner: int, seats: int) -> Callable[[int], int]:
    """Sort key: distance of a seat clockwise from ``owner``."""
    return lambda seat: (seat - owner) % seats


def top_decision(game: WarGame, seat: int, cards: list[int]) -> Decision:
    codes = [game._code[c] for c in cards]
    in_pot: dict[int, int] = {}
    for c in cards:
        in_pot[game._rank[c]] = in_pot.get(game._rank[c], 0) + 1
    context = {
        "cards": codes,
        "unseen": {
            game._code[c]: game._copies[game._rank[c]] - in_pot[game._rank[c]] for c in cards
        },
        "strength": {game._code[c]: game._rank[c] for c in cards},
    }
    legal = tuple({"action": "top", "card": code} for code in codes)
    return Decision(seat, DecisionKind.PILE_TOP, legal, context)


def commit(
    game: WarGame, seats: list[int], pot: list[list[int]], up: list[int], rnd: int
) -> BattleGen:
    """Steal War. Seats still to commit look at their next card at the same time; a seat
    whose card matches the top of another's capture pile may steal instead of playing.
    Choices are simultaneous: a steal aimed at a pile whose owner is now playing a card of
    its own top's rank fails (the card is played), and two thieves after one pile: the
    first to the pile owner's left gets it."""
    n = game.rules.seats
    rank = game._rank
    remaining = list(seats)
    committed: list[int] = []
    while remaining:
        looked: dict[int, int] = {}
        for s in remaining:
            if not game.stocks[s] and game.piles[s]:
                game._turn_pile(s)
            if game.stocks[s]:
                looked[s] = game.stocks[s][0]
            else:
                game._gone.add(s)  # robbed of its last cards mid-battle: out
                if game._entry is not None:
                    game._entry["eliminated"].append(s)
        remaining = [s for s in remaining if s in looked]
        tops = {t: game.piles[t][-1] for t in range(n) if game.piles[t]}
        requests = []
        if game._steals < STEAL_CAP:
            for s in remaining:
                targets = _targets(game, s, looked[s], tops)
                if targets:
                    showing = [rank[up[c]] for c in committed]
                    requests.append(_decision(game, s, looked[s], targets, pot, showing, rnd))
        answers = (yield requests) if requests else {}
        thieves = [s for s in remaining if answers.get(s, {}).get("action") == "steal"]
        players = [s for s in remaining if s not in thieves]
        if game.rules.protect_own_pile:
            for s in players:
                if s in tops and rank[tops[s]] == rank[looked[s]]:
                    game._protected.add(s)
        claims: dict[int, int] = {}
        for t in sorted(tops):
            wanting = [s for s in thieves if t in _targets(game, s, looked[s], tops)]
            if wanting:
                # Two thieves after one pile: the first to the owner's left gets it.
                claims[t] = min(wanting, key=_left_of(t, n))
        robbed = {t: game.piles[t] for t in claims}
        for t in claims:
            game.piles[t] = []
        stealers = []
        for s in thieves:
            taken = sorted(t for t, thief in claims.items() if thief == s)
            if not taken:
                players.append(s)
                continue
            card = game.stocks[s].popleft()
            for t in taken:
                game.piles[s] += robbed[t]
            game.piles[s].append(card)
            game._steals += 1
            stealers.append(s)
            if game._entry is not None:
                game._entry["steals"].append(
                    {
                        "seat": s,
                        "card": game._code[card],
                        "from": taken,
                        "cards": sum(len(robbed[t]) for t in taken) + 1,
                        "war_round": rnd,
                    }
                )
        for s in sorted(players):
            card = game.stocks[s].popleft()
            pot[s].append(card)
            up[s] = card
            committed.append(s)
        remaining = sorted(stealers)


def _targets(game: WarGame, seat: int, card: int, tops: dict[int, int]) -> list[int]:
    rank = game._rank
    return [
        t
        for t, top in tops.items()
        if t != seat and t not in game._protected and rank[top] == rank[card]
    ]


def _decision(
    game: WarGame,
    seat: int,
    card: int,
    targets: list[int],
    pot: list[list[int]],
    showing: list[int],
    rnd: int,
) -> Decision:
    context = {
        "card": game._code[card],
        "strength": game._rank[card],
        "beats_share": game._beats_share[game._rank[card]],
        "targets": [
            {"seat": t, "top": game._code[game.piles[t][-1]], "cards": len(game.piles[t])}
            for t in targets
        ],
        "war": rnd > 0,
        "pot": sum(map(len, pot)),
        "showing": showing,
    }
    legal = ({"action": "play"}, {"action": "steal"})
    return Decision(seat, DecisionKind.STEAL_OR_PLAY, legal, context)
