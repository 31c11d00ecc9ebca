"""Monte Carlo of Casino War through the production path: deal_casino_war + CasinoWarRound.

The rounds are provably fair rounds like any other: server seed = SHA-256 of the ``seed``
text, client seed ``SIMULATION_CLIENT_SEED``, nonces 0 .. rounds-1. So a run is reproducible
and any single round can be re-dealt with the verifier.

RTP is measured per unit of the initial stake, like the exact figures in ``odds``: for the
ante game, the mean of (ante + net of ante and raise) / ante; for the tie bet, the mean
of (amount returned for the tie bet) / tie bet. The standard error is the sample standard
deviation of that ratio over sqrt(rounds).
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
    CasinoWarRound,
    Decision,
    RoundStatus,
    TableRules,
    deal_casino_war,
)
from casino.engine.errors import InvalidRules
from casino.engine.odds import casino_war_odds

SIMULATION_CLIENT_SEED = "simulation"
DEFAULT_SEED = "casino-war"
#: Observed and exact RTP "agree" when they are this many standard errors apart or fewer.
AGREEMENT_SE = 3
PROGRESS_EVERY = 10_000


class Strategy(StrEnum):
    WAR = "war"
    SURRENDER = "surrender"


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
class SimulationReport:
    rounds: int
    rules: TableRules
    strategy: Strategy
    seed: str
    ante: int
    tie_bet: int
    main: BetStats
    tie: BetStats | None
    ties_seen: int

    @property
    def agrees(self) -> bool:
        return self.main.within() and (self.tie is None or self.tie.within())

    def to_dict(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "decks": self.rules.decks,
            "tie_pays": self.rules.tie_pays,
            "war_tie_bonus": self.rules.war_tie_bonus,
            "strategy": self.strategy.value,
            "seed": self.seed,
            "server_seed_hash": hashlib.sha256(simulation_server_seed(self.seed)).hexdigest(),
            "client_seed": SIMULATION_CLIENT_SEED,
            "ante": self.ante,
            "tie_bet": self.tie_bet,
            "ties_seen": self.ties_seen,
            "main": self.main.to_dict(),
            "tie_bet_stats": None if self.tie is None else self.tie.to_dict(),
            "agrees": self.agrees,
        }


class _Moments:
    """Running sum and sum of squares of integer amounts, kept exact."""

    __slots__ = ("count", "total", "total_sq")

    def __init__(self) -> None:
        self.count = 0
        self.total = 0
        self.total_sq = 0

    def stats(self, unit: int, exact: Fraction) -> BetStats:
        n = self.count
        mean = Fraction(self.total, n * unit)
        variance = Fraction(self.total_sq, n * unit * unit) - mean * mean
        if n > 1:
            variance = variance * n / (n - 1)
        return BetStats(float(mean), math.sqrt(float(variance) / n), exact)


def simulate(
    rounds: int,
    rules: TableRules | None = None,
    *,
    strategy: Strategy | str = Strategy.WAR,
    tie_bet: bool = False,
    seed: str = DEFAULT_SEED,
    progress: Callable[[int], None] | None = None,
) -> SimulationReport:
    """Play ``rounds`` rounds at the minimum ante (and a tie bet of the same size, capped at
    the table maximum, when ``tie_bet``); ``progress(n)`` is told of every n rounds played."""
    if rounds < 1:
        raise ValueError("simulate at least one round")
    rules = rules or TableRules()
    strategy = Strategy(strategy)
    decision = Decision.WAR if strategy is Strategy.WAR else Decision.SURRENDER
    if decision is Decision.SURRENDER and not rules.surrender_allowed:
        raise InvalidRules("this table does not allow surrender", code="surrender_not_allowed")
    ante = rules.min_ante
    tie_stake = 0
    if tie_bet:
        if not rules.tie_bet_offered:
            raise InvalidRules("this table has no tie bet", code="tie_bet_not_offered")
        tie_stake = min(ante, rules.max_tie_bet)

    server_seed = simulation_server_seed(seed)
    decks = rules.decks
    awaiting = RoundStatus.AWAITING_DECISION
    main = _Moments()
    tie = _Moments()
    ties_seen = 0
    done = 0
    while done < rounds:
        chunk_end = min(rounds, done + PROGRESS_EVERY)
        for nonce in range(done, chunk_end):
            deal = deal_casino_war(server_seed, SIMULATION_CLIENT_SEED, nonce, decks)
            game = CasinoWarRound.start(rules, deal, ante, tie_stake)
            if game.status is awaiting:
                ties_seen += 1
                game.decide(decision)
            result = game.result
            payouts = result.payouts
            # Per unit of initial ante: the raise is a stake of its own, so it is netted out.
            returned = payouts.ante + payouts.raise_ - result.bets.raise_
            main.total += returned
            main.total_sq += returned * returned
            tie_returned = payouts.tie_bet
            tie.total += tie_returned
            tie.total_sq += tie_returned * tie_returned
        if progress is not None:
            progress(chunk_end - done)
        done = chunk_end
    main.count = tie.count = rounds

    rtp = casino_war_odds(rules).rtp()
    return SimulationReport(
        rounds=rounds,
        rules=rules,
        strategy=strategy,
        seed=seed,
        ante=ante,
        tie_bet=tie_stake,
        main=main.stats(ante, rtp[strategy.value]),
        tie=tie.stats(tie_stake, rtp["tie_bet"]) if tie_stake else None,
        ties_seen=ties_seen,
    )
