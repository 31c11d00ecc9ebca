"""The figures of a report's slices (all bets, ante game, tie bet, war tie bet) over a set of
settled-round groups: handle, wins, GGR, hold, observed RTP, and the theoretical RTP with its
band from the exact odds of every round's own rules (``casino.service.reports`` says how).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from fractions import Fraction
from functools import lru_cache
from typing import Any

from casino.engine.casino_war import TableRules
from casino.engine.rtp_band import (
    RoundReturn,
    RtpBand,
    SideBet,
    StakeSums,
    round_return_of,
    rtp_band,
)
from casino.engine.table_odds import table_odds
from casino.store.reports import SettledGroup

#: The rules that set a round's odds: the table's rules with every other rule at its default
OddsKey = TableRules


@dataclass(frozen=True)
class BetFigures:
    """One slice of the bets (all, ante game, tie bet) over a period."""

    rounds: int
    handle: int
    wins: int
    ggr: int
    hold: float | None
    observed_rtp: float | None
    theoretical_rtp: float | None
    theoretical_rtp_exact: str | None
    std_dev: float | None
    band_low: float | None
    band_high: float | None
    z_score: float | None
    outside_band: bool


@dataclass(frozen=True)
class DecisionShares:
    ties: int
    war: int
    surrender: int
    war_share: float | None
    surrender_share: float | None


@dataclass(frozen=True)
class PeriodFigures:
    """A table's figures over one day, or over the whole period (``day`` None)."""

    day: date | None
    rounds: int
    all_bets: BetFigures
    ante_game: BetFigures
    tie_bet: BetFigures
    war_tie_bet: BetFigures
    decisions: DecisionShares

    @property
    def flagged(self) -> bool:
        slices = (self.all_bets, self.ante_game, self.tie_bet, self.war_tie_bet)
        return any(s.outside_band for s in slices)


def odds_key(group: SettledGroup) -> OddsKey:
    return _rules_of(tuple(sorted(group.rules_snapshot().items())))


@lru_cache(maxsize=256)
def _rules_of(snapshot: tuple[tuple[str, Any], ...]) -> TableRules:
    return TableRules.from_dict(dict(snapshot))


# --- figures --------------------------------------------------------------------------------


def period_figures(day: date | None, groups: Iterable[SettledGroup]) -> PeriodFigures:
    """The four slices and the decisions of a set of settled-round groups."""
    groups = list(groups)
    ties = sum(g.ties for g in groups)
    wars = sum(g.wars for g in groups)
    # No tie in the period: the strategy cannot be seen and barely matters; assume war.
    war_share = Fraction(wars, ties) if ties else Fraction(1)
    # Tie bets of hands without an ante (tie-only hands) have their own distribution: a
    # round's hands with an ante are one part, its tie-only hands another.
    sums: dict[tuple[OddsKey, bool], StakeSums] = defaultdict(StakeSums)
    side_sums: dict[OddsKey, tuple[int, int]] = defaultdict(lambda: (0, 0))
    for g in groups:
        key = odds_key(g)
        alone = g.tie_bet if g.ante == 0 else g.tie_only_bet
        if g.ante:
            sums[(key, False)] += StakeSums.of(g.ante, g.tie_bet - alone, g.rounds)
        if alone:
            sums[(key, True)] += StakeSums.of(0, alone, g.rounds)
        stake, stake_sq = side_sums[key]
        side_sums[key] = (stake + g.war_tie_bet * g.rounds, stake_sq + g.war_tie_bet**2 * g.rounds)
    models = {
        (key, tie_only): round_return_of(key, war_share, tie_only=tie_only)
        for key, tie_only in sums
    }
    side_bets = [_war_tie_side(key, *stakes) for key, stakes in side_sums.items() if stakes[0]]

    def parts(slice_of: Callable[[StakeSums], StakeSums]) -> list[tuple[RoundReturn, StakeSums]]:
        return [(models[key], slice_of(s)) for key, s in sums.items()]

    rounds = sum(g.rounds for g in groups)
    antes = sum(g.ante * g.rounds for g in groups)
    tie_bets = sum(g.tie_bet * g.rounds for g in groups)
    war_tie_bets = sum(g.war_tie_bet * g.rounds for g in groups)
    raised = sum(g.raised for g in groups)
    ante_paid = sum(g.ante_paid for g in groups)
    tie_paid = sum(g.tie_bet_paid for g in groups)
    war_tie_paid = sum(g.war_tie_bet_paid for g in groups)
    return PeriodFigures(
        day=day,
        rounds=rounds,
        all_bets=_figures(
            rounds,
            antes + raised + tie_bets + war_tie_bets,
            ante_paid + tie_paid + war_tie_paid,
            rtp_band(parts(_whole), side_bets=side_bets),
        ),
        ante_game=_figures(
            sum(g.rounds for g in groups if g.ante),
            antes + raised,
            ante_paid,
            rtp_band(parts(StakeSums.ante_only)),
        ),
        tie_bet=_figures(
            sum(g.rounds for g in groups if g.tie_bet),
            tie_bets,
            tie_paid,
            rtp_band(parts(StakeSums.tie_bet_only)),
        ),
        war_tie_bet=_figures(
            sum(g.rounds for g in groups if g.war_tie_bet),
            war_tie_bets,
            war_tie_paid,
            rtp_band([], side_bets=side_bets),
        ),
        decisions=DecisionShares(
            ties=ties,
            war=wars,
            surrender=ties - wars,
            war_share=wars / ties if ties else None,
            surrender_share=(ties - wars) / ties if ties else None,
        ),
    )


def _war_tie_side(rules: OddsKey, stake: int, stake_sq: int) -> SideBet:
    """The war tie bets placed at one set of rules, with their exact odds per unit placed."""
    bet = table_odds(rules).bets.get("war_tie_bet")
    if bet is None:  # stakes where the snapshot offers no war tie bet: it cannot happen
        raise ValueError("war tie bets at rules without a war tie bet")
    return SideBet(bet.rtp, bet.variance, stake, stake_sq)


def _whole(sums: StakeSums) -> StakeSums:
    return sums


def _figures(rounds: int, handle: int, wins: int, band: RtpBand | None) -> BetFigures:
    observed = Fraction(wins, handle) if handle else None
    inside = band is None or observed is None or band.contains(observed)
    z = None if band is None or observed is None else band.z_score(observed)
    return BetFigures(
        rounds=rounds,
        handle=handle,
        wins=wins,
        ggr=handle - wins,
        hold=None if observed is None else float(1 - observed),
        observed_rtp=None if observed is None else float(observed),
        theoretical_rtp=None if band is None else float(band.expected_rtp),
        theoretical_rtp_exact=None if band is None else exact(band.expected_rtp),
        std_dev=None if band is None else float(band.std_dev),
        band_low=None if band is None else float(band.low),
        band_high=None if band is None else float(band.high),
        z_score=None if z is None else float(z),
        outside_band=not inside,
    )


def exact(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"
