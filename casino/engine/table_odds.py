"""The exact house edge, RTP and variance of every bet a Casino War table offers, for any
of its rules, from finite-shoe combinatorics (``hand_odds``, ``round_odds``).

Two conventions, both given for every bet (docs/fairness.md, section 15, says which one each
published figure uses):

* **per initial bet**: the player's expected net per unit of the bet placed before the deal
  (the ante; the raise, placed on a tie, is part of the result, not of the unit). This is
  the usual "house edge" of Casino War (2.88 % at 6 decks, always war) and our ``rtp``;
* **per total wagered**: the same expected net per unit of everything wagered on the bet,
  the raise included (the "element of risk"): edge / (1 + P(war)). Gameiom quotes its RTPs
  this way.

The bets (``BetFigures.name``):

* ``ante_war``, ``ante_surrender``, ``ante_best``: the ante (and raise) when every tie goes
  to war, is surrendered (computed even where the table forbids surrender), or takes per
  tied rank the better of the two (the best decision; surrender only where allowed);
* ``tie_bet``: the tie bet, per unit; with a ladder, the hand going to war on a tie (so the
  ladder can climb); ``tie_bet_alone``: with a ladder, a tie bet whose hand stops at the
  first tie (a surrender, or a tie-only bet): it pays the first step;
* ``war_tie_bet``: the war tie bet, per unit placed (it is placed with a war).

Several hands: each hand's figures are those of one hand (the hands of a round share the
dealer's cards, which correlates them but leaves each hand's own odds unchanged);
``round_variance`` gives the variance of a round's net.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import Any

from casino.engine.casino_war import TableRules
from casino.engine.hand_odds import (
    Counts,
    Distribution,
    HandOutcome,
    WarRules,
    hand_distribution,
    shoe_counts,
    tie_probability,
)
from casino.engine.round_odds import pair_distribution

SIGNIFICANT_DIGITS = 28
#: A stake in units of the ante (whole, or a fraction of it).
Stake = int | Fraction
ANTE_POLICIES = ("war", "surrender", "best")


def sqrt_decimal(value: Fraction) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = SIGNIFICANT_DIGITS
        return (Decimal(value.numerator) / value.denominator).sqrt()


@dataclass(frozen=True)
class BetFigures:
    """The exact figures of one bet: ``rtp`` is the amount returned per unit of the initial
    bet, ``expected_stake`` the amount wagered on the bet per unit of the initial bet (1, or
    1 + P(war) for the ante), ``variance`` that of the net per unit of the initial bet."""

    name: str
    description: str
    rtp: Fraction
    expected_stake: Fraction
    variance: Fraction

    @property
    def house_edge(self) -> Fraction:
        return 1 - self.rtp

    @property
    def house_edge_per_total(self) -> Fraction:
        """The edge per unit of the total amount wagered (element of risk)."""
        return self.house_edge / self.expected_stake

    @property
    def rtp_per_total(self) -> Fraction:
        return 1 - self.house_edge_per_total

    @property
    def std_dev(self) -> Decimal:
        return sqrt_decimal(self.variance)

    def to_json(self) -> dict[str, Any]:
        figures = {
            "rtp": self.rtp,
            "house_edge": self.house_edge,
            "rtp_per_total": self.rtp_per_total,
            "house_edge_per_total": self.house_edge_per_total,
            "expected_stake": self.expected_stake,
            "variance": self.variance,
        }
        data: dict[str, Any] = {"description": self.description}
        data.update({key: float(value) for key, value in figures.items()})
        data["std_dev"] = float(self.std_dev)
        data["exact"] = {key: str(value) for key, value in figures.items()}
        return data


def _moments(
    dist: Distribution, value: Callable[[HandOutcome], Fraction], where: Callable[..., bool]
) -> tuple[Fraction, Fraction, Fraction]:
    """(P(where), E[value | where], E[value^2 | where])."""
    mass = first = second = Fraction(0)
    for outcome, p in dist.items():
        if where(outcome):
            v = value(outcome)
            mass += p
            first += p * v
            second += p * v * v
    return mass, first / mass, second / mass


def _always(_: HandOutcome) -> bool:
    return True


def _went_to_war(outcome: HandOutcome) -> bool:
    return outcome.war_tie is not None


@dataclass(frozen=True)
class TableOdds:
    """Every bet of a table, exactly. ``counts`` is the shoe (cards per rank, lowest first);
    a table's shoe unless given (the tests use small shoes)."""

    rules: TableRules
    counts: Counts = field(default=())

    def __post_init__(self) -> None:
        if not self.counts:
            object.__setattr__(self, "counts", shoe_counts(self.rules.decks))

    @cached_property
    def war_rules(self) -> WarRules:
        return WarRules.of(self.rules)

    @property
    def p_tie(self) -> Fraction:
        return tie_probability(self.counts)

    def distribution(self, policy: str = "best", *, tie_only: bool = False) -> Distribution:
        """How one hand ends under a decision ``policy`` (``war``, ``surrender``, ``best``)."""
        war_rules = self.war_rules
        if policy in ("war", "surrender"):  # a fixed decision, allowed or not
            war_rules = WarRules(war_rules.war_ties, war_rules.max_ties, True)
        return _hand(self.counts, war_rules, policy, tie_only)

    # --- the value of each bet per unit, from a hand's outcome -------------------------------

    def ante_net(self, outcome: HandOutcome) -> Fraction:
        return outcome.ante_net

    def tie_net(self, outcome: HandOutcome) -> Fraction:
        return Fraction(self.rules.tie_bet_return(outcome.ties) - 1)

    def war_tie_net(self, outcome: HandOutcome) -> Fraction:
        """Per unit of war tie bet; 0 where no war (the bet is not placed)."""
        if outcome.war_tie is None:
            return Fraction(0)
        return Fraction(self.rules.war_tie_pays if outcome.war_tie else -1)

    # --- the bets -------------------------------------------------------------------------

    @cached_property
    def bets(self) -> dict[str, BetFigures]:
        rules = self.rules
        out: dict[str, BetFigures] = {}
        for policy in ANTE_POLICIES:
            dist = self.distribution(policy)
            _, mean, square = _moments(dist, self.ante_net, _always)
            stake = sum((p * o.staked for o, p in dist.items()), Fraction(0))
            out[f"ante_{policy}"] = BetFigures(
                f"ante_{policy}",
                _ANTE_WORDS[policy],
                1 + mean,
                stake,
                square - mean * mean,
            )
        at_war = self.distribution("war")
        _, mean, square = _moments(at_war, self.tie_net, _always)
        words = "ladder tie bet, the hand at war on a tie" if rules.tie_ladder else "tie bet"
        out["tie_bet"] = BetFigures("tie_bet", words, 1 + mean, Fraction(1), square - mean**2)
        if rules.tie_ladder is not None:
            alone = self.distribution("war", tie_only=True)
            _, mean, square = _moments(alone, self.tie_net, _always)
            out["tie_bet_alone"] = BetFigures(
                "tie_bet_alone",
                "ladder tie bet stopping at the first tie",
                1 + mean,
                Fraction(1),
                square - mean**2,
            )
        if rules.war_tie_bet_offered:
            _, mean, square = _moments(at_war, self.war_tie_net, _went_to_war)
            out["war_tie_bet"] = BetFigures(
                "war_tie_bet",
                "war tie bet, per unit placed",
                1 + mean,
                Fraction(1),
                square - mean**2,
            )
        return out

    def rtp(self) -> dict[str, Fraction]:
        """``theoretical_rtp``'s form: ``war``, ``surrender``, ``tie_bet`` as always, plus
        ``tie_bet_alone`` (a ladder) and ``war_tie_bet`` where the table has them."""
        bets = self.bets
        out = {
            "war": bets["ante_war"].rtp,
            "surrender": bets["ante_surrender"].rtp,
            "tie_bet": bets["tie_bet"].rtp,
        }
        for extra in ("tie_bet_alone", "war_tie_bet"):
            if extra in bets:
                out[extra] = bets[extra].rtp
        return out

    # --- a round of several hands ---------------------------------------------------------

    def hand_net(
        self, ante: Stake = 1, tie_bet: Stake = 0, war_tie_bet: Stake = 0
    ) -> Callable[[HandOutcome], Fraction]:
        """A hand's net for stakes (ante, tie bet, war tie bet placed on every war)."""

        def net(outcome: HandOutcome) -> Fraction:
            value = ante * outcome.ante_net + tie_bet * self.tie_net(outcome)
            return value + war_tie_bet * self.war_tie_net(outcome)

        return net

    def round_moments(
        self,
        hands: int,
        *,
        ante: Stake = 1,
        tie_bet: Stake = 0,
        war_tie_bet: Stake = 0,
        policy: str = "best",
    ) -> RoundMoments:
        """Mean and variance of the net of a round of ``hands`` like hands (ante 0: tie-only
        hands), exactly: n Var(X) + n (n - 1) Cov(X1, X2)."""
        if not 1 <= hands <= self.rules.max_hands:
            raise ValueError(f"a round at this table has 1 to {self.rules.max_hands} hands")
        tie_only = ante == 0
        net = self.hand_net(ante, tie_bet, war_tie_bet)
        single = self.distribution(policy, tie_only=tie_only)
        _, mean, square = _moments(single, net, _always)
        variance = square - mean * mean
        covariance = Fraction(0)
        if hands > 1:
            war_rules = self.war_rules
            if policy in ("war", "surrender"):
                war_rules = WarRules(war_rules.war_ties, war_rules.max_ties, True)
            pairs = pair_distribution(self.counts, war_rules, policy, tie_only=tie_only)
            joint = sum((p * net(a) * net(b) for (a, b), p in pairs.items()), Fraction(0))
            covariance = joint - mean * mean
        return RoundMoments(hands, mean, variance, covariance)

    def round_variance(self, hands: int, **stakes: Any) -> Fraction:
        return self.round_moments(hands, **stakes).variance


@dataclass(frozen=True)
class RoundMoments:
    """A round of ``hands`` like hands: each hand's mean net and variance, the covariance of
    two of its hands, and the round's."""

    hands: int
    hand_mean: Fraction
    hand_variance: Fraction
    covariance: Fraction

    @property
    def mean(self) -> Fraction:
        return self.hands * self.hand_mean

    @property
    def variance(self) -> Fraction:
        n = self.hands
        return n * self.hand_variance + n * (n - 1) * self.covariance

    @property
    def std_dev(self) -> Decimal:
        return sqrt_decimal(self.variance)

    def to_json(self) -> dict[str, Any]:
        figures = {
            "mean": self.mean,
            "variance": self.variance,
            "hand_variance": self.hand_variance,
            "covariance": self.covariance,
        }
        data: dict[str, Any] = {"hands": self.hands}
        data.update({key: float(value) for key, value in figures.items()})
        data["std_dev"] = float(self.std_dev)
        data["exact"] = {key: str(value) for key, value in figures.items()}
        return data


_ANTE_WORDS = {
    "war": "ante, always go to war",
    "surrender": "ante, always surrender",
    "best": "ante, the better decision per tied rank",
}


@lru_cache(maxsize=256)
def _hand(counts: Counts, rules: WarRules, policy: str, tie_only: bool) -> Distribution:
    return hand_distribution(counts, rules, policy, tie_only=tie_only)


@lru_cache(maxsize=256)
def table_odds(rules: TableRules) -> TableOdds:
    """The exact figures of a table's bets (cached per rules)."""
    return TableOdds(rules)
