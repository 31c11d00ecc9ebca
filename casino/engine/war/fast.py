"""Simulation kernel: two-player War without choices, played on ranks, nothing logged.

This is an optimisation of ``WarGame`` for simulations, not another set of rules: for every
``WarRules`` it accepts (``supported``), it draws the same random numbers in the same order
and reaches the same result in the same number of battles as the game model, which the test
suite checks game by game across the options. Stocks are deques of ranks (suits never matter);
the won cards' shuffle takes its bit inline, as ``BitSource`` would.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from casino.engine.war.cycles import CycleDetector, position_key
from casino.engine.war.randomness import SHUFFLE, BitSource, deal, rank_table, server_seed, stream
from casino.engine.war.results import EndReason
from casino.engine.war.rules import (
    BY_RANK,
    Ending,
    RepeatTie,
    ReturnOrder,
    ShortStack,
    WarRules,
    WonCards,
    war_value,
)
from casino.engine.war.state import BATTLE_CAP, THREE


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a simulation keeps of one game."""

    winners: tuple[int, ...]
    reason: EndReason
    battles: int
    wars: int


def supported(rules: WarRules) -> bool:
    return (
        rules.seats == 2
        and rules.won_cards is WonCards.STOCK
        and not rules.has_decisions
        and not rules.low_beats_ace
        and rules.ending is not Ending.ONE_PASS
    )


_VOID = -1


def play(rules: WarRules, seed: str, battle_cap: int = BATTLE_CAP) -> Outcome:
    """One game to its end. ``rules`` must be ``supported``."""
    key = server_seed(seed)
    stocks, _ = deal(rules, key)
    ranks = rank_table(rules.pack)
    s0 = deque([ranks[c] for c in stocks[0]])
    s1 = deque([ranks[c] for c in stocks[1]])
    draws = stream(key, 0, SHUFFLE)
    src = BitSource(draws)
    u32 = draws.u32  # the same stream: the hot loop keeps src's bit pool in locals
    order = rules.return_order
    shuffled = order is ReturnOrder.SHUFFLED
    seat_order = order is ReturnOrder.FIXED
    three_wars = rules.ending is Ending.THREE_WARS
    limit = rules.battle_limit
    stop = min(battle_cap, limit) if limit is not None else battle_cap
    cycles = CycleDetector() if rules.can_cycle else None
    wars_won = [0, 0]
    if cycles is not None:
        cycles.seen_at(_key(s0, s1, wars_won, three_wars), 0)
    war = _War(rules, s0, s1, src)
    pop0, pop1, app0, app1 = s0.popleft, s1.popleft, s0.append, s1.append
    word = 0
    nbits = 0
    battles = 0
    wars = 0
    while True:
        battles += 1
        a = pop0()
        b = pop1()
        if a > b:
            if shuffled:
                if not nbits:
                    word = u32()
                    nbits = 32
                if word & 1:
                    app0(b)
                    app0(a)
                else:
                    app0(a)
                    app0(b)
                word >>= 1
                nbits -= 1
            else:  # seat order and winner first agree when seat 0 wins
                app0(a)
                app0(b)
            if not s1:
                break
        elif a < b:
            if shuffled:
                if not nbits:
                    word = u32()
                    nbits = 32
                if word & 1:
                    app1(b)
                    app1(a)
                else:
                    app1(a)
                    app1(b)
                word >>= 1
                nbits -= 1
            elif seat_order:
                app1(a)
                app1(b)
            else:
                app1(b)
                app1(a)
            if not s0:
                break
        else:
            wars += 1
            src.word, src.nbits = word, nbits
            winner = war.fight(a, b)
            word, nbits = src.word, src.nbits
            if winner == _VOID:
                return Outcome((), EndReason.VOID, battles, wars)
            wars_won[winner] += 1
            if three_wars and wars_won[winner] >= THREE:
                return Outcome((winner,), EndReason.THREE_WARS, battles, wars)
            if not s0 or not s1:
                break
        if battles >= stop:
            break
        if (
            cycles is not None
            and cycles.seen_at(_key(s0, s1, wars_won, three_wars), battles) is not None
        ):
            return Outcome((), EndReason.CYCLE, battles, wars)
    return _ending(rules, len(s0), len(s1), battles, wars, battle_cap)


def _key(s0: deque[int], s1: deque[int], wars_won: list[int], three_wars: bool) -> bytes:
    return position_key(((s0, (), ()), (s1, (), ())), wars_won if three_wars else ())


def _ending(rules: WarRules, n0: int, n1: int, battles: int, wars: int, cap: int) -> Outcome:
    """Same order of checks as ``WarGame._check_end`` for two seats still or no longer holding."""
    ending = rules.ending
    if not n0 or not n1:
        holder = 0 if n0 else 1
        if ending is Ending.HOLDER_LOSES:
            return Outcome((1 - holder,), EndReason.HOLDER_LOSES, battles, wars)
        reason = (
            EndReason.FIRST_OUT_LOSES if ending is Ending.FIRST_OUT_LOSES else EndReason.ALL_CARDS
        )
        return Outcome((holder,), reason, battles, wars)
    if rules.battle_limit is not None and battles >= rules.battle_limit:
        if n0 == n1:
            return Outcome((), EndReason.BATTLE_LIMIT, battles, wars)
        more = 0 if n0 > n1 else 1
        best = 1 - more if ending is Ending.HOLDER_LOSES else more
        return Outcome((best,), EndReason.BATTLE_LIMIT, battles, wars)
    return Outcome((), EndReason.BATTLE_CAP, battles, wars)


class _War:
    """A war between two seats, as ``WarGame._battle`` plays it from the first tie on."""

    __slots__ = ("ace", "by_rank", "down", "face_up", "order", "rule", "s0", "s1", "src")

    def __init__(self, rules: WarRules, s0: deque[int], s1: deque[int], src: BitSource) -> None:
        self.s0 = s0
        self.s1 = s1
        self.src = src
        self.order = rules.return_order
        self.rule = rules.short_stack
        self.by_rank = rules.war_down == BY_RANK
        self.down = 0 if self.by_rank else int(rules.war_down)
        self.ace = rules.ace_value
        self.face_up = rules.repeat_tie is RepeatTie.FACE_UP

    def fight(self, a: int, b: int) -> int:
        """Play the war begun by ``a`` == ``b``; return the winner, or ``_VOID``."""
        s0, s1 = self.s0, self.s1
        p0 = [a]
        p1 = [b]
        rule = self.rule
        rnd = 0
        while a == b:
            rnd += 1
            if rnd > 1 and self.face_up:
                down = 0
            elif self.by_rank:
                down = war_value(a, self.ace) - 1
            else:
                down = self.down
            need = down + 1
            n0 = len(s0)
            n1 = len(s1)
            if n0 >= need and n1 >= need:  # enough cards: every short-stack rule agrees
                pop0, pop1 = s0.popleft, s1.popleft
                for _ in range(need):
                    p0.append(pop0())
                    p1.append(pop1())
                a = p0[-1]
                b = p1[-1]
                continue
            k0: int | None
            k1: int | None
            if rule is ShortStack.LOSE:
                short0 = n0 < need
                short1 = n1 < need
                if short0 and short1:
                    if n0 == n1:
                        return _VOID
                    return self._forfeit(1 if n0 > n1 else 0, p0, p1)
                if short0 or short1:
                    return self._forfeit(0 if short0 else 1, p0, p1)
                k0 = k1 = down
            elif rule is ShortStack.LAST_UP:
                if not n0 and not n1:
                    return _VOID
                k0 = min(down, n0 - 1) if n0 else None
                k1 = min(down, n1 - 1) if n1 else None
            else:
                if not n0 and not n1:
                    return _VOID
                if not n0 or not n1:
                    return self._award(1 if not n0 else 0, p0, p1)
                if rule is ShortStack.ALL_BUT_LAST:
                    k0 = min(down, n0 - 1)
                    k1 = min(down, n1 - 1)
                else:
                    k0 = k1 = min(need, n0, n1) - 1
            if k0 is not None:
                for _ in range(k0 + 1):
                    p0.append(s0.popleft())
                a = p0[-1]
            if k1 is not None:
                for _ in range(k1 + 1):
                    p1.append(s1.popleft())
                b = p1[-1]
        return self._award(0 if a > b else 1, p0, p1)

    def _forfeit(self, loser: int, p0: list[int], p1: list[int]) -> int:
        stock = self.s1 if loser else self.s0
        (p1 if loser else p0).extend(stock)
        stock.clear()
        return self._award(1 - loser, p0, p1)

    def _award(self, winner: int, p0: list[int], p1: list[int]) -> int:
        if self.order is ReturnOrder.WINNER_FIRST and winner == 1:
            cards = p1 + p0
        else:
            cards = p0 + p1
            if self.order is ReturnOrder.SHUFFLED:
                self.src.shuffle(cards)
        (self.s1 if winner else self.s0).extend(cards)
        return winner
