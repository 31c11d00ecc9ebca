"""The exact joint distribution of two hands of one Casino War round, and from it the
variance of a round of several hands.

Hands of one round share the dealer's cards (the first one and one per war), so their
results are correlated. The variance of a round of ``n`` like hands is
``n Var(X) + n (n - 1) Cov(X1, X2)``: every pair of hands has the same joint distribution,
that of the two hands of a two-hand round. The cards a pair of hands sees (the dealer's, its
two first cards, its war cards and the dealer's war cards) come in an order fixed by the
pair's own cards, wherever the other hands' cards fall, and a selection of cards made
without looking ahead is distributed like the first cards of the shoe (exchangeability,
Kallenberg's predictable sampling); a hand's own distribution is likewise the one-hand
distribution (``hand_odds``). The tests check both against an enumeration that deals every
card of rounds of two and three hands.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from casino.engine.casino_war import Decision, WarTies
from casino.engine.hand_odds import (
    SURRENDERED,
    Counts,
    Distribution,
    HandOutcome,
    WarRules,
    less_one,
    policy_for,
    war_distribution,
)

Pair = tuple[HandOutcome, HandOutcome]
PairDistribution = dict[Pair, Fraction]


def _add(into: PairDistribution, pair: Pair, p: Fraction) -> None:
    if p:
        into[pair] = into.get(pair, Fraction(0)) + p


def _fixed(outcome: HandOutcome) -> Distribution:
    return {outcome: Fraction(1)}


def _product(first: Distribution, second: Distribution, p: Fraction, into: PairDistribution):
    for a, pa in first.items():
        for b, pb in second.items():
            _add(into, (a, b), p * pa * pb)


def _first_card(player: int, dealer: int, stake: int, tie_only: bool) -> HandOutcome | None:
    """The outcome of a hand settled by its first card; None for a tie to decide."""
    if player > dealer:
        return HandOutcome(Fraction(stake), stake, 0, None)
    if player < dealer:
        return HandOutcome(Fraction(-stake), stake, 0, None)
    if tie_only:
        return HandOutcome(Fraction(0), 0, 1, None)
    return None


@lru_cache(maxsize=64)
def pair_distribution(
    counts: Counts, rules: WarRules, policy: str = "war", *, tie_only: bool = False
) -> PairDistribution:
    """How two hands of one round end together (dealer's card, then each hand's; a war is
    dealt to the hands at war together, one dealer card for both). Cached: do not change
    the mapping returned."""
    total = sum(counts)
    choose = policy_for(counts, rules, policy)
    stake = 0 if tie_only else 1
    # Deals that end alike are gathered first: a lone tied hand's war depends on the cards
    # left only as a multiset, two tied hands' on the cards left themselves.
    gathered: dict[tuple[HandOutcome | None, HandOutcome | None, Counts, Decision], int] = {}
    for d, cd in enumerate(counts):
        if not cd:
            continue
        after_d = less_one(counts, d)
        for p1, c1 in enumerate(after_d):
            if not c1:
                continue
            after_1 = less_one(after_d, p1)
            for p2, c2 in enumerate(after_1):
                if not c2:
                    continue
                one = _first_card(p1, d, stake, tie_only)
                two = _first_card(p2, d, stake, tie_only)
                left = less_one(after_1, p2)
                if one is not None and two is not None:
                    left = ()
                elif one is not None or two is not None:
                    left = tuple(sorted(left))
                key = (one, two, left, choose(d))
                gathered[key] = gathered.get(key, 0) + cd * c1 * c2
    out: PairDistribution = {}
    deals = total * (total - 1) * (total - 2)
    for (one, two, left, decision), ways in gathered.items():
        _settle_pair(out, Fraction(ways, deals), left, one, two, decision, rules)
    return out


def _settle_pair(
    out: PairDistribution,
    p: Fraction,
    left: Counts,
    one: HandOutcome | None,
    two: HandOutcome | None,
    decision: Decision,
    rules: WarRules,
) -> None:
    """A pair after its first cards: ``one``/``two`` None for a hand tied to decide."""
    if one is not None and two is not None:
        _add(out, (one, two), p)
        return
    war = decision is Decision.WAR
    if one is None and two is None and war:
        for pair, q in _joint_war(left, 1, True, rules).items():
            _add(out, pair, p * q)
        return
    first = _fixed(one) if one is not None else _tied(left, decision, rules)
    second = _fixed(two) if two is not None else _tied(left, decision, rules)
    _product(first, second, p, out)


def _tied(left: Counts, decision: Decision, rules: WarRules) -> Distribution:
    if decision is Decision.SURRENDER:
        return _fixed(SURRENDERED)
    return war_distribution(left, rules)


@lru_cache(maxsize=1024)
def _joint_war(counts: Counts, ties: int, first: bool, rules: WarRules) -> PairDistribution:
    """Two hands at war together (each with ``ties`` consecutive ties so far): a card to
    each, one dealer card. The three cards are exchangeable: the dealer's is taken first,
    then the hands' cards are counted as above, below or equal to it; only a tie that is
    fought again needs the other card's exact rank (the cards left depend on it)."""
    n = sum(counts)
    flag = not first
    tied = ties + 1
    again = rules.war_ties is WarTies.REPEAT and tied < rules.max_ties
    win = HandOutcome(Fraction(1), 2, ties, flag)
    loss = HandOutcome(Fraction(-2), 2, ties, flag)
    settled_tie = HandOutcome(rules.tied_war_net, 2, tied, True)
    out: PairDistribution = {}
    for r, cr in enumerate(counts):
        if not cr:
            continue
        rest = less_one(counts, r)
        m = n - 1
        denominator = n * m * (m - 1)
        above, equal = sum(rest[r + 1 :]), rest[r]
        below = m - above - equal
        decided = ((win, above), (loss, below))
        for h1, c1 in decided:
            for h2, c2 in decided:
                _add(out, (h1, h2), Fraction(cr * c1 * (c2 - (h1 is h2)), denominator))
        if not equal:
            continue
        if not again:
            for other, c in decided:
                _add(out, (settled_tie, other), Fraction(cr * equal * c, denominator))
                _add(out, (other, settled_tie), Fraction(cr * c * equal, denominator))
            _add(out, (settled_tie, settled_tie), Fraction(cr * equal * (equal - 1), denominator))
            continue
        after = less_one(rest, r)
        for s, c in enumerate(after):
            if not c or s == r:
                continue
            p = Fraction(cr * equal * c, denominator)
            goes_on = war_distribution(less_one(after, s), rules, tied, first=False)
            beside = _fixed(win if s > r else loss)
            _product(goes_on, beside, p, out)
            _product(beside, goes_on, p, out)
        p_both = Fraction(cr * equal * (equal - 1), denominator)
        if p_both:
            for pair, q in _joint_war(less_one(after, r), tied, False, rules).items():
                _add(out, pair, p_both * q)
    return out
