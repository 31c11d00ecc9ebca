"""Monte Carlo of Casino War through the production path: ``TableRound.deal`` (the provably
fair shoe and the round's state machine) under any table rules, one to five hands a round.

The rounds are provably fair rounds like any other: server seed = SHA-256 of the ``seed``
text, client seed ``SIMULATION_CLIENT_SEED``, nonces 0 .. rounds-1. So a run is reproducible
and any single round can be re-dealt with the verifier.

RTP is measured per unit of the initial stake, like the exact figures in ``table_odds``: for
the ante, the mean of (ante + net of ante and raise) / ante; for the tie bet, (amount returned
for the tie bet) / tie bet; for the war tie bet, returned / placed over the wars that placed
one. The hands of a round share the dealer's cards, so a round is the unit of observation:
each figure is a ratio of per-round sums, and its standard error is that of a ratio
estimator over rounds (the delta method), which for a fixed stake per round is the sample
standard deviation over sqrt(rounds).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any

from casino.engine.casino_war import (
    Decision,
    HandBet,
    HandDecision,
    RoundStatus,
    TableRound,
    TableRules,
)
from casino.engine.errors import InvalidRules
from casino.engine.hand_odds import policy_for
from casino.engine.table_odds import table_odds

SIMULATION_CLIENT_SEED = "simulation"
DEFAULT_SEED = "casino-war"
#: Observed and exact RTP "agree" when they are this many standard errors apart or fewer.
AGREEMENT_SE = 3
PROGRESS_EVERY = 10_000


class Strategy(StrEnum):
    WAR = "war"
    SURRENDER = "surrender"
    BEST = "best"


def simulation_server_seed(seed: str) -> bytes:
    return hashlib.sha256(seed.encode()).digest()


@dataclass(frozen=True)
class BetStats:
    """Observed against exact return to player for one kind of bet."""

    observed_rtp: float
    std_error: float
    exact_rtp: Fraction

    @property
    def z_score(self) -> float:
        diff = self.observed_rtp - float(self.exact_rtp)
        if self.std_error == 0:
            return 0.0 if diff == 0 else math.inf
        return diff / self.std_error

    def within(self, standard_errors: float = AGREEMENT_SE) -> bool:
        return abs(self.z_score) <= standard_errors

    def to_dict(self) -> dict[str, Any]:
        return {
            "observed_rtp": self.observed_rtp,
            "std_error": self.std_error,
            "exact_rtp": float(self.exact_rtp),
            "exact_rtp_fraction": str(self.exact_rtp),
            "z_score": self.z_score,
            "within_3_se": self.within(AGREEMENT_SE),
        }


@dataclass(frozen=True)
class RoundStats:
    """A round's net per unit of ante (all hands together): observed mean and variance
    against the exact ones (``TableOdds.round_moments``)."""

    observed_mean: float
    std_error: float
    observed_variance: float
    exact_mean: Fraction
    exact_variance: Fraction

    def to_dict(self) -> dict[str, Any]:
        return {
            "observed_mean": self.observed_mean,
            "std_error": self.std_error,
            "observed_variance": self.observed_variance,
            "exact_mean": float(self.exact_mean),
            "exact_variance": float(self.exact_variance),
            "exact_variance_fraction": str(self.exact_variance),
        }


@dataclass(frozen=True)
class SimulationReport:
    rounds: int
    rules: TableRules
    strategy: Strategy
    seed: str
    ante: int
    tie_bet: int
    main: BetStats | None
    tie: BetStats | None
    ties_seen: int
    hands: int = 1
    war_tie_bet: int = 0
    war_tie: BetStats | None = None
    round: RoundStats | None = None

    @property
    def agrees(self) -> bool:
        return all(s.within() for s in (self.main, self.tie, self.war_tie) if s is not None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "decks": self.rules.decks,
            "tie_pays": self.rules.tie_pays,
            "war_tie_bonus": self.rules.war_tie_bonus,
            "rules": self.rules.to_dict(),
            "hands": self.hands,
            "strategy": self.strategy.value,
            "seed": self.seed,
            "server_seed_hash": hashlib.sha256(simulation_server_seed(self.seed)).hexdigest(),
            "client_seed": SIMULATION_CLIENT_SEED,
            "ante": self.ante,
            "tie_bet": self.tie_bet,
            "war_tie_bet": self.war_tie_bet,
            "ties_seen": self.ties_seen,
            "main": None if self.main is None else self.main.to_dict(),
            "tie_bet_stats": None if self.tie is None else self.tie.to_dict(),
            "war_tie_bet_stats": None if self.war_tie is None else self.war_tie.to_dict(),
            "round": None if self.round is None else self.round.to_dict(),
            "agrees": self.agrees,
        }


class RatioSums:
    """Sums of an amount returned and the amount staked for it over units of observation
    (rounds here, whole shoes for a shared table), kept exact."""

    __slots__ = ("cross", "returned", "returned_sq", "staked", "staked_sq", "units")

    def __init__(self) -> None:
        self.units = 0
        self.returned = self.staked = self.returned_sq = self.cross = self.staked_sq = 0

    def add(self, returned: int, staked: int) -> None:
        self.units += 1
        self.returned += returned
        self.staked += staked
        self.returned_sq += returned * returned
        self.cross += returned * staked
        self.staked_sq += staked * staked

    def stats(self, exact: Fraction) -> BetStats:
        """The ratio sum(returned) / sum(staked) and its delta-method standard error."""
        n = self.units
        ratio = Fraction(self.returned, self.staked)
        # sum over units of (returned - ratio * staked)^2, exactly
        spread = self.returned_sq - 2 * ratio * self.cross + ratio * ratio * self.staked_sq
        variance = spread / (n - 1) if n > 1 else Fraction(0)
        mean_staked = Fraction(self.staked, n)
        return BetStats(float(ratio), math.sqrt(float(variance / n)) / float(mean_staked), exact)


def _check(rules: TableRules, strategy: Strategy, tie_bet: bool, tie_only: bool) -> None:
    if strategy is Strategy.SURRENDER and not rules.surrender_allowed:
        raise InvalidRules(
            "this table does not allow surrender",
            code="surrender_not_allowed",
            rule="surrender_allowed",
        )
    if (tie_bet or tie_only) and not rules.tie_bet_offered:
        raise InvalidRules("this table has no tie bet", code="tie_bet_not_offered")
    if tie_only and not rules.tie_only:
        raise InvalidRules("this table takes no tie-only bets", rule="tie_only")


def simulate(
    rounds: int,
    rules: TableRules | None = None,
    *,
    strategy: Strategy | str = Strategy.WAR,
    tie_bet: bool = False,
    seed: str = DEFAULT_SEED,
    progress: Callable[[int], None] | None = None,
    hands: int = 1,
    war_tie_bet: bool = False,
    tie_only: bool = False,
) -> SimulationReport:
    """Play ``rounds`` rounds of ``hands`` hands at the minimum ante (a tie bet of the same
    size, capped at the table maximum, when ``tie_bet``; a war tie bet likewise on every war
    when ``war_tie_bet``; ``tie_only``: tie bets alone); ``progress(n)`` is told of every n
    rounds played."""
    if rounds < 1:
        raise ValueError("simulate at least one round")
    rules = rules or TableRules()
    strategy = Strategy(strategy)
    _check(rules, strategy, tie_bet, tie_only)
    if not 1 <= hands <= rules.max_hands:
        raise InvalidRules(f"this table plays 1 to {rules.max_hands} hands", rule="max_hands")
    if war_tie_bet and not rules.war_tie_bet_offered:
        raise InvalidRules("this table has no war tie bet", rule="max_war_tie_bet")
    odds = table_odds(rules)
    ante = 0 if tie_only else rules.min_ante
    tie_stake = min(rules.min_ante, rules.max_tie_bet) if tie_bet or tie_only else 0
    war_tie_stake = min(rules.min_ante, rules.max_war_tie_bet) if war_tie_bet else 0
    choose = policy_for(odds.counts, odds.war_rules, strategy.value)
    server_seed = simulation_server_seed(seed)
    bets = [HandBet(ante, tie_stake)] * hands
    main, tie, war_tie = RatioSums(), RatioSums(), RatioSums()
    round_net = RatioSums()
    ties_seen = done = 0
    awaiting = RoundStatus.AWAITING_DECISION
    while done < rounds:
        chunk_end = min(rounds, done + PROGRESS_EVERY)
        for nonce in range(done, chunk_end):
            game = TableRound.deal(rules, server_seed, SIMULATION_CLIENT_SEED, nonce, bets)
            if game.status is awaiting:
                decisions: dict[int, Decision | str | HandDecision] = {}
                for index in game.awaiting:
                    decision = choose(int(game.hands[index].card.rank) - 2)
                    stake = war_tie_stake if decision is Decision.WAR else 0
                    decisions[index] = HandDecision(decision, war_tie_bet=stake)
                ties_seen += len(decisions)
                game.decide_many(decisions)
            _count(game, main, tie, war_tie, round_net)
        if progress is not None:
            progress(chunk_end - done)
        done = chunk_end
    # Every round is a unit of observation, those without the bet included (they add 0 / 0).
    for ratio in (main, tie, war_tie, round_net):
        ratio.units = rounds
    return SimulationReport(
        rounds=rounds,
        rules=rules,
        strategy=strategy,
        seed=seed,
        ante=ante,
        tie_bet=tie_stake,
        main=main.stats(odds.bets[f"ante_{strategy.value}"].rtp) if ante else None,
        tie=tie.stats(_tie_exact(odds, strategy, tie_only)) if tie_stake else None,
        ties_seen=ties_seen,
        hands=hands,
        war_tie_bet=war_tie_stake,
        war_tie=(
            war_tie.stats(odds.bets["war_tie_bet"].rtp)
            if war_tie_stake and war_tie.staked
            else None
        ),
        round=_round_stats(odds, round_net, hands, ante, tie_stake, war_tie_stake, strategy),
    )


def _count(
    game: TableRound, main: RatioSums, tie: RatioSums, war_tie: RatioSums, round_net: RatioSums
) -> None:
    returned = tie_returned = war_tie_returned = war_tie_placed = net = 0
    staked = tie_staked = 0
    for hand in game.hands:
        # Per unit of initial ante: the raise is a stake of its own, so it is netted out.
        returned += hand.ante_payout + hand.raise_payout - hand.raise_
        staked += hand.ante
        tie_returned += hand.tie_payout
        tie_staked += hand.tie_bet
        war_tie_returned += hand.war_tie_payout
        war_tie_placed += hand.war_tie_bet
        net += (hand.ante_payout + hand.tie_payout + hand.raise_payout + hand.war_tie_payout) - (
            hand.ante + hand.tie_bet + hand.raise_ + hand.war_tie_bet
        )
    if staked:
        main.add(returned, staked)
    if tie_staked:
        tie.add(tie_returned, tie_staked)
    war_tie.add(war_tie_returned, war_tie_placed)
    round_net.add(net, 1)


def _tie_exact(odds: Any, strategy: Strategy, tie_only: bool) -> Fraction:
    bets = odds.bets
    if "tie_bet_alone" in bets and (tie_only or strategy is Strategy.SURRENDER):
        return Fraction(bets["tie_bet_alone"].rtp)
    return Fraction(bets["tie_bet"].rtp)


def _round_stats(
    odds: Any,
    net: RatioSums,
    hands: int,
    ante: int,
    tie_stake: int,
    war_tie_stake: int,
    strategy: Strategy,
) -> RoundStats:
    """The round's net per unit of its ante (or tie bet, for tie-only rounds)."""
    unit = ante or tie_stake
    moments = odds.round_moments(
        hands,
        ante=1 if ante else 0,
        tie_bet=Fraction(tie_stake, unit),
        war_tie_bet=Fraction(war_tie_stake, unit),
        policy=strategy.value,
    )
    n = net.units
    per_round_mean = Fraction(net.returned, n * unit)
    second = Fraction(net.returned_sq, n * unit * unit)
    variance = (second - per_round_mean**2) * n / (n - 1) if n > 1 else Fraction(0)
    return RoundStats(
        observed_mean=float(per_round_mean),
        std_error=math.sqrt(float(variance) / n),
        observed_variance=float(variance),
        exact_mean=moments.mean,
        exact_variance=moments.variance,
    )
