"""Monte Carlo through the production dealing path agrees with the exact odds of the new
rules, within its confidence band (fixed seeds)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from casino.cli import main as casino_cli
from casino.engine.casino_war import TableRules
from casino.engine.errors import InvalidRules
from casino.engine.simulation import simulate
from casino.engine.table_odds import table_odds

LADDER = (10, 25, 50, 200)


def test_repeated_wars_ladder_and_war_tie_bet_over_three_hands() -> None:
    rules = TableRules(
        decks=8, war_ties="repeat", tie_ladder=LADDER, max_hands=3, max_war_tie_bet=10_000
    )
    report = simulate(
        60_000, rules, strategy="best", tie_bet=True, war_tie_bet=True, hands=3, seed="t1"
    )
    bets = table_odds(rules).bets
    assert report.main is not None and report.main.exact_rtp == bets["ante_best"].rtp
    assert report.tie is not None and report.tie.exact_rtp == bets["tie_bet"].rtp
    assert report.war_tie is not None and report.war_tie.exact_rtp == bets["war_tie_bet"].rtp
    for stats in (report.main, report.tie, report.war_tie):
        assert abs(stats.z_score) <= 4, stats
    assert report.round is not None
    assert abs(report.round.observed_mean - float(report.round.exact_mean)) <= 4 * (
        report.round.std_error
    )
    # Ties on the first two cards: about P(tie) of the hands dealt.
    p_tie = float(table_odds(rules).p_tie)
    assert abs(report.ties_seen / (3 * 60_000) - p_tie) < 0.004


def test_the_variance_of_a_round_of_several_hands() -> None:
    rules = TableRules(decks=2, max_hands=4, war_tie_bonus=True)
    report = simulate(50_000, rules, hands=4, seed="variance")
    assert report.round is not None and report.main is not None
    exact = float(report.round.exact_variance)
    assert exact == pytest.approx(float(table_odds(rules).round_variance(4, policy="war")))
    # Far from four independent hands: the dealer's card is shared.
    assert exact > 1.5 * 4 * float(table_odds(rules).bets["ante_war"].variance)
    assert report.round.observed_variance == pytest.approx(exact, rel=0.05)
    assert abs(report.main.z_score) <= 4


def test_tie_only_rounds_and_the_ladder_alone() -> None:
    rules = TableRules(decks=6, war_ties="repeat", tie_ladder=LADDER, tie_only=True, max_hands=2)
    report = simulate(80_000, rules, tie_only=True, hands=2, seed="alone")
    assert report.main is None and report.tie is not None
    assert report.tie.exact_rtp == table_odds(rules).bets["tie_bet_alone"].rtp
    assert abs(report.tie.z_score) <= 4


def test_surrendered_ladders_stop_at_the_first_step() -> None:
    rules = TableRules(decks=8, war_ties="repeat", tie_ladder=LADDER)
    report = simulate(40_000, rules, strategy="surrender", tie_bet=True, seed="stop")
    assert report.tie is not None
    assert report.tie.exact_rtp == table_odds(rules).bets["tie_bet_alone"].rtp
    assert abs(report.tie.z_score) <= 4 and report.agrees


def test_simulation_refuses_what_the_table_does_not_offer() -> None:
    with pytest.raises(InvalidRules):
        simulate(10, TableRules(), hands=2)
    with pytest.raises(InvalidRules):
        simulate(10, TableRules(), war_tie_bet=True)
    with pytest.raises(InvalidRules):
        simulate(10, TableRules(), tie_only=True)


def test_simulate_command_with_the_new_rules() -> None:
    args = [
        "simulate",
        "--rounds",
        "4000",
        "--decks",
        "8",
        "--war-ties",
        "repeat",
        "--tie-ladder",
        "10,25,50,200",
        "--hands",
        "2",
        "--tie-bet",
        "--place-war-tie-bet",
        "--seed",
        "cli",
        "--json",
    ]
    outcome = CliRunner().invoke(casino_cli, args)
    assert outcome.exit_code == 0, outcome.output
    data = json.loads(outcome.output)
    assert data["hands"] == 2 and data["rules"]["tie_ladder"] == list(LADDER)
    assert data["war_tie_bet_stats"]["exact_rtp_fraction"]
    assert data["round"]["exact_variance"] > 0
    text = CliRunner().invoke(casino_cli, [*args[:-1], "--check"])
    assert "War tie bet, per unit placed" in text.output
    assert "Round of 2 hand(s)" in text.output
    tie_only = CliRunner().invoke(
        casino_cli, ["simulate", "--rounds", "2000", "--tie-only", "--hands", "1", "--json"]
    )
    assert tie_only.exit_code == 0, tie_only.output
    assert json.loads(tie_only.output)["main"] is None
