"""Exact odds of a shared round (docs/fairness.md, section 17).

The first round of a fresh shoe is dealt after the burn: a face-up card, then as many more
cards as its value, face down. Given the face-up card, the cards after it are in random
order, and how many of them are burnt depends on the face-up card alone, so the round's cards
are distributed like the first cards of the shoe less the face-up card. ``first_round_rtp``
averages the private engine's exact figures (``table_odds``) over the face-up card on exactly
that footing; it comes out equal, fraction for fraction, to a private one-hand round's on a
fresh shoe (the tests hold it to that).

Later rounds are dealt from what the earlier ones left, which a player sees: their odds
depend on the cards seen (``remaining_tie_probability``), and over whole shoes dealt to the
cut card they are measured by simulation (``casino.engine.shared.simulation``).
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from casino.engine.cards import Card
from casino.engine.casino_war import TableRules
from casino.engine.hand_odds import Counts, less_one, shoe_counts, tie_probability
from casino.engine.table_odds import TableOdds, table_odds


def first_round_rtp(rules: TableRules) -> dict[str, Fraction]:
    """Per bet (``TableOdds.bets``' names): the RTP of a shared table's first round of a
    fresh shoe, the burn taken into account, exactly."""
    counts = shoe_counts(rules.decks)
    total = sum(counts)
    out: dict[str, Fraction] = {}
    for rank, count in enumerate(counts):
        shown = Fraction(count, total)
        for name, figures in TableOdds(rules, less_one(counts, rank)).bets.items():
            out[name] = out.get(name, Fraction(0)) + shown * figures.rtp
    return out


def private_rtp(rules: TableRules) -> dict[str, Fraction]:
    """The same bets of a private one-hand round on a fresh shoe."""
    return {name: figures.rtp for name, figures in table_odds(rules).bets.items()}


def counts_left(decks: int, seen: Iterable[Card]) -> Counts:
    """Cards per rank (two first) left in a shoe of ``decks`` after the ``seen`` cards."""
    left = list(shoe_counts(decks))
    for card in seen:
        left[int(card.rank) - 2] -= 1
    return tuple(left)


def remaining_tie_probability(counts: Counts) -> Fraction:
    """P(the next round's two cards tie) with ``counts`` left: what a card counter prices
    the tie bet at (it pays ``tie_pays + 1`` times the bet on a tie)."""
    return tie_probability(counts)
