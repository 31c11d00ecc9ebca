"""The odds of a shared table: the first round of a fresh shoe pays exactly a private round's
(every bet, every rule set); over whole shoes dealt to the cut card the cut-card effect is
what docs/fairness.md section 17.8 says, computed exactly for one deck; and whole shoes through
the production path agree with the exact figures (``casino simulate --shared``)."""

from __future__ import annotations

import json
from fractions import Fraction
from functools import cache

import pytest
from click.testing import CliRunner

from casino.cli import main as casino_cli
from casino.engine.cards import Card
from casino.engine.casino_war import TableRules
from casino.engine.errors import InvalidRules
from casino.engine.shared import SharedRules
from casino.engine.shared.odds import counts_left, first_round_rtp, private_rtp
from casino.engine.shared.simulation import simulate_shared

RULE_SETS = [
    TableRules(decks=8),
    TableRules(decks=6, war_tie_bonus=True),
    TableRules(decks=8, war_ties="repeat", tie_ladder=(10, 25, 50, 200)),
    TableRules(decks=1, max_war_tie_bet=500, war_tie_pays=12, tie_pays=11),
    TableRules(decks=2, war_ties="repeat", max_war_ties=3, surrender_allowed=False),
]


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: json.dumps(r.to_dict()))
def test_the_first_round_of_a_fresh_shoe_pays_a_private_rounds_odds(rules: TableRules) -> None:
    first, fresh = first_round_rtp(rules), private_rtp(rules)
    assert set(first) == set(fresh) and first == fresh  # Fractions: exactly


def test_the_published_figures_hold_for_a_shared_first_round() -> None:
    evolution = first_round_rtp(
        TableRules(decks=8, war_ties="repeat", tie_ladder=(10, 25, 50, 200))
    )
    assert f"{float(evolution['ante_war']):.4%}" == "96.2697%"
    assert f"{float(evolution['tie_bet']):.4%}" == "92.0497%"
    plain = first_round_rtp(TableRules(decks=8))
    assert plain["ante_war"] == Fraction(765570, 788417) and plain["tie_bet"] == Fraction(341, 415)


def test_counts_left_after_cards_seen() -> None:
    left = counts_left(1, [Card.parse(code) for code in ("2C", "2D", "AS")])
    assert left[0] == 2 and left[-1] == 3 and sum(left) == 49


# --- the cut-card effect, exactly, for one deck ----------------------------------------------

Counts = tuple[int, ...]


@cache
def _less_one(state: Counts) -> tuple[tuple[Counts, float], ...]:
    """Every state after one more unseen card (sorted counts per rank), with its chance."""
    total = sum(state)
    out: dict[Counts, float] = {}
    for value in set(state) - {0}:
        i = state.index(value)  # ascending: lowering the first of equals keeps it sorted
        after = (*state[:i], value - 1, *state[i + 1 :])
        out[after] = out.get(after, 0.0) + state.count(value) * value / total
    return tuple(out.items())


@cache
def _less(state: Counts, k: int) -> tuple[tuple[Counts, float], ...]:
    if k == 0:
        return ((state, 1.0),)
    out: dict[Counts, float] = {}
    for middle, p in _less_one(state):
        for after, q in _less(middle, k - 1):
            out[after] = out.get(after, 0.0) + p * q
    return tuple(out.items())


def _pairs(state: Counts) -> tuple[tuple[Counts, float], ...]:
    """The two next cards tie: the state after them, with its chance."""
    total = sum(state)
    out: dict[Counts, float] = {}
    for value in set(state):
        if value >= 2:
            i = state.index(value)
            after = tuple(sorted((*state[:i], value - 2, *state[i + 1 :])))
            out[after] = out.get(after, 0.0) + state.count(value) * value * (value - 1) / (
                total * (total - 1)
            )
    return tuple(out.items())


def _p_tie(state: Counts) -> float:
    total = sum(state)
    return sum(c * (c - 1) for c in state) / (total * (total - 1))


def _from_cut(cut: int, size: int = 52) -> tuple[float, float, float]:
    """(rounds, ties, ante net always at war) expected of one shoe with its cut card at
    ``cut``: the burn, then every round, a war on every tie (push rules)."""
    memo: dict[Counts, tuple[float, float, float]] = {}

    def value(state: Counts) -> tuple[float, float, float]:
        if size - sum(state) >= cut:
            return (0.0, 0.0, 0.0)
        if state in memo:
            return memo[state]
        rounds, ties, ante = 1.0, 0.0, 0.0
        two = dict(_less(state, 2))
        for after, p in _pairs(state):
            two[after] -= p
            ties += p
            for burnt, q in _less(after, 3):
                war_tie = _p_tie(burnt)  # won +1, lost -2, tied paid as won +1
                ante += p * q * ((1 - war_tie) / 2 - (1 - war_tie) + war_tie)
            for later, q in _less(after, 5):
                r, t, a = value(later)
                rounds, ties, ante = rounds + p * q * r, ties + p * q * t, ante + p * q * a
        for later, p in two.items():
            r, t, a = value(later)
            rounds, ties, ante = rounds + p * r, ties + p * t, ante + p * a
        memo[state] = (rounds, ties, ante)
        return memo[state]

    totals = [0.0, 0.0, 0.0]
    for face in range(13):  # the face-up burn card: two .. ace
        burnt = 1 if face == 12 else min(face + 2, 10)
        full = [4] * 13
        full[face] -= 1
        for state, q in _less(tuple(sorted(full)), burnt):
            for k, part in enumerate(value(state)):
                totals[k] += q / 13 * part
    return totals[0], totals[1], totals[2]


def whole_shoes_one_deck() -> tuple[float, float, float]:
    """(rounds a shoe, tie rate per round, ante RTP always at war) over whole one-deck shoes
    dealt to the cut card (push rules), by a dynamic programme over the shoe's compositions,
    the cut card uniform over 39..44."""
    cuts = range(39, 45)
    parts = [_from_cut(cut) for cut in cuts]
    rounds, ties, ante = (sum(part[k] for part in parts) / len(cuts) for k in range(3))
    return rounds, ties / rounds, 1 + ante / rounds


def test_the_cut_card_effect_at_one_deck_is_as_documented() -> None:
    rounds, tie_rate, ante = whole_shoes_one_deck()
    assert f"{rounds:.2f}" == "15.22"
    assert f"{tie_rate:.7f}" == "0.0587335"
    assert f"{11 * tie_rate:.4%}" == "64.6069%"
    assert f"{ante:.4%}" == "97.5876%"
    fresh = private_rtp(TableRules(decks=1))
    # Fewer rounds from pair-rich remainders: the tie bet a little worse, the ante better.
    assert 11 * tie_rate < fresh["tie_bet"] == Fraction(11, 17)
    assert ante > fresh["ante_war"]


# --- whole shoes through the production path -----------------------------------------------


def test_whole_shoes_agree_with_the_exact_odds() -> None:
    report = simulate_shared(120, tie_bet=True, seed="test shoes")
    assert report.agrees, report.to_dict()
    assert report.shoes == 120 and 120 * 120 < report.rounds < 120 * 160
    assert report.main.exact_rtp == Fraction(765570, 788417)
    assert report.counting is not None and report.counting.rounds == report.rounds


def test_whole_shoes_of_every_rule_set_agree() -> None:
    # A shared table's clock surrenders for a bettor: it needs surrender allowed.
    for table in [rules for rules in RULE_SETS[1:] if rules.surrender_allowed]:
        decision = {"decision_seconds": 10}
        rules = SharedRules(TableRules.from_dict({**table.to_dict(), **decision}))
        report = simulate_shared(
            150,
            rules,
            tie_bet=True,
            war_tie_bet=table.war_tie_bet_offered,
            strategy="surrender" if table.surrender_allowed and table.decks == 6 else "war",
        )
        assert report.agrees, report.to_dict()
        assert (report.counting is None) == (table.tie_ladder is not None)


def test_a_simulation_is_reproducible() -> None:
    one = simulate_shared(3, seed="again").to_dict()
    assert one == simulate_shared(3, seed="again").to_dict()
    assert one != simulate_shared(3, seed="other").to_dict()


def test_a_simulation_refuses_bets_the_table_does_not_offer() -> None:
    with pytest.raises(InvalidRules):
        simulate_shared(
            2, SharedRules(TableRules(decision_seconds=10, max_tie_bet=0)), tie_bet=True
        )
    with pytest.raises(InvalidRules):
        simulate_shared(2, war_tie_bet=True)
    with pytest.raises(ValueError):
        simulate_shared(1)


def test_casino_simulate_shared() -> None:
    runner = CliRunner()
    result = runner.invoke(casino_cli, ["simulate", "--shared", "--shoes", "20", "--tie-bet"])
    assert result.exit_code == 0, result.output
    assert "20 shoes of 8 deck(s) dealt to the cut card" in result.output
    assert "Tie bet, per unit" in result.output and "Card counting" in result.output
    result = runner.invoke(
        casino_cli,
        ["simulate", "--shared", "--shoes", "5", "--decks", "1", "--json", "--check"],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["rules"]["table"]["decks"] == 1 and data["shoes"] == 5
    refused = runner.invoke(casino_cli, ["simulate", "--shared", "--tie-only"])
    assert refused.exit_code == 2
