"""Monte Carlo through the production path agrees with the exact figures."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from casino.cli import main as casino_cli
from casino.engine.casino_war import TableRules
from casino.engine.errors import InvalidRules
from casino.engine.odds import odds_for
from casino.engine.simulation import Strategy, simulate


def test_two_hundred_thousand_rounds_agree_with_the_exact_edge_within_4_se() -> None:
    report = simulate(200_000, TableRules(), strategy=Strategy.WAR, tie_bet=True, seed="unit")
    exact = odds_for(6)
    assert report.main.exact_rtp == 1 - exact.house_edge_war
    assert report.tie is not None
    assert report.tie.exact_rtp == 1 - exact.house_edge_tie_bet
    assert abs(report.main.z_score) <= 4, report.main
    assert abs(report.tie.z_score) <= 4, report.tie
    # Standard errors in the right range: sd/sqrt(n) with sd ~1.05 (war) and ~2.9 (tie bet).
    assert 0.002 < report.main.std_error < 0.0027
    assert 0.005 < report.tie.std_error < 0.008
    # The tie rate itself sits within 4 binomial standard errors of 23/311.
    p = float(exact.p_tie)
    assert abs(report.ties_seen / 200_000 - p) < 4 * (p * (1 - p) / 200_000) ** 0.5


def test_simulation_is_reproducible_and_seed_dependent() -> None:
    a = simulate(2_000, seed="same")
    b = simulate(2_000, seed="same")
    c = simulate(2_000, seed="other")
    assert a == b
    assert a.main.observed_rtp != c.main.observed_rtp or a.ties_seen != c.ties_seen


def test_surrender_strategy_and_progress_callback() -> None:
    seen: list[int] = []
    report = simulate(25_000, TableRules(decks=1), strategy="surrender", progress=seen.append)
    assert sum(seen) == 25_000 and len(seen) == 3
    assert report.main.exact_rtp == 1 - odds_for(1).house_edge_surrender
    assert report.tie is None
    # A surrendered tie returns exactly half: the observed RTP is a multiple of 1 / (2 n).
    assert (report.main.observed_rtp * 2 * 25_000) == pytest.approx(
        round(report.main.observed_rtp * 2 * 25_000)
    )


def test_simulation_refuses_what_the_table_does_not_offer() -> None:
    with pytest.raises(InvalidRules):
        simulate(10, TableRules(surrender_allowed=False), strategy="surrender")
    with pytest.raises(InvalidRules):
        simulate(10, TableRules(max_tie_bet=0), tie_bet=True)
    with pytest.raises(ValueError):
        simulate(0)


def test_simulate_command_json() -> None:
    args = ["simulate", "--rounds", "3000", "--decks", "2", "--tie-bet", "--seed", "x", "--json"]
    outcome = CliRunner().invoke(casino_cli, args)
    assert outcome.exit_code == 0, outcome.output
    data = json.loads(outcome.output)
    assert data["rounds"] == 3000 and data["decks"] == 2 and data["strategy"] == "war"
    for key in ("observed_rtp", "std_error", "exact_rtp", "within_3_se"):
        assert key in data["main"] and key in data["tie_bet_stats"]
    assert data["main"]["exact_rtp_fraction"] == str(1 - odds_for(2).house_edge_war)


def test_simulate_command_text() -> None:
    args = ["simulate", "--rounds", "2000", "--strategy", "surrender", "--check"]
    outcome = CliRunner().invoke(casino_cli, args)
    assert outcome.exit_code == 0, outcome.output
    assert "observed RTP" in outcome.output and "exact RTP" in outcome.output
    assert "within 3 SE" in outcome.output
