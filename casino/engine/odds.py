"""Exact Casino War odds from finite-shoe combinatorics, as fractions.

The deal is without replacement from a shoe of ``decks`` standard packs: ``4 * decks`` cards
of each of the 13 ranks. Every figure is per unit of the initial ante unless said otherwise,
and a house edge is minus the player's expected net.

* P(tie) = sum over ranks r of c_r (c_r - 1) / (T (T - 1)), with T = 52 * decks.
* After a tie on rank r, the three burns and the two war cards are drawn from the T - 2 cards
  left. The burns are unseen and the cards are exchangeable, so the two war cards are
  distributed like the first two cards of that 50-card-per-deck shoe: rank r has c_r - 2
  cards, the others c. (The tests check this by enumerating the burns.)
* Always war, per ante: +1 on a higher first card, -1 on a lower one; on a tie +1 when the
  player's war card is at least the dealer's (plus +1 more on a tied war with the bonus),
  -2 when it is lower.
* Always surrender: -1/2 on a tie.
* Tie bet pays k:1: +k on a tie, -1 otherwise, per unit of tie bet.
* Element of risk of always-war = edge / expected total stake, the stake being 1 ante plus
  1 raise on a tie.
* The standard deviation is the square root of an exact variance; it is irrational in
  general, so it is given as a ``Decimal`` (and ``variance_war`` stays exact).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Any

from casino.engine.casino_war import TableRules
from casino.engine.errors import InvalidRules
from casino.engine.table_odds import table_odds

RANKS_PER_PACK = 13
CARDS_PER_RANK_PER_PACK = 4


@dataclass(frozen=True)
class CasinoWarOdds:
    decks: int
    tie_pays: int
    war_tie_bonus: bool
    #: P(the first two cards tie)
    p_tie: Fraction
    #: P(player war card > / = / < dealer war card), given a tie on the first two cards
    p_war_win: Fraction
    p_war_tie: Fraction
    p_war_loss: Fraction
    house_edge_war: Fraction
    house_edge_surrender: Fraction
    house_edge_tie_bet: Fraction
    element_of_risk_war: Fraction
    variance_war: Fraction

    @property
    def std_dev_war(self) -> Decimal:
        """Standard deviation of the always-war net per unit ante, to 28 significant digits."""
        with localcontext() as ctx:
            ctx.prec = 28
            return (Decimal(self.variance_war.numerator) / self.variance_war.denominator).sqrt()

    def rtp(self) -> dict[str, Fraction]:
        return {
            "war": 1 - self.house_edge_war,
            "surrender": 1 - self.house_edge_surrender,
            "tie_bet": 1 - self.house_edge_tie_bet,
        }

    def to_json(self) -> dict[str, Any]:
        """The ``casino odds --json`` shape: figures as fractions of 1, and exact strings."""
        figures = {
            "p_tie": self.p_tie,
            "house_edge_war": self.house_edge_war,
            "house_edge_surrender": self.house_edge_surrender,
            "house_edge_tie_bet": self.house_edge_tie_bet,
            "element_of_risk_war": self.element_of_risk_war,
        }
        data: dict[str, Any] = {
            "decks": self.decks,
            "tie_pays": self.tie_pays,
            "war_tie_bonus": self.war_tie_bonus,
        }
        data.update({key: float(value) for key, value in figures.items()})
        data["std_dev_war"] = float(self.std_dev_war)
        exact: dict[str, str] = {key: str(value) for key, value in figures.items()}
        exact["variance_war"] = str(self.variance_war)
        exact["std_dev_war"] = f"sqrt({self.variance_war})"
        data["exact"] = exact
        return data


def _rank_counts(decks: int) -> list[int]:
    return [CARDS_PER_RANK_PER_PACK * decks] * RANKS_PER_PACK


def _pair_probabilities(counts: list[int]) -> tuple[Fraction, Fraction, Fraction]:
    """P(first card's rank > / = / < second card's rank), two cards without replacement.

    ``counts`` lists the cards per rank, lowest rank first.
    """
    total = sum(counts)
    pairs = total * (total - 1)
    equal = sum(c * (c - 1) for c in counts)
    higher = 0
    below = 0
    for count in counts:
        higher += count * below
        below += count
    lower = pairs - equal - higher
    return Fraction(higher, pairs), Fraction(equal, pairs), Fraction(lower, pairs)


def casino_war_odds(rules: TableRules) -> CasinoWarOdds:
    """The one-hand figures of a table whose wars are not repeated (``table_odds`` gives
    every table's, this one's included)."""
    if rules.repeats_wars:
        raise InvalidRules(
            "repeated wars: see casino.engine.table_odds.table_odds", rule="war_ties"
        )
    return odds_for(rules.decks, tie_pays=rules.tie_pays, war_tie_bonus=rules.war_tie_bonus)


def odds_for(decks: int, *, tie_pays: int = 10, war_tie_bonus: bool = False) -> CasinoWarOdds:
    # Building the rules checks deck count and payout the same way a table does.
    TableRules(decks=decks, tie_pays=tie_pays, war_tie_bonus=war_tie_bonus)
    counts = _rank_counts(decks)
    p_first_win, p_tie, p_first_loss = _pair_probabilities(counts)

    bonus = 1 if war_tie_bonus else 0
    war_win = war_tie = war_loss = Fraction(0)
    ev_war_given_tie = Fraction(0)  # sum over tied ranks of P(tie on r) * E[net | tie on r]
    second_moment_given_tie = Fraction(0)
    total = sum(counts)
    for rank_index, count in enumerate(counts):
        p_tie_on_rank = Fraction(count * (count - 1), total * (total - 1))
        left = list(counts)
        left[rank_index] -= 2
        w, t, lo = _pair_probabilities(left)
        war_win += p_tie_on_rank * w
        war_tie += p_tie_on_rank * t
        war_loss += p_tie_on_rank * lo
        ev_war_given_tie += p_tie_on_rank * (w * 1 + t * (1 + bonus) + lo * -2)
        second_moment_given_tie += p_tie_on_rank * (w * 1 + t * (1 + bonus) ** 2 + lo * 4)

    ev_war = p_first_win - p_first_loss + ev_war_given_tie
    second_moment = p_first_win + p_first_loss + second_moment_given_tie
    ev_surrender = p_first_win - p_first_loss - Fraction(1, 2) * p_tie
    ev_tie_bet = tie_pays * p_tie - (1 - p_tie)
    expected_stake_war = 1 + p_tie  # the raise is placed on every tie

    return CasinoWarOdds(
        decks=decks,
        tie_pays=tie_pays,
        war_tie_bonus=war_tie_bonus,
        p_tie=p_tie,
        p_war_win=war_win / p_tie,
        p_war_tie=war_tie / p_tie,
        p_war_loss=war_loss / p_tie,
        house_edge_war=-ev_war,
        house_edge_surrender=-ev_surrender,
        house_edge_tie_bet=-ev_tie_bet,
        element_of_risk_war=-ev_war / expected_stake_war,
        variance_war=second_moment - ev_war**2,
    )


def theoretical_rtp(rules: TableRules) -> dict[str, Fraction]:
    """Exact return to player per unit staked on the initial bet, for a table's rules.

    Keys: ``war`` (ante, always going to war), ``surrender`` (ante, always surrendering;
    computed even where the table forbids surrender), ``tie_bet`` (per unit of tie bet; with
    a ladder, the hand going to war on a tie); and only where the table has them:
    ``tie_bet_alone`` (a ladder tie bet that stops at the first tie: surrender or tie-only)
    and ``war_tie_bet`` (per unit placed with a war). Per total amount wagered, and every
    other figure: ``casino.engine.table_odds``.
    """
    return table_odds(rules).rtp()
