"""Seeded checks against published War statistics (tolerances wide enough to be stable).

Published figures (docs/war-variants.md, "Statistics compared", names each source): 253
battles on average over a million games (an earlier Wikipedia "War (card game)" article; its
rules are not given) and 262 with the winnings shuffled and reused (wimpyprogrammer.com; cards
per war not given); with one card down, 440-445 battles on average and a median of 330-335
(tgvoskuilen/War-Simulator). The one-down figures match the rule "a player who cannot finish a
war loses" (``short_stack='lose'``) with won cards returned in random order, which that
simulator plays; with "last card face up" games run some 5% longer. Seeds are fixed, so these
tests are exact repeats, and the ranges leave several standard errors of room either way.
"""

from __future__ import annotations

import pytest

from casino.engine.war import simulate

pytestmark = pytest.mark.slow

GAMES = 2000


def test_classic_three_down_last_card_up_shuffled_return() -> None:
    # The mean is about 283 here (20,000 games), near the top of the range: more games keep
    # the sample mean within a few battles of it (standard error about 3).
    report = simulate("classic", {}, 3 * GAMES, "published")
    assert report["rules"]["war_down"] == 3
    assert report["rules"]["short_stack"] == "last-up"
    assert report["rules"]["return_order"] == "shuffled"
    assert 230 <= report["battles"]["mean"] <= 290
    assert report["unfinished"] == 0 and report["draws"] <= GAMES // 100
    assert 200 <= report["battles"]["median"] <= 230


def test_one_down_lose_rule_matches_the_published_mean_and_median() -> None:
    report = simulate("classic-1", {"short_stack": "lose"}, GAMES, "published")
    assert 415 <= report["battles"]["mean"] <= 470
    assert 310 <= report["battles"]["median"] <= 360
    assert report["unfinished"] == 0


def test_pooled_and_shuffled_won_cards() -> None:
    report = simulate("classic", {"won_cards": "pile"}, 400, "published")
    assert 230 <= report["battles"]["mean"] <= 300


def test_fewer_face_down_cards_make_longer_games() -> None:
    means = {
        down: simulate("classic", {"war_down": down}, 1000, "shorter")["battles"]["mean"]
        for down in (0, 1, 2, 3)
    }
    assert means[0] > means[1] > means[2] > means[3]
    for rule in ("lose", "all-but-last"):
        one = simulate("classic", {"war_down": 1, "short_stack": rule}, 1000, "rule")
        three = simulate("classic", {"war_down": 3, "short_stack": rule}, 1000, "rule")
        assert one["battles"]["mean"] > three["battles"]["mean"] * 1.3


def test_fixed_return_order_leaves_games_unfinished_shuffled_none() -> None:
    fixed = simulate("classic", {"return_order": "fixed"}, 400, "cycles")
    assert fixed["unfinished"] >= 40  # about 40%: cycles caught, a few more at the safety cap
    assert fixed["cycles"] >= 30 and fixed["draws"] == fixed["unfinished"]
    shuffled = simulate("classic", {}, 400, "cycles")
    assert shuffled["unfinished"] == 0 and shuffled["cycles"] == 0
    # The winner-first order is fixed too but rarely, if ever, loops.
    winner_first = simulate("classic", {"return_order": "winner-first"}, 400, "cycles")
    assert winner_first["unfinished"] < fixed["unfinished"]


def test_summary_fields() -> None:
    report = simulate("classic", {}, 50, 7)
    battles = report["battles"]
    assert battles["median"] <= battles["p95"] <= battles["max"]
    assert sum(report["wins"]) + report["draws"] == 50
    assert report["seed"] == "7" and report["games"] == 50
    assert report["endings"] == {"all-cards": 50}
    assert report["wars_per_game"] > 5


def test_seat_bias_with_a_fixed_return_order_and_none_with_a_shuffled_one() -> None:
    # docs/war-variants.md, "Seat bias": with won cards put back in seat order, seat 1 wins
    # about 69% of the games that end (3 down, last card face up); shuffled, the seats are even.
    fixed = simulate("classic", {"return_order": "fixed"}, 1000, "seat-bias")
    decided = sum(fixed["wins"])
    assert decided >= 400
    assert fixed["wins"][1] / decided >= 0.6
    shuffled = simulate("classic", {}, 1000, "seat-bias")
    assert 0.44 <= shuffled["wins"][1] / sum(shuffled["wins"]) <= 0.56
