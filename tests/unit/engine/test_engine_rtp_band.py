"""The per-round return distribution and the RTP band, against the exact odds, a brute-force
enumeration of the cards, a round-by-round variance and Monte Carlo coverage through the
production dealing path."""

from __future__ import annotations

import hashlib
import itertools
from fractions import Fraction as F

import pytest

from casino.engine.casino_war import CasinoWarRound, Decision, TableRules, deal_casino_war
from casino.engine.odds import odds_for
from casino.engine.rtp_band import (
    Z_95,
    RoundReturn,
    StakeSums,
    round_return,
    rtp_band,
)

RULES = [(decks, k, bonus) for decks in (1, 2, 6, 8) for k in (10, 12) for bonus in (False, True)]


@pytest.mark.parametrize(("decks", "tie_pays", "bonus"), RULES)
@pytest.mark.parametrize("w", [F(0), F(1, 3), F(1)])
def test_outcomes_are_a_distribution(decks: int, tie_pays: int, bonus: bool, w: F) -> None:
    model = round_return(decks, tie_pays, bonus, w)
    assert sum(o.probability for o in model.outcomes) == 1
    assert all(o.probability >= 0 for o in model.outcomes)


@pytest.mark.parametrize(("decks", "tie_pays", "bonus"), RULES)
def test_always_war_and_always_surrender_match_the_exact_odds(
    decks: int, tie_pays: int, bonus: bool
) -> None:
    odds = odds_for(decks, tie_pays=tie_pays, war_tie_bonus=bonus)
    war = round_return(decks, tie_pays, bonus, 1).moments
    # Net per unit ante is u - h.
    assert war.u - war.h == -odds.house_edge_war
    assert war.uu - 2 * war.uh + war.hh - (war.u - war.h) ** 2 == odds.variance_war
    # Per unit of everything staked on the ante side (the raise included): the element of risk.
    assert 1 - war.u / war.h == odds.element_of_risk_war
    assert war.h == 1 + odds.p_tie
    surrender = round_return(decks, tie_pays, bonus, 0).moments
    assert surrender.u - surrender.h == -odds.house_edge_surrender
    assert surrender.h == 1
    assert war.v == surrender.v == 1 - odds.house_edge_tie_bet
    assert war.vv == (tie_pays + 1) ** 2 * odds.p_tie


def test_a_mixed_strategy_is_the_mixture_of_the_pure_ones() -> None:
    war, surrender, mixed = (round_return(6, 10, False, w).moments for w in (1, 0, F(2, 7)))
    for name in ("u", "h", "v", "uu", "uh", "hh", "uv", "hv", "vv"):
        expected = F(2, 7) * getattr(war, name) + F(5, 7) * getattr(surrender, name)
        assert getattr(mixed, name) == expected, name


def test_the_war_share_must_be_a_probability() -> None:
    with pytest.raises(ValueError):
        round_return(6, 10, False, F(3, 2))
    with pytest.raises(ValueError):
        round_return(6, 10, False, -1)


def enumerated_moments(decks: int, tie_pays: int, bonus: int, w: F) -> dict[str, F]:
    """E[f(u, h, v)] by dealing player, dealer and the two war cards card by card.

    The three burns are left out: they are unseen and exchangeable with the war cards
    (test_engine_odds deals them too and finds the same war odds).
    """
    counts = [4 * decks] * 13
    total = 52 * decks
    sums = dict.fromkeys(("u", "h", "v", "uu", "uh", "hh", "uv", "hv", "vv"), F(0))
    weight_all = total * (total - 1) * (total - 2) * (total - 3)

    def add(weight: F, u: F, h: int, v: int) -> None:
        for name, value in (
            ("u", u),
            ("h", F(h)),
            ("v", F(v)),
            ("uu", u * u),
            ("uh", u * h),
            ("hh", F(h * h)),
            ("uv", u * v),
            ("hv", F(h * v)),
            ("vv", F(v * v)),
        ):
            sums[name] += weight * value

    for player, dealer in itertools.product(range(13), repeat=2):
        first = counts[player] * (counts[dealer] - (player == dealer))
        if player != dealer:
            rest = (total - 2) * (total - 3)
            add(F(first * rest, weight_all), F(2 if player > dealer else 0), 1, 0)
            continue
        left = list(counts)
        left[player] -= 2
        add(F(first * (total - 2) * (total - 3), weight_all) * (1 - w), F(1, 2), 1, tie_pays + 1)
        for war_player, war_dealer in itertools.product(range(13), repeat=2):
            ways = left[war_player] * (left[war_dealer] - (war_player == war_dealer))
            if war_player > war_dealer:
                u = F(3)
            elif war_player == war_dealer:
                u = F(3 + bonus)
            else:
                u = F(0)
            add(F(first * ways, weight_all) * w, u, 2, tie_pays + 1)
    return sums


@pytest.mark.parametrize(
    ("decks", "tie_pays", "bonus", "w"), [(1, 10, 0, F(3, 7)), (2, 12, 1, F(1))]
)
def test_moments_match_a_card_by_card_enumeration(
    decks: int, tie_pays: int, bonus: int, w: F
) -> None:
    moments = round_return(decks, tie_pays, bool(bonus), w).moments
    expected = enumerated_moments(decks, tie_pays, bonus, w)
    for name, value in expected.items():
        assert getattr(moments, name) == value, name


def round_by_round_variance(model: RoundReturn, bets: list[tuple[int, int]]) -> tuple[F, F]:
    """(rho, Var(observed RTP)) summing Var(P_i - rho H_i) over the outcomes of each round."""
    expected_p = sum(
        (
            o.probability * (a * o.ante_returned + b * o.tie_returned)
            for a, b in bets
            for o in model.outcomes
        ),
        F(0),
    )
    expected_h = sum(
        (o.probability * (a * o.ante_staked + b) for a, b in bets for o in model.outcomes), F(0)
    )
    rho = expected_p / expected_h
    variance = F(0)
    for a, b in bets:
        values = [
            (
                o.probability,
                a * o.ante_returned + b * o.tie_returned - rho * (a * o.ante_staked + b),
            )
            for o in model.outcomes
        ]
        mean = sum((p * d for p, d in values), F(0))
        variance += sum((p * (d - mean) ** 2 for p, d in values), F(0))
    return rho, variance / expected_h**2


def test_band_of_mixed_bets_matches_a_round_by_round_computation() -> None:
    model = round_return(6, 11, True, F(5, 8))
    bets = [(100, 0), (100, 0), (500, 100), (2_000, 0), (300, 300), (100, 200)]
    sums = StakeSums()
    for ante, tie in bets:
        sums += StakeSums.of(ante, tie)
    band = rtp_band([(model, sums)])
    assert band is not None
    rho, variance = round_by_round_variance(model, bets)
    assert band.expected_rtp == rho
    assert band.variance == variance
    # Rounds of the same bets grouped with a count give the same band.
    grouped = StakeSums.of(100, 0, rounds=2) + StakeSums.of(500, 100) + StakeSums.of(2_000, 0)
    grouped += StakeSums.of(300, 300) + StakeSums.of(100, 200)
    assert rtp_band([(model, grouped)]) == band


def test_band_of_equal_bets_shrinks_with_the_square_root_of_the_rounds() -> None:
    model = round_return(6, 10, False, 1)
    m = model.moments
    rho = m.u / m.h
    per_round = (m.uu - 2 * rho * m.uh + rho**2 * m.hh - (m.u - rho * m.h) ** 2) / m.h**2
    for n, ante in ((100, 100), (10_000, 500)):
        band = rtp_band([(model, StakeSums.of(ante, 0, rounds=n))])
        assert band is not None
        assert band.expected_rtp == 1 - odds_for(6).element_of_risk_war
        assert band.variance == per_round / n  # the bet size cancels out
        assert band.z == Z_95
        assert float(band.half_width) == pytest.approx(
            1.959963984540054 * float(per_round / n) ** 0.5
        )


def test_the_band_edges_are_decided_exactly() -> None:
    band = rtp_band([(round_return(6, 10, False, 1), StakeSums.of(100, 100, rounds=1000))])
    assert band is not None
    assert band.contains(band.expected_rtp)
    assert band.z_score(band.expected_rtp) == 0
    # Just inside and just outside the edge, further apart than any rounding could blur.
    edge = band.expected_rtp + band.z * F(band.std_dev)
    assert band.contains(edge * (1 - F(1, 10**12))) != band.contains(edge * (1 + F(1, 10**12)))
    assert not band.contains(band.expected_rtp + F(1, 10))
    assert band.low < float(band.expected_rtp) < band.high


def test_no_band_without_stakes() -> None:
    model = round_return(6, 10, False, 1)
    assert rtp_band([]) is None
    assert rtp_band([(model, StakeSums.of(100, 0, rounds=10).tie_bet_only())]) is None


def test_slices_of_the_same_rounds() -> None:
    sums = StakeSums.of(200, 100, rounds=3)
    assert sums.ante_only() == StakeSums(3, 600, 0, 120_000, 0, 0)
    assert sums.tie_bet_only() == StakeSums(3, 0, 300, 0, 0, 30_000)
    model = round_return(6, 10, False, 1)
    tie = rtp_band([(model, sums.tie_bet_only())])
    assert tie is not None and tie.expected_rtp == model.expected_tie_bet_rtp()
    ante = rtp_band([(model, sums.ante_only())])
    assert ante is not None and ante.expected_rtp == model.expected_ante_rtp()


@pytest.mark.slow
def test_the_band_covers_about_95_percent_of_fair_batches() -> None:
    """400 batches of 250 rounds dealt by the production path, with mixed bets and ties
    decided war 70 % of the time: about 5 % of the batches fall outside their band."""
    rules = TableRules(decks=6, tie_pays=10)
    server_seed = hashlib.sha256(b"band coverage").digest()
    bets = [(100, 0), (200, 100), (500, 0), (1_000, 100), (300, 300)]
    batches, size = 400, 250
    outside = {"all": 0, "ante": 0, "tie": 0}
    nonce = 0
    for _ in range(batches):
        sums = StakeSums()
        wars = ties = 0
        paid = handle = ante_paid = ante_handle = tie_paid = tie_handle = 0
        for i in range(size):
            ante, tie = bets[nonce % len(bets)]
            deal = deal_casino_war(server_seed, "coverage", nonce, rules.decks)
            game = CasinoWarRound.start(rules, deal, ante, tie)
            if deal.is_tie:
                ties += 1
                war = (nonce * 7 + i) % 10 < 7
                wars += war
                game.decide(Decision.WAR if war else Decision.SURRENDER)
            result = game.result
            nonce += 1
            sums += StakeSums.of(ante, tie)
            paid += result.payouts.total
            handle += result.bets.total
            ante_paid += result.payouts.ante + result.payouts.raise_
            ante_handle += result.bets.ante + result.bets.raise_
            tie_paid += result.payouts.tie_bet
            tie_handle += result.bets.tie_bet
        model = round_return(6, 10, False, F(wars, ties) if ties else F(1))
        for name, part, got, staked in (
            ("all", sums, paid, handle),
            ("ante", sums.ante_only(), ante_paid, ante_handle),
            ("tie", sums.tie_bet_only(), tie_paid, tie_handle),
        ):
            band = rtp_band([(model, part)])
            assert band is not None
            outside[name] += not band.contains(F(got, staked))
    # Binomial(400, 0.05): mean 20, standard deviation 4.4.
    for name, count in outside.items():
        assert 8 <= count <= 34, (name, outside)
