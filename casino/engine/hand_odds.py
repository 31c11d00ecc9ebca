"""The exact distribution of how one Casino War hand ends, from finite-shoe combinatorics.

A shoe is given by its cards per rank, lowest rank first (``counts``; a standard shoe of
``decks`` packs has ``4 * decks`` of each of 13 ranks, and the tests use small shoes too).
Cards are dealt without replacement. Burn cards are never seen and the cards are
exchangeable, so the next card turned up is distributed like a card drawn from the shoe less
the cards seen so far, whatever was burnt: the state of a hand is the multiset of cards left
unseen (the tests check this against an enumeration that deals the burns).

Two more symmetries keep the computation small:

* two cards turned up one after the other are exchangeable, so P(first > second) equals
  P(second > first), and a war is won as often as it is lost: only the tie probability
  needs the rank order;
* the chance of each way a war can go depends on the counts only as a multiset, so the
  wars are computed on sorted counts and cached.

A hand's outcome (``HandOutcome``) is per unit of each bet: the net of ante and raise per
unit of ante, the ante units staked (2 after going to war), the consecutive ties reached
(0 when the first two cards differ; the first deal's tie is the first) and whether the first
war tied (None: no war). The side bets' returns are functions of the outcome, so one
distribution serves every pay table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from casino.engine.casino_war import Decision, TableRules, WarTies

Counts = tuple[int, ...]
RANKS_PER_PACK = 13
CARDS_PER_RANK_PER_PACK = 4
#: How a tied hand with an ante is decided: always war, always surrender, or per tied rank
#: the choice with the better expected ante and raise (``best``).
POLICIES = ("war", "surrender", "best")


@dataclass(frozen=True, order=True)
class HandOutcome:
    """One way a hand ends, per unit of each bet."""

    #: net of ante and raise, per unit of ante (0 for a tie-only hand)
    ante_net: Fraction
    #: ante units staked: 1, or 2 after going to war (0 for a tie-only hand)
    staked: int
    #: consecutive ties reached: 0 when the first two cards differ
    ties: int
    #: None when the hand fought no war; else whether its first war tied
    war_tie: bool | None


@dataclass(frozen=True)
class WarRules:
    """What a war does on a tie: the part of the table's rules the distribution needs."""

    war_ties: WarTies
    #: the most consecutive ties a hand reaches (repeat only; the first deal's counts)
    max_ties: int
    surrender_allowed: bool = True

    @classmethod
    def of(cls, rules: TableRules) -> WarRules:
        return cls(rules.war_tie_rule, rules.max_war_ties, rules.surrender_allowed)

    @property
    def tied_war_net(self) -> Fraction:
        """A war settled tied (or at the cap): ante pushes, raise wins, plus any bonus."""
        return Fraction(2 if self.war_ties is WarTies.BONUS else 1)


Distribution = dict[HandOutcome, Fraction]


def shoe_counts(decks: int) -> Counts:
    return (CARDS_PER_RANK_PER_PACK * decks,) * RANKS_PER_PACK


def _add(into: Distribution, outcome: HandOutcome, p: Fraction) -> None:
    if p:
        into[outcome] = into.get(outcome, Fraction(0)) + p


def tie_probability(counts: Iterable[int]) -> Fraction:
    """P(two cards turned up one after the other have the same rank)."""
    values = list(counts)
    total = sum(values)
    return Fraction(sum(c * (c - 1) for c in values), total * (total - 1))


def less_one(counts: Counts, rank: int, times: int = 1) -> Counts:
    return (*counts[:rank], counts[rank] - times, *counts[rank + 1 :])


@lru_cache(maxsize=4096)
def _war_chain(sorted_counts: Counts, ties: int, first: bool, rules: WarRules) -> Distribution:
    """How a hand at war ends from here: ``ties`` consecutive ties so far; ``first`` when this
    is the hand's first war. Cached on sorted counts (only the multiset matters)."""
    total = sum(sorted_counts)
    pairs = total * (total - 1)
    p_tie = Fraction(sum(c * (c - 1) for c in sorted_counts), pairs)
    p_decided = (1 - p_tie) / 2
    flag = not first  # a later war is only fought after the first one tied
    out: Distribution = {}
    _add(out, HandOutcome(Fraction(1), 2, ties, flag), p_decided)
    _add(out, HandOutcome(Fraction(-2), 2, ties, flag), p_decided)
    tied = ties + 1
    if rules.war_ties is not WarTies.REPEAT or tied >= rules.max_ties:
        _add(out, HandOutcome(rules.tied_war_net, 2, tied, True), p_tie)
        return out
    for value, times in _values(sorted_counts):
        if value < 2:
            continue
        p = Fraction(times * value * (value - 1), pairs)
        rest = _sorted_less(sorted_counts, value, 2)
        for outcome, q in _war_chain(rest, tied, False, rules).items():
            _add(out, outcome, p * q)
    return out


def _values(sorted_counts: Counts) -> list[tuple[int, int]]:
    """(count, how many ranks have it), each distinct count once."""
    seen: dict[int, int] = {}
    for c in sorted_counts:
        seen[c] = seen.get(c, 0) + 1
    return sorted(seen.items())


def _sorted_less(sorted_counts: Counts, value: int, times: int) -> Counts:
    """The multiset with one rank of count ``value`` less ``times`` cards, sorted."""
    index = sorted_counts.index(value)
    return tuple(sorted(less_one(sorted_counts, index, times)))


def war_distribution(
    counts: Counts, rules: WarRules, ties: int = 1, *, first: bool = True
) -> Distribution:
    """How a hand at war ends, with ``counts`` the cards not seen yet, ``ties`` consecutive
    ties so far, and ``first`` when the war about to be dealt is the hand's first."""
    return dict(_war_chain(tuple(sorted(counts)), ties, first, rules))


def expected_ante_net(dist: Distribution) -> Fraction:
    return sum((p * o.ante_net for o, p in dist.items()), Fraction(0))


SURRENDERED = HandOutcome(Fraction(-1, 2), 1, 1, None)


def tied_decision(counts: Counts, rank: int, rules: WarRules, policy: str) -> Decision:
    """What a hand with an ante does on a tie on ``rank`` (``counts``: the full shoe)."""
    if policy == "war" or not rules.surrender_allowed:
        return Decision.WAR
    if policy == "surrender":
        return Decision.SURRENDER
    if policy != "best":
        raise ValueError(f"policy must be one of {POLICIES}, not {policy!r}")
    war = expected_ante_net(war_distribution(less_one(counts, rank, 2), rules))
    return Decision.WAR if war >= SURRENDERED.ante_net else Decision.SURRENDER


Policy = Callable[[int], Decision]


def policy_for(counts: Counts, rules: WarRules, policy: str) -> Policy:
    """The decision per tied rank, from the hand's own cards only."""
    choices = [tied_decision(counts, rank, rules, policy) for rank in range(len(counts))]
    return choices.__getitem__


def after_tie(counts_left: Counts, rules: WarRules, decision: Decision) -> Distribution:
    """How a tied hand with an ante ends, ``counts_left`` the cards not seen yet."""
    if decision is Decision.SURRENDER:
        return {SURRENDERED: Fraction(1)}
    return war_distribution(counts_left, rules)


def hand_distribution(
    counts: Counts, rules: WarRules, policy: str = "war", *, tie_only: bool = False
) -> Distribution:
    """How one hand ends: its first card against the dealer's, then, on a tie, its decision
    (``policy``) and its war(s). ``tie_only``: a hand without an ante, over on its first two
    cards."""
    total = sum(counts)
    pairs = total * (total - 1)
    p_tie = tie_probability(counts)
    p_decided = (1 - p_tie) / 2
    out: Distribution = {}
    stake = 0 if tie_only else 1
    _add(out, HandOutcome(Fraction(stake), stake, 0, None), p_decided)
    _add(out, HandOutcome(Fraction(-stake), stake, 0, None), p_decided)
    choose = policy_for(counts, rules, policy)
    for rank, c in enumerate(counts):
        p = Fraction(c * (c - 1), pairs)
        if not p:
            continue
        if tie_only:
            _add(out, HandOutcome(Fraction(0), 0, 1, None), p)
            continue
        for outcome, q in after_tie(less_one(counts, rank, 2), rules, choose(rank)).items():
            _add(out, outcome, p * q)
    return out
