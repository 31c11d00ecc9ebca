"""Steal War: looking at the next card, stealing capture piles, and the pile's top card.

Functions on a game's ``GameState``, kept apart because only Steal War uses them. Seats still
to commit a face-up card look at their next card at the same time; a seat whose card matches
the top of another player's capture pile may steal instead of playing. Stealing is always a
choice, pile by pile: with several matching piles (Catalan: "pots robar les dues baralles",
you *may* steal both) the seat may take all of them, some of them or none. Choices are
simultaneous: a steal aimed at a pile whose owner is now playing a card of its own top's rank
fails (the thief's card is played), two thieves after one pile: the first to the owner's left
gets it, and two players stealing each other's piles exchange them.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import Any

from casino.engine.war.decisions import BattleGen, Decision, DecisionKind, Move
from casino.engine.war.entries import Steal
from casino.engine.war.state import GameState

#: Steals allowed in one battle; past it a looked-at card is simply played.
STEAL_CAP = 64


def _left_of(owner: int, seats: int) -> Callable[[int], int]:
    """Sort key: distance of a seat clockwise from ``owner``."""
    return lambda seat: (seat - owner) % seats


def top_decision(game: GameState, seat: int, cards: list[int]) -> Decision:
    codes = [game.codes[c] for c in cards]
    in_pot: dict[int, int] = {}
    for c in cards:
        in_pot[game.ranks[c]] = in_pot.get(game.ranks[c], 0) + 1
    context = {
        "cards": codes,
        "unseen": {
            game.codes[c]: game.copies[game.ranks[c]] - in_pot[game.ranks[c]] for c in cards
        },
        "strength": {game.codes[c]: game.ranks[c] for c in cards},
    }
    legal = tuple({"action": "top", "card": code} for code in codes)
    return Decision(seat, DecisionKind.PILE_TOP, legal, context)


def steal_moves(targets: list[int], *, choose_piles: bool = True) -> tuple[Move, ...]:
    """The legal answers to a chance to steal: play the card; ``steal`` (every matching
    pile); and, with several matching piles, ``steal`` ``from`` any smaller set of them.
    (Rule revision 1 offered only play and steal-them-all.)"""
    moves: list[Move] = [{"action": "play"}, {"action": "steal"}]
    if choose_piles:
        for size in range(1, len(targets)):
            subsets = combinations(targets, size)
            moves += [{"action": "steal", "from": list(some)} for some in subsets]
    return tuple(moves)


def wanted_piles(move: Move, targets: list[int]) -> list[int]:
    """The piles a steal move aims at (none for a play)."""
    if move.get("action") != "steal":
        return []
    chosen = move.get("from")
    return list(targets) if chosen is None else [t for t in targets if t in chosen]


def commit(
    game: GameState, seats: list[int], pot: list[list[int]], up: list[int], rnd: int
) -> BattleGen:
    """Steal War. Seats still to commit look at their next card at the same time; a seat
    whose card matches the top of another's capture pile may steal instead of playing (see
    the module docstring for simultaneous choices)."""
    n = game.rules.seats
    rank = game.ranks
    remaining = list(seats)
    committed: list[int] = []
    while remaining:
        looked: dict[int, int] = {}
        for s in remaining:
            if not game.stocks[s] and game.piles[s]:
                game.turn_pile(s)
            if game.stocks[s]:
                looked[s] = game.stocks[s][0]
            else:
                game.eliminate(s)  # robbed of its last cards mid-battle: out
        remaining = [s for s in remaining if s in looked]
        tops = {t: game.piles[t][-1] for t in range(n) if game.piles[t]}
        requests = []
        targets: dict[int, list[int]] = {}
        if game.steals_this_battle < STEAL_CAP:
            for s in remaining:
                targets[s] = _targets(game, s, looked[s], tops)
                if targets[s]:
                    showing = [rank[up[c]] for c in committed]
                    requests.append(_decision(game, s, looked[s], targets[s], pot, showing, rnd))
        answers = (yield requests) if requests else {}
        wanted: dict[int, list[int]] = {}
        if answers:
            wanted = {s: wanted_piles(answers[s], targets[s]) for s in remaining if s in answers}
        thieves = [s for s in remaining if wanted.get(s)]
        players = [s for s in remaining if s not in thieves]
        if game.rules.protect_own_pile:
            for s in players:
                if s in tops and rank[tops[s]] == rank[looked[s]]:
                    game.protected.add(s)
        claims: dict[int, int] = {}
        for t in sorted(tops):
            wanting = [s for s in thieves if t in wanted[s] and t not in game.protected]
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
            game.steals_this_battle += 1
            stealers.append(s)
            if game.entry is not None and game.entry.steals is not None:
                stolen = sum(len(robbed[t]) for t in taken) + 1
                game.entry.steals.append(Steal(s, game.codes[card], tuple(taken), stolen, rnd))
        for s in sorted(players):
            card = game.stocks[s].popleft()
            pot[s].append(card)
            up[s] = card
            committed.append(s)
        remaining = sorted(stealers)


def _targets(game: GameState, seat: int, card: int, tops: dict[int, int]) -> list[int]:
    rank = game.ranks
    return [
        t
        for t, top in tops.items()
        if t != seat and t not in game.protected and rank[top] == rank[card]
    ]


def _decision(
    game: GameState,
    seat: int,
    card: int,
    targets: list[int],
    pot: list[list[int]],
    showing: list[int],
    rnd: int,
) -> Decision:
    context: dict[str, Any] = {
        "card": game.codes[card],
        "strength": game.ranks[card],
        "beats_share": game.beats_share[game.ranks[card]],
        "targets": [
            {"seat": t, "top": game.codes[game.piles[t][-1]], "cards": len(game.piles[t])}
            for t in targets
        ],
        "war": rnd > 0,
        "pot": sum(map(len, pot)),
        "showing": showing,
    }
    legal = steal_moves(targets, choose_piles=game.revision >= 2)
    return Decision(seat, DecisionKind.STEAL_OR_PLAY, legal, context)
