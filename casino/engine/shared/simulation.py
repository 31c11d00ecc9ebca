"""Whole shoes of a shared table through the production path, against the exact odds.

Each shoe is a shoe of a hash chain (secret SHA-256 of the ``seed`` text, one shoe per link)
mixed with an ``operator`` public value (SHA-256 of ``"public value:" + seed``), dealt round
after round by the round's steps (``open_table``, ``close_betting``, ``deal``,
``close_decisions``, ``settle``, ``next_round``) with one bettor who stakes the minimum ante
(and a tie bet, a war tie bet on every war, when asked) and decides ties by ``strategy``;
``settle_bettor`` pays it. So a run is reproducible and every shoe of it verifies with
``casino verify``.

Rounds of one shoe are dealt from one shoe, so they are not independent: the unit of
observation is a shoe, and each figure is a ratio of per-shoe sums (amount returned over
amount staked, per unit of the initial stake as in ``table_odds``) with its delta-method
standard error over shoes. The exact figure it is compared with is a fresh shoe's
(``first_round_rtp``, equal to a private round's): what the cut card does to it is the
question the run answers (docs/fairness.md, section 17).

It also prices the tie bet as a perfect card counter would: before each round, the tie
probability of the cards actually left (burns included, which no player sees: an upper
bound on what counting can do), and the return of a tie bet placed only when it pays more
than it costs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from casino.engine.casino_war import Decision, HandResult
from casino.engine.errors import InvalidRules
from casino.engine.hand_odds import policy_for
from casino.engine.shared.bettors import accept_bet, accept_decision, settle_bettor
from casino.engine.shared.chain import HashChain
from casino.engine.shared.odds import first_round_rtp
from casino.engine.shared.public_value import PublicSource, PublicValue
from casino.engine.shared.rules import SharedRules
from casino.engine.shared.shoe import SharedShoe
from casino.engine.shared.state import Phase, RoundState
from casino.engine.shared.steps import (
    close_betting,
    close_decisions,
    deal,
    next_round,
    open_table,
    settle,
)
from casino.engine.simulation import AGREEMENT_SE, BetStats, RatioSums, Strategy
from casino.engine.table_odds import table_odds

DEFAULT_SEED = "casino-war shared"
BETTOR = "simulation"
_START = datetime(2000, 1, 1, tzinfo=UTC)


def simulation_chain(seed: str, shoes: int) -> tuple[HashChain, PublicValue]:
    chain = HashChain(hashlib.sha256(seed.encode()).digest(), shoes)
    value = hashlib.sha256(f"public value:{seed}".encode()).hexdigest()
    return chain, PublicValue(PublicSource.OPERATOR, "simulation", value)


@dataclass(frozen=True)
class CountingStats:
    """The tie bet priced by the cards actually left before each round."""

    rounds: int
    favourable: int
    counter: BetStats | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "favourable_rounds": self.favourable,
            "favourable_share": self.favourable / self.rounds if self.rounds else 0.0,
            "counter_tie_bet": None if self.counter is None else self.counter.to_dict(),
        }


@dataclass(frozen=True)
class SharedSimulationReport:
    shoes: int
    rounds: int
    rules: SharedRules
    strategy: Strategy
    seed: str
    chain_commitment: str
    public_value: PublicValue
    ante: int
    tie_bet: int
    war_tie_bet: int
    main: BetStats
    tie: BetStats | None
    war_tie: BetStats | None
    counting: CountingStats | None

    @property
    def agrees(self) -> bool:
        return all(s.within() for s in (self.main, self.tie, self.war_tie) if s is not None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "shoes": self.shoes,
            "rounds": self.rounds,
            "rounds_per_shoe": self.rounds / self.shoes,
            "rules": self.rules.to_dict(),
            "strategy": self.strategy.value,
            "seed": self.seed,
            "chain_commitment": self.chain_commitment,
            "public_value": self.public_value.to_dict(),
            "ante": self.ante,
            "tie_bet": self.tie_bet,
            "war_tie_bet": self.war_tie_bet,
            "main": self.main.to_dict(),
            "tie_bet_stats": None if self.tie is None else self.tie.to_dict(),
            "war_tie_bet_stats": None if self.war_tie is None else self.war_tie.to_dict(),
            "counting": None if self.counting is None else self.counting.to_dict(),
            "agrees": self.agrees,
        }


class _Counter:
    """The cards left in the shoe before each round, and a tie bet placed only when they
    make it pay (a table without a ladder: the bet is settled on the round's first cards)."""

    def __init__(self, shoe: SharedShoe, pays: int) -> None:
        self.pays = pays
        self.reset(shoe)
        self.rounds = self.favourable = 0
        self.sums = RatioSums()
        self.returned = self.staked = 0

    def reset(self, shoe: SharedShoe) -> None:
        self.order = shoe.order
        self.left = [0] * 15
        for card in shoe.order:
            self.left[int(card.rank)] += 1
        self.position = 0

    def before(self, start: int) -> bool:
        left, order = self.left, self.order
        for card in order[self.position : start]:
            left[int(card.rank)] -= 1
        self.position = start
        cards = len(order) - start
        pairs = sum(c * (c - 1) for c in left)
        self.rounds += 1
        # The bet returns pays + 1 times itself on a tie: worth it when P(tie) beats that.
        favourable = pairs * (self.pays + 1) > cards * (cards - 1)
        self.favourable += favourable
        return favourable

    def placed(self, tied: bool) -> None:
        self.staked += 1
        self.returned += self.pays + 1 if tied else 0

    def end_shoe(self) -> None:
        if self.staked:
            self.sums.add(self.returned, self.staked)
        self.returned = self.staked = 0


def _check(rules: SharedRules, strategy: Strategy, tie_bet: bool, war_tie_bet: bool) -> None:
    table = rules.table
    if strategy is Strategy.SURRENDER and not table.surrender_allowed:
        raise InvalidRules("this table does not allow surrender", rule="surrender_allowed")
    if tie_bet and not table.tie_bet_offered:
        raise InvalidRules("this table has no tie bet", rule="max_tie_bet")
    if war_tie_bet and not table.war_tie_bet_offered:
        raise InvalidRules("this table has no war tie bet", rule="max_war_tie_bet")


def simulate_shared(
    shoes: int,
    rules: SharedRules | None = None,
    *,
    strategy: Strategy | str = Strategy.WAR,
    tie_bet: bool = False,
    war_tie_bet: bool = False,
    seed: str = DEFAULT_SEED,
    progress: Callable[[int], None] | None = None,
) -> SharedSimulationReport:
    """Deal ``shoes`` whole shoes to their cut cards; ``progress(1)`` after each."""
    if type(shoes) is not int or shoes < 2:
        raise ValueError("simulate at least two shoes (the shoe is the unit of observation)")
    rules = rules or SharedRules()
    table = rules.table
    strategy = Strategy(strategy)
    _check(rules, strategy, tie_bet, war_tie_bet)
    odds = table_odds(table)
    choose = policy_for(odds.counts, odds.war_rules, strategy.value)
    exact = first_round_rtp(table)
    ante = table.min_ante
    tie_stake = min(ante, table.max_tie_bet) if tie_bet else 0
    war_tie_stake = min(ante, table.max_war_tie_bet) if war_tie_bet else 0
    chain, public = simulation_chain(seed, shoes)
    main, tie, war_tie = RatioSums(), RatioSums(), RatioSums()
    shoe = SharedShoe.deal(chain.seed(1), public.value, 1, table)
    counter = None if table.tie_ladder is not None else _Counter(shoe, table.tie_pays)
    now = _START
    step = open_table(rules, shoe, now)
    rounds = 0
    while True:
        state = step.state
        sums = [0] * 6  # ante returned, ante staked, tie returned/staked, war tie ret./placed
        while True:
            if counter is not None and counter.before(state.start):
                counter.placed(shoe.round(state.round).is_tie)
            now, state, result = _play_round(
                rules, state, shoe, now, choose, ante, tie_stake, war_tie_stake
            )
            rounds += 1
            _add(sums, result)
            if not shoe.has_round(state.round + 1):
                break
            now = state.next_at or now
            state = next_round(rules, state, shoe, now).state
        main.add(sums[0], sums[1])
        if tie_stake:
            tie.add(sums[2], sums[3])
        if war_tie_stake:
            war_tie.add(sums[4], sums[5])
        if counter is not None:
            counter.end_shoe()
        if progress is not None:
            progress(1)
        if shoe.index == shoes:
            break
        following = SharedShoe.deal(chain.seed(shoe.index + 1), public.value, shoe.index + 1, table)
        now = state.next_at or now
        step = next_round(rules, state, shoe, now, following)
        shoe = following
        if counter is not None:
            counter.reset(shoe)
    counting = None
    if counter is not None:
        counter_stats = counter.sums.stats(Fraction(1)) if counter.sums.units > 1 else None
        counting = CountingStats(counter.rounds, counter.favourable, counter_stats)
    ante_exact = exact[f"ante_{strategy.value}"]
    tie_exact = exact.get(
        "tie_bet_alone"
        if strategy is Strategy.SURRENDER and "tie_bet_alone" in exact
        else "tie_bet"
    )
    return SharedSimulationReport(
        shoes=shoes,
        rounds=rounds,
        rules=rules,
        strategy=strategy,
        seed=seed,
        chain_commitment=chain.commitment.hex(),
        public_value=public,
        ante=ante,
        tie_bet=tie_stake,
        war_tie_bet=war_tie_stake,
        main=main.stats(ante_exact),
        tie=tie.stats(tie_exact) if tie_stake and tie_exact is not None else None,
        war_tie=(war_tie.stats(exact["war_tie_bet"]) if war_tie_stake and war_tie.staked else None),
        counting=counting,
    )


def _play_round(
    rules: SharedRules,
    state: RoundState,
    shoe: SharedShoe,
    now: datetime,
    choose: Callable[[int], Decision],
    ante: int,
    tie_stake: int,
    war_tie_stake: int,
) -> tuple[datetime, RoundState, HandResult]:
    """One round with the one bettor, every step as a dealer takes it."""
    bet = accept_bet(rules, state, now, None, BETTOR, ante, tie_stake)
    now = state.closes_at
    state = close_betting(rules, state, now, bettors=1, antes=1).state
    state = deal(rules, state, shoe, now).state
    if state.phase is Phase.DECISIONS:
        decision = choose(int(shoe.round(state.round).player.rank) - 2)
        stake = war_tie_stake if decision is Decision.WAR else 0
        bet = accept_decision(rules, state, shoe, now, bet, decision.value, war_tie_bet=stake)
        at_war = 1 if decision is Decision.WAR else 0
        state = close_decisions(rules, state, shoe, now, all_decided=True, at_war=at_war).state
    result = settle_bettor(rules, state, shoe, bet)
    state = settle(rules, state, shoe, now).state
    return now, state, result


def _add(sums: list[int], result: HandResult) -> None:
    bets, paid = result.bets, result.payouts
    # Per unit of initial ante: the raise is a stake of its own, so it is netted out.
    sums[0] += paid.ante + paid.raise_ - bets.raise_
    sums[1] += bets.ante
    sums[2] += paid.tie_bet
    sums[3] += bets.tie_bet
    sums[4] += paid.war_tie_bet
    sums[5] += bets.war_tie_bet


__all__ = ["AGREEMENT_SE", "SharedSimulationReport", "simulate_shared"]
