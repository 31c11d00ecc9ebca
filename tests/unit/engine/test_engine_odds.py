"""Exact odds against fractions derived by hand, and against a brute-force enumeration that
deals the burn cards too.

Hand derivation, with c = 4 * decks cards per rank and T = 52 * decks cards in the shoe:

* P(tie) = 13 c (c - 1) / (T (T - 1)) = (c - 1) / (T - 1).
* After a tie, the war cards come from T - 2 cards (the burns are unseen and exchangeable):
  P(war tie) = q = [(c - 2)(c - 3) + 12 c (c - 1)] / ((T - 2)(T - 3)); a war win and a war
  loss each have (1 - q) / 2.
* Always war per ante: E = P(tie) * [(1 + q)/2 * 1 - (1 - q)/2 * 2] (the no-tie part is
  symmetric, so it cancels) = P(tie) (3q - 1) / 2; the bonus adds P(tie) q.
* Surrender: E = -P(tie) / 2. Tie bet at k:1: E = (k + 1) P(tie) - 1.
* E[X^2] (always war) = 1 - P(tie) + P(tie) [ (1 - q)/2 (1 + 4) + q (1 + bonus)^2 ].
"""

from __future__ import annotations

import itertools
import json
from fractions import Fraction as F
from typing import Any

import pytest
from click.testing import CliRunner

from casino.cli import main as casino_cli
from casino.engine.casino_war import TableRules
from casino.engine.errors import InvalidRules
from casino.engine.odds import casino_war_odds, odds_for, theoretical_rtp

# The hand arithmetic, written out per deck count.
HAND: dict[int, dict[str, Any]] = {
    # c=4, T=52: P(tie) = 3/51; q = (2*1 + 12*4*3) / (50*49) = 146/2450 = 73/1225;
    # E = (1/17)(219/1225 - 1)/2 = -503/20825.
    1: {
        "p_tie": F(1, 17),
        "q": F(73, 1225),
        "war": F(503, 20825),
        "war_bonus": F(503 - 73, 20825),
        "surrender": F(1, 34),
        "tie": {10: F(6, 17), 11: F(5, 17), 12: F(4, 17)},
    },
    # c=8, T=104: P(tie) = 7/103; q = (6*5 + 12*8*7) / (102*101) = 702/10302 = 117/1717;
    # E = (7/103)(351/1717 - 1)/2 = (7/103)(-683/1717) = -4781/176851.
    2: {
        "p_tie": F(7, 103),
        "q": F(117, 1717),
        "war": F(4781, 176851),
        "war_bonus": F(4781 - 7 * 117, 176851),
        "surrender": F(7, 206),
        "tie": {10: F(26, 103), 11: F(19, 103), 12: F(12, 103)},
    },
    # c=24, T=312: P(tie) = 23/311; q = (22*21 + 12*24*23) / (310*309) = 7086/95790
    # = 1181/15965; E = (23/311)(3543/15965 - 1)/2 = (23/311)(-6211/15965) = -142853/4965115.
    6: {
        "p_tie": F(23, 311),
        "q": F(1181, 15965),
        "war": F(142853, 4965115),
        "war_bonus": F(142853 - 23 * 1181, 4965115),
        "surrender": F(23, 622),
        "tie": {10: F(58, 311), 11: F(35, 311), 12: F(12, 311)},
    },
    # c=32, T=416: P(tie) = 31/415; q = (30*29 + 12*32*31) / (414*413) = 12774/170982
    # = 2129/28497; E = (31/415)(6387/28497 - 1)/2 = (31/415)(-11055/28497) = -22847/788417.
    8: {
        "p_tie": F(31, 415),
        "q": F(2129, 28497),
        "war": F(22847, 788417),
        "war_bonus": F(22847 * 15 - 31 * 2129, 788417 * 15),
        "surrender": F(31, 830),
        "tie": {10: F(74, 415), 11: F(43, 415), 12: F(12, 415)},
    },
}


def hand_second_moment(p: F, q: F, bonus: int) -> F:
    return 1 - p + p * ((1 - q) / 2 * 5 + q * (1 + bonus) ** 2)


@pytest.mark.parametrize("decks", sorted(HAND))
def test_exact_odds_match_the_hand_derivation(decks: int) -> None:
    hand = HAND[decks]
    odds = odds_for(decks)
    assert odds.p_tie == hand["p_tie"]
    assert odds.p_war_tie == hand["q"]
    assert odds.p_war_win == odds.p_war_loss == (1 - hand["q"]) / 2
    assert odds.house_edge_war == hand["war"]
    assert odds.house_edge_surrender == hand["surrender"]
    assert odds.house_edge_tie_bet == hand["tie"][10]
    assert odds.element_of_risk_war == hand["war"] / (1 + hand["p_tie"])
    ev = -hand["war"]
    assert odds.variance_war == hand_second_moment(hand["p_tie"], hand["q"], 0) - ev**2


@pytest.mark.parametrize("decks", sorted(HAND))
def test_bonus_and_tie_payouts_match_the_hand_derivation(decks: int) -> None:
    hand = HAND[decks]
    bonus = odds_for(decks, war_tie_bonus=True)
    assert bonus.house_edge_war == hand["war_bonus"]
    ev = -hand["war_bonus"]
    assert bonus.variance_war == hand_second_moment(hand["p_tie"], hand["q"], 1) - ev**2
    assert bonus.house_edge_surrender == hand["surrender"]
    for k in (10, 11, 12):
        assert odds_for(decks, tie_pays=k).house_edge_tie_bet == hand["tie"][k]


def test_six_deck_figures_quoted_in_the_issue() -> None:
    odds = odds_for(6)
    assert round(float(odds.house_edge_war) * 100, 4) == 2.8771
    assert round(float(odds.house_edge_surrender) * 100, 4) == 3.6977
    assert round(float(odds.house_edge_tie_bet) * 100, 4) == 18.6495
    assert round(float(odds_for(6, war_tie_bonus=True).house_edge_war) * 100, 4) == 2.3301


def enumerated_war_edge(decks: int, bonus: int) -> F:
    """Minus the always-war EV, dealing all seven cards rank by rank, burns included.

    Integer weights: each ordered deal of ranks weighs the product of the counts left at
    each draw, over the T (T-1) ... (T-6) ordered seven-card deals.
    """
    counts = [4 * decks] * 13
    total = 52 * decks
    all_deals = 1
    for i in range(7):
        all_deals *= total - i
    rest5 = all_deals // (total * (total - 1))  # any five cards after two non-tied cards
    weighted_net = 0
    for a in range(13):
        for b in range(13):
            if a == b:
                continue
            weighted_net += (1 if a > b else -1) * counts[a] * counts[b] * rest5
    for r in range(13):
        left = list(counts)
        w_first = left[r] * (left[r] - 1)
        left[r] -= 2
        remaining = total - 2

        def burns(depth: int, weight: int, left: list[int], remaining: int) -> int:
            if depth == 3:
                net = 0
                for pa in range(13):
                    wa = left[pa]
                    if not wa:
                        continue
                    for da in range(13):
                        wd = left[da] - (1 if da == pa else 0)
                        if wd <= 0:
                            continue
                        value = 1 + (bonus if pa == da else 0) if pa >= da else -2
                        net += value * wa * wd
                return weight * net
            acc = 0
            for s in range(13):
                if left[s]:
                    n = left[s]
                    left[s] -= 1
                    acc += burns(depth + 1, weight * n, left, remaining - 1)
                    left[s] += 1
            return acc

        weighted_net += burns(0, w_first, left, remaining)
    return -F(weighted_net, all_deals)


@pytest.mark.parametrize("decks", [1, 2])
@pytest.mark.parametrize("bonus", [0, 1])
def test_burn_cards_do_not_change_the_war_odds(decks: int, bonus: int) -> None:
    odds = odds_for(decks, war_tie_bonus=bool(bonus))
    assert enumerated_war_edge(decks, bonus) == odds.house_edge_war


def test_more_decks_raise_every_edge() -> None:
    edges = [odds_for(d) for d in range(1, 9)]
    for fewer, more in itertools.pairwise(edges):
        assert fewer.house_edge_war < more.house_edge_war
        assert fewer.house_edge_surrender < more.house_edge_surrender
        assert fewer.house_edge_tie_bet > more.house_edge_tie_bet  # more ties with more decks


def test_theoretical_rtp_follows_the_table_rules() -> None:
    rtp = theoretical_rtp(TableRules(decks=6, tie_pays=11, war_tie_bonus=True))
    assert set(rtp) == {"war", "surrender", "tie_bet"}
    assert rtp["war"] == 1 - HAND[6]["war_bonus"]
    assert rtp["surrender"] == 1 - HAND[6]["surrender"]
    assert rtp["tie_bet"] == 1 - HAND[6]["tie"][11]
    assert all(isinstance(v, F) for v in rtp.values())
    assert casino_war_odds(TableRules(decks=2)) == odds_for(2)


def test_odds_refuse_invalid_rules() -> None:
    with pytest.raises(InvalidRules):
        odds_for(9)
    with pytest.raises(InvalidRules):
        odds_for(6, tie_pays=9)


KEYS = (
    "p_tie",
    "house_edge_war",
    "house_edge_surrender",
    "house_edge_tie_bet",
    "element_of_risk_war",
    "std_dev_war",
)


@pytest.mark.parametrize("decks", [1, 2, 4, 6, 8])
@pytest.mark.parametrize("tie_pays", [10, 11, 12])
@pytest.mark.parametrize("bonus", [False, True])
def test_odds_json_command_matches_the_exact_figures(
    decks: int, tie_pays: int, bonus: bool
) -> None:
    args = ["odds", "--decks", str(decks), "--tie-pays", str(tie_pays), "--json"]
    if bonus:
        args.append("--war-tie-bonus")
    outcome = CliRunner().invoke(casino_cli, args)
    assert outcome.exit_code == 0, outcome.output
    data = json.loads(outcome.output)
    assert data["decks"] == decks
    assert set(KEYS) <= set(data) and set(KEYS) <= set(data["exact"])

    # Independent figures from the closed forms above (valid for any deck count).
    c, t = 4 * decks, 52 * decks
    p = F(c - 1, t - 1)
    q = F((c - 2) * (c - 3) + 12 * c * (c - 1), (t - 2) * (t - 3))
    ev = p * (3 * q - 1) / 2 + (p * q if bonus else 0)
    expected = {
        "p_tie": p,
        "house_edge_war": -ev,
        "house_edge_surrender": p / 2,
        "house_edge_tie_bet": 1 - (tie_pays + 1) * p,
        "element_of_risk_war": -ev / (1 + p),
    }
    for key, value in expected.items():
        assert F(data["exact"][key]) == value, key
        assert round(data[key], 6) == round(float(value), 6), key
    variance = hand_second_moment(p, q, int(bonus)) - ev**2
    assert data["exact"]["std_dev_war"] == f"sqrt({variance})"
    assert abs(data["std_dev_war"] - float(variance) ** 0.5) < 1e-12


def test_odds_text_output() -> None:
    outcome = CliRunner().invoke(casino_cli, ["odds", "--decks", "6"])
    assert outcome.exit_code == 0
    assert "2.8771%" in outcome.output and "3.6977%" in outcome.output
    assert "18.6495%" in outcome.output
    bonus = CliRunner().invoke(casino_cli, ["odds", "--war-tie-bonus"])
    assert "2.3301%" in bonus.output
    bad = CliRunner().invoke(casino_cli, ["odds", "--decks", "9"])
    assert bad.exit_code != 0
