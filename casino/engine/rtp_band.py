"""The exact distribution of one Casino War round's return, and the band observed RTP should
fall in.

Reports compare the RTP a table paid (wins / handle, the raise included in the handle) with
what its rules promise. The promise depends on how players decide ties, so the model takes
the share ``w`` of ties that went to war (the rest surrendered) as given; a table without
surrender has ``w = 1``. The decision is assumed not to depend on the tied rank.

One round with ante ``A`` and tie bet ``B`` returns ``P = A u + B v`` (stakes included) for a
handle ``H = A h + B``, where, from the same finite-shoe combinatorics as ``casino.engine.odds``
(``p`` = P(tie), ``q_*`` = the war card probabilities given a tie, ``k`` = tie pays k:1,
``b`` = 1 with the tie bonus):

    outcome       probability       u        h   v
    win           P(player higher)  2        1   0
    loss          P(player lower)   0        1   0
    surrender     p (1 - w)         1/2      1   k + 1
    war win       p w q_win         3        2   k + 1
    war tie       p w q_tie         3 + b    2   k + 1
    war loss      p w q_loss        0        2   k + 1

How the returned amount is split between the ante and the raise does not matter here: only
totals per round are used.

Over many rounds the observed RTP ``r = sum P / sum H`` is a ratio of sums. With
``rho = E[sum P] / E[sum H]`` (the theoretical RTP for the bets actually placed) and
``D_i = P_i - rho H_i``, ``r - rho = sum D / sum H`` with ``E[sum D] = 0``, so to first order
``Var(r) = sum Var(D_i) / E[sum H]^2`` (the delta method). ``Var(D_i)`` is a quadratic form
in ``(A_i, B_i)`` whose coefficients are exact moments of ``(u, h, v)``: the sums of ``A^2``,
``A B`` and ``B^2`` over the rounds are all the data it needs. Everything is an exact
``Fraction`` up to the final square root, and whether an observed RTP lies inside the band is
decided exactly (comparing squares), with no rounding at its edge.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import cached_property, lru_cache

from casino.engine.casino_war import TableRules
from casino.engine.odds import odds_for
from casino.engine.table_odds import table_odds

#: The two-sided 95 % quantile of the standard normal distribution.
Z_95 = Fraction("1.959963984540054")
SIGNIFICANT_DIGITS = 28


@dataclass(frozen=True)
class ReturnOutcome:
    """One way a round can end, per unit of ante (u, h) and of tie bet (v)."""

    name: str
    probability: Fraction
    #: returned for the ante and the raise, stakes included, per unit of ante
    ante_returned: Fraction
    #: staked on the ante and the raise, per unit of ante (2 after going to war)
    ante_staked: int
    #: returned for the tie bet, stake included, per unit of tie bet
    tie_returned: int


@dataclass(frozen=True)
class Moments:
    """Exact first and second moments of (u, h, v) = (ante_returned, ante_staked,
    tie_returned)."""

    u: Fraction
    h: Fraction
    v: Fraction
    uu: Fraction
    uh: Fraction
    hh: Fraction
    uv: Fraction
    hv: Fraction
    vv: Fraction


@dataclass(frozen=True)
class RoundReturn:
    """The distribution of one round's return under a table's rules and a war share."""

    decks: int
    tie_pays: int
    war_tie_bonus: bool
    war_share: Fraction
    outcomes: tuple[ReturnOutcome, ...]

    @cached_property
    def moments(self) -> Moments:
        return _moments(self.outcomes)

    def expected_ante_rtp(self) -> Fraction:
        """E[returned] / E[staked] for the ante and raise alone, the raise in the stake."""
        m = self.moments
        return m.u / m.h

    def expected_tie_bet_rtp(self) -> Fraction:
        return self.moments.v


def _moments(outcomes: tuple[ReturnOutcome, ...]) -> Moments:
    totals = [Fraction(0)] * 9
    for o in outcomes:
        u, p = o.ante_returned, o.probability
        h, v = Fraction(o.ante_staked), Fraction(o.tie_returned)
        values: tuple[Fraction, ...] = (u, h, v, u * u, u * h, h * h, u * v, h * v, v * v)
        for i, value in enumerate(values):
            totals[i] += p * value
    return Moments(*totals)


def round_return(
    decks: int, tie_pays: int, war_tie_bonus: bool, war_share: Fraction | int = 1
) -> RoundReturn:
    """The exact return distribution; ``war_share`` in [0, 1] is the share of ties played
    as a war (the rest surrendered)."""
    share = Fraction(war_share)
    if not 0 <= share <= 1:
        raise ValueError(f"war share must be between 0 and 1, not {share}")
    return _round_return(decks, tie_pays, bool(war_tie_bonus), share)


@lru_cache(maxsize=512)
def _round_return(decks: int, tie_pays: int, war_tie_bonus: bool, w: Fraction) -> RoundReturn:
    odds = odds_for(decks, tie_pays=tie_pays, war_tie_bonus=war_tie_bonus)
    p = odds.p_tie
    # Higher and lower first cards are equally likely: the shoe is symmetric in rank order.
    no_tie = (1 - p) / 2
    tie_back = tie_pays + 1
    bonus = 1 if war_tie_bonus else 0
    outcomes = (
        ReturnOutcome("win", no_tie, Fraction(2), 1, 0),
        ReturnOutcome("loss", no_tie, Fraction(0), 1, 0),
        ReturnOutcome("surrender", p * (1 - w), Fraction(1, 2), 1, tie_back),
        ReturnOutcome("war_win", p * w * odds.p_war_win, Fraction(3), 2, tie_back),
        ReturnOutcome("war_tie", p * w * odds.p_war_tie, Fraction(3 + bonus), 2, tie_back),
        ReturnOutcome("war_loss", p * w * odds.p_war_loss, Fraction(0), 2, tie_back),
    )
    return RoundReturn(decks, tie_pays, war_tie_bonus, w, outcomes)


def round_return_of(
    rules: TableRules, war_share: Fraction | int = 1, *, tie_only: bool = False
) -> RoundReturn:
    """``round_return`` for any table rules (repeated wars, the tie ladder): the same model,
    one hand's outcomes from ``casino.engine.table_odds``, a tied hand going to war with
    probability ``war_share`` whatever its rank. ``tie_only``: hands of a tie bet alone (no
    ante; with a ladder, stopped at the first tie). The war tie bet is a ``SideBet``."""
    share = Fraction(war_share)
    if not 0 <= share <= 1:
        raise ValueError(f"war share must be between 0 and 1, not {share}")
    return _round_return_of(rules, share, tie_only)


@lru_cache(maxsize=256)
def _round_return_of(rules: TableRules, w: Fraction, tie_only: bool) -> RoundReturn:
    odds = table_odds(rules)
    weighted: dict[tuple[Fraction, int, int], Fraction] = {}
    policies = (("war", Fraction(1)),) if tie_only else (("war", w), ("surrender", 1 - w))
    for policy, weight in policies:
        if not weight:
            continue
        for outcome, p in odds.distribution(policy, tie_only=tie_only).items():
            key = (
                outcome.staked + outcome.ante_net,
                outcome.staked,
                rules.tie_bet_return(outcome.ties),
            )
            weighted[key] = weighted.get(key, Fraction(0)) + weight * p
    outcomes = tuple(
        ReturnOutcome(f"u={u} h={h} v={v}", p, u, h, v) for (u, h, v), p in sorted(weighted.items())
    )
    return RoundReturn(rules.decks, rules.tie_pays, rules.war_tie_bonus, w, outcomes)


@dataclass(frozen=True)
class StakeSums:
    """Sums over a set of rounds of the ante A and tie bet B (minor units): what the band
    needs to know about the bets."""

    rounds: int = 0
    ante: int = 0
    tie_bet: int = 0
    ante_sq: int = 0
    ante_tie: int = 0
    tie_sq: int = 0

    @classmethod
    def of(cls, ante: int, tie_bet: int, rounds: int = 1) -> StakeSums:
        """``rounds`` rounds with the same bets."""
        n = rounds
        return cls(n, n * ante, n * tie_bet, n * ante * ante, n * ante * tie_bet, n * tie_bet**2)

    def __add__(self, other: StakeSums) -> StakeSums:
        return StakeSums(
            self.rounds + other.rounds,
            self.ante + other.ante,
            self.tie_bet + other.tie_bet,
            self.ante_sq + other.ante_sq,
            self.ante_tie + other.ante_tie,
            self.tie_sq + other.tie_sq,
        )

    def ante_only(self) -> StakeSums:
        """The same rounds seen as ante-and-raise bets alone."""
        return StakeSums(self.rounds, self.ante, 0, self.ante_sq, 0, 0)

    def tie_bet_only(self) -> StakeSums:
        """The same rounds seen as tie bets alone (rounds without one weigh nothing)."""
        return StakeSums(self.rounds, 0, self.tie_bet, 0, 0, self.tie_sq)


@dataclass(frozen=True)
class SideBet:
    """Stakes on a bet placed during the round (the war tie bet, placed with a war): its
    exact return per unit placed (``mean``, ``variance``) and the sums of its stakes and of
    their squares over a set of rounds. The band takes it as independent of the round's
    other bets (its covariance with the raise is left out); its expected return is exact."""

    mean: Fraction
    variance: Fraction
    stake: int = 0
    stake_sq: int = 0


@dataclass(frozen=True)
class RtpBand:
    """Theoretical RTP for a set of bets and the band around it at confidence ``z``."""

    expected_rtp: Fraction
    expected_handle: Fraction
    #: variance of the observed RTP (delta method), exact
    variance: Fraction
    z: Fraction = Z_95

    @property
    def std_dev(self) -> Decimal:
        return _sqrt(self.variance)

    @property
    def half_width(self) -> Decimal:
        return _decimal(self.z) * self.std_dev

    @property
    def low(self) -> Decimal:
        return _decimal(self.expected_rtp) - self.half_width

    @property
    def high(self) -> Decimal:
        return _decimal(self.expected_rtp) + self.half_width

    def contains(self, observed: Fraction) -> bool:
        """Whether ``observed`` lies in the band, edges included, decided exactly."""
        gap = observed - self.expected_rtp
        return gap * gap <= self.z * self.z * self.variance

    def z_score(self, observed: Fraction) -> Decimal | None:
        """(observed - expected) in standard deviations; None when the spread is zero."""
        if self.variance == 0:
            return None
        return _decimal(observed - self.expected_rtp) / self.std_dev


def rtp_band(
    parts: Iterable[tuple[RoundReturn, StakeSums]],
    z: Fraction = Z_95,
    side_bets: Iterable[SideBet] = (),
) -> RtpBand | None:
    """The band for rounds grouped by distribution, with any ``side_bets`` placed during
    them; None when nothing is staked."""
    items = [(model.moments, sums) for model, sums in parts]
    sides = [side for side in side_bets if side.stake]
    returned = Fraction(0)
    handle = Fraction(0)
    for m, s in items:
        returned += s.ante * m.u + s.tie_bet * m.v
        handle += s.ante * m.h + s.tie_bet
    for side in sides:
        returned += side.stake * side.mean
        handle += side.stake
    if handle == 0:
        return None
    rho = returned / handle
    total = Fraction(0)
    for m, s in items:
        # D = A a + B b with a = u - rho h, b = v - rho.
        mean_a = m.u - rho * m.h
        mean_b = m.v - rho
        var_a = m.uu - 2 * rho * m.uh + rho * rho * m.hh - mean_a * mean_a
        var_b = m.vv - 2 * rho * m.v + rho * rho - mean_b * mean_b
        cov_ab = m.uv - rho * m.u - rho * m.hv + rho * rho * m.h - mean_a * mean_b
        total += s.ante_sq * var_a + 2 * s.ante_tie * cov_ab + s.tie_sq * var_b
    for side in sides:
        # D = W (r - rho): its variance is W^2 Var(r), whatever rho.
        total += side.stake_sq * side.variance
    return RtpBand(expected_rtp=rho, expected_handle=handle, variance=total / handle**2, z=z)


def _decimal(value: Fraction) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = SIGNIFICANT_DIGITS
        return Decimal(value.numerator) / value.denominator


def _sqrt(value: Fraction) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = SIGNIFICANT_DIGITS
        return (Decimal(value.numerator) / value.denominator).sqrt()
