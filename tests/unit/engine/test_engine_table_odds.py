"""Exact odds of every rule against an independent enumeration that deals every card of
rounds of one, two and three hands (burns included) over small shoes, and against the
published figures, each with its convention."""

from __future__ import annotations

import json
from fractions import Fraction as F
from functools import cache, lru_cache
from typing import Any

import pytest
from click.testing import CliRunner

from casino.cli import main as casino_cli
from casino.engine.casino_war import TableRules, WarTies
from casino.engine.hand_odds import HandOutcome, WarRules, hand_distribution
from casino.engine.odds import odds_for, theoretical_rtp
from casino.engine.round_odds import pair_distribution
from casino.engine.rtp_band import round_return, round_return_of
from casino.engine.table_odds import TableOdds, table_odds

Outcome = tuple[F, int, int, bool | None]  # ante net, staked, ties, first war tied


# --- the independent enumeration -----------------------------------------------------------


@lru_cache(maxsize=8)
def enumerate_round(
    counts: tuple[int, ...], hands: int, war_ties: str, cap: int, decision: str
) -> dict[tuple[Outcome, ...], F]:
    """Every way a round of ``hands`` hands can be dealt from a shoe of ``counts`` cards per
    rank, card by card: the first cards (player then dealer for one hand; dealer then each
    hand otherwise), then each war: three burns, a card per hand at war in hand order, one
    dealer card. Every tied hand takes ``decision``. Returns the distribution of the hands'
    outcomes."""

    @cache
    def deal(left: tuple[int, ...], state: tuple[Any, ...]) -> dict[tuple[Outcome, ...], F]:
        if state[0] == "over":
            return {state[1]: F(1)}
        total = sum(left)
        assert total > 0, "the test shoe ran out"
        out: dict[tuple[Outcome, ...], F] = {}
        for rank, count in enumerate(left):
            if not count:
                continue
            rest = (*left[:rank], left[rank] - 1, *left[rank + 1 :])
            for result, p in deal(rest, advance(state, rank)).items():
                out[result] = out.get(result, F(0)) + p * F(count, total)
        return out

    def advance(state: tuple[Any, ...], card: int) -> tuple[Any, ...]:
        if state[0] == "first":
            seen = (*state[1], card)
            if len(seen) < hands + 1:
                return ("first", seen)
            dealer, firsts = (seen[1], seen[:1]) if hands == 1 else (seen[0], seen[1:])
            done: list[Outcome | None] = []
            at_war = []
            for i, mine in enumerate(firsts):
                if mine != dealer:
                    done.append((F(1) if mine > dealer else F(-1), 1, 0, None))
                elif decision == "surrender":
                    done.append((F(-1, 2), 1, 1, None))
                else:
                    done.append(None)
                    at_war.append((i, 1))
            return next_war(tuple(done), tuple(at_war), True)
        _, burns, at_war, cards, done, first = state
        if burns:
            return ("war", burns - 1, at_war, cards, done, first)
        if len(cards) < len(at_war):
            return ("war", 0, at_war, (*cards, card), done, first)
        settled = list(done)
        again = []
        for (i, ties), mine in zip(at_war, cards, strict=True):
            flag = not first or mine == card
            if mine > card:
                settled[i] = (F(1), 2, ties, flag)
            elif mine < card:
                settled[i] = (F(-2), 2, ties, flag)
            elif war_ties == "repeat" and ties + 1 < cap:
                again.append((i, ties + 1))
            else:
                settled[i] = (F(2) if war_ties == "bonus" else F(1), 2, ties + 1, True)
        return next_war(tuple(settled), tuple(again), False)

    def next_war(done: tuple[Any, ...], at_war: tuple[Any, ...], first: bool) -> tuple[Any, ...]:
        if not at_war:
            return ("over", done)
        return ("war", 3, at_war, (), done, first)

    return deal(counts, ("first", ()))


def as_tuple(outcome: HandOutcome) -> Outcome:
    return (outcome.ante_net, outcome.staked, outcome.ties, outcome.war_tie)


def marginal(joint: dict[tuple[Outcome, ...], F], *which: int) -> dict[Any, F]:
    out: dict[Any, F] = {}
    for outcomes, p in joint.items():
        key = tuple(outcomes[i] for i in which)
        out[key] = out.get(key, F(0)) + p
    return out


CASES = [
    # (counts per rank, war_ties, cap); uneven counts so that rank order matters
    ((3, 5, 4, 6), "push", 4),
    ((5, 3, 6, 4), "bonus", 4),
    ((5, 6, 4, 5), "repeat", 4),
    ((4, 6, 5, 3, 2), "repeat", 3),
]


@pytest.mark.parametrize(("counts", "war_ties", "cap"), CASES)
@pytest.mark.parametrize("decision", ["war", "surrender"])
def test_one_hand_equals_the_enumeration(
    counts: tuple[int, ...], war_ties: str, cap: int, decision: str
) -> None:
    rules = WarRules(WarTies(war_ties), cap)
    exact = {(as_tuple(o),): p for o, p in hand_distribution(counts, rules, decision).items()}
    assert exact == enumerate_round(counts, 1, war_ties, cap, decision)


@pytest.mark.parametrize(
    ("counts", "war_ties", "cap"), [((5, 3, 6, 4), "bonus", 4), ((6, 6, 5, 6), "repeat", 4)]
)
def test_two_hands_equal_the_enumeration(counts: tuple[int, ...], war_ties: str, cap: int) -> None:
    rules = WarRules(WarTies(war_ties), cap)
    exact = {
        (as_tuple(a), as_tuple(b)): p
        for (a, b), p in pair_distribution(counts, rules, "war").items()
    }
    assert exact == enumerate_round(counts, 2, war_ties, cap, "war")


def test_each_hand_and_each_pair_of_a_three_hand_round_is_a_one_and_a_two_hand_round() -> None:
    """The exchangeability the per-hand edge and the round variance rest on."""
    counts, cap = (5, 5, 4, 4), 3
    rules = WarRules(WarTies.REPEAT, cap)
    joint = enumerate_round(counts, 3, "repeat", cap, "war")
    one = {(as_tuple(o),): p for o, p in hand_distribution(counts, rules).items()}
    two = {(as_tuple(a), as_tuple(b)): p for (a, b), p in pair_distribution(counts, rules).items()}
    for hand in range(3):
        assert marginal(joint, hand) == one
    for pair in ((0, 1), (0, 2), (1, 2)):
        assert marginal(joint, *pair) == two


def test_the_round_variance_is_that_of_the_enumerated_round() -> None:
    counts, cap = (5, 5, 4, 4), 3
    rules = TableRules(max_hands=3, war_ties="repeat", max_war_ties=cap, tie_ladder=(10, 30, 90))
    odds = TableOdds(rules, counts)
    joint = enumerate_round(counts, 3, "repeat", cap, "war")

    def net(outcome: Outcome) -> F:  # ante 1 and tie bet 1 a hand
        ante_net, _, ties, _ = outcome
        return ante_net + rules.tie_bet_return(ties) - 1

    mean = sum((p * sum(net(o) for o in outcomes) for outcomes, p in joint.items()), F(0))
    square = sum((p * sum(net(o) for o in outcomes) ** 2 for outcomes, p in joint.items()), F(0))
    moments = odds.round_moments(3, tie_bet=1, policy="war")
    assert moments.mean == mean
    assert moments.variance == square - mean**2


# --- the figures ---------------------------------------------------------------------------


@pytest.mark.parametrize("decks", range(1, 9))
@pytest.mark.parametrize("bonus", [False, True])
def test_original_rules_give_the_original_figures(decks: int, bonus: bool) -> None:
    legacy = odds_for(decks, war_tie_bonus=bonus)
    bets = table_odds(TableRules(decks=decks, war_tie_bonus=bonus)).bets
    assert bets["ante_war"].house_edge == legacy.house_edge_war
    assert bets["ante_war"].house_edge_per_total == legacy.element_of_risk_war
    assert bets["ante_war"].variance == legacy.variance_war
    assert bets["ante_surrender"].house_edge == legacy.house_edge_surrender
    assert bets["tie_bet"].house_edge == legacy.house_edge_tie_bet
    assert bets["ante_best"].rtp == bets["ante_war"].rtp  # war always loses less
    assert set(theoretical_rtp(TableRules(decks=decks))) == {"war", "surrender", "tie_bet"}


@pytest.mark.parametrize(
    ("decks", "edge"), [(1, "35.29"), (2, "25.24"), (4, "20.29"), (6, "18.65"), (8, "17.83")]
)
def test_published_tie_bet_edges(decks: int, edge: str) -> None:
    """Per initial bet (one stake: the same per total wagered)."""
    bet = table_odds(TableRules(decks=decks)).bets["tie_bet"]
    assert f"{float(bet.house_edge) * 100:.2f}" == edge
    assert bet.house_edge == bet.house_edge_per_total


def test_published_evolution_figures_at_eight_decks() -> None:
    """Main bet 96.27 % and tie ladder 92.05 %, per initial bet (the hand at war on a tie)."""
    rules = TableRules(decks=8, war_ties="repeat", tie_ladder=(10, 25, 50, 200))
    bets = table_odds(rules).bets
    assert f"{float(bets['ante_war'].rtp) * 100:.2f}" == "96.27"
    assert f"{float(bets['tie_bet'].rtp) * 100:.2f}" == "92.05"
    # Per total wagered the main bet reads otherwise: the convention matters.
    assert f"{float(bets['ante_war'].rtp_per_total) * 100:.2f}" == "96.53"
    assert (
        bets["tie_bet_alone"].rtp == 1 - table_odds(TableRules(decks=8)).bets["tie_bet"].house_edge
    )
    rtp = theoretical_rtp(rules)
    assert set(rtp) == {"war", "surrender", "tie_bet", "tie_bet_alone"}


def test_published_gameiom_figures_are_per_total_wagered() -> None:
    """97.32 % / 97.83 % at 6 decks, no bonus / bonus: per total amount wagered."""
    for bonus, published in ((False, "97.32"), (True, "97.83")):
        bet = table_odds(TableRules(decks=6, war_tie_bonus=bonus)).bets["ante_war"]
        assert f"{float(bet.rtp_per_total) * 100:.2f}" == published
        assert f"{float(bet.rtp) * 100:.2f}" != published  # not per initial bet


def test_wizard_figures_at_six_decks_per_initial_bet() -> None:
    plain = table_odds(TableRules()).bets
    bonus = table_odds(TableRules(war_tie_bonus=True)).bets
    assert f"{float(plain['ante_war'].house_edge) * 100:.2f}" == "2.88"
    assert f"{float(bonus['ante_war'].house_edge) * 100:.2f}" == "2.33"
    assert f"{float(plain['ante_surrender'].house_edge) * 100:.2f}" == "3.70"


def test_the_war_tie_bet_is_the_chance_of_a_tied_war() -> None:
    for decks in (1, 6, 8):
        legacy = odds_for(decks)
        for pays in (10, 11, 12):
            rules = TableRules(decks=decks, max_war_tie_bet=100, war_tie_pays=pays)
            bet = table_odds(rules).bets["war_tie_bet"]
            assert bet.rtp == (pays + 1) * legacy.p_war_tie
            assert "war_tie_bet" in theoretical_rtp(rules)


def test_the_best_decision_surrenders_only_where_surrender_is_allowed() -> None:
    forbidden = table_odds(TableRules(surrender_allowed=False)).bets
    assert forbidden["ante_best"].rtp == forbidden["ante_war"].rtp
    assert forbidden["ante_surrender"].rtp < forbidden["ante_war"].rtp  # computed all the same


def test_several_hands_keep_each_hands_edge_and_add_covariance() -> None:
    odds = table_odds(TableRules(max_hands=5))
    one = odds.round_moments(1)
    assert one.covariance == 0 and one.variance == odds.bets["ante_best"].variance
    for hands in (2, 3, 5):
        moments = odds.round_moments(hands)
        assert moments.mean == hands * one.mean
        assert moments.variance == hands * one.variance + hands * (hands - 1) * moments.covariance
    assert f"{float(odds.round_moments(2).variance):.4f}" == "2.8747"
    with pytest.raises(ValueError):
        table_odds(TableRules(max_hands=2)).round_moments(3)


def test_tie_only_rounds() -> None:
    odds = table_odds(TableRules(max_hands=2, tie_only=True))
    moments = odds.round_moments(2, ante=0, tie_bet=1)
    assert moments.hand_mean == -odds.bets["tie_bet"].house_edge
    # One dealer card for both: a hand's tie leaves one card fewer of that rank for the other.
    assert moments.covariance < 0
    ante = table_odds(TableRules(max_hands=2)).round_moments(2)
    assert ante.covariance > 0  # a high dealer card beats both antes


# --- the command ---------------------------------------------------------------------------


def odds_json(*args: str) -> dict[str, Any]:
    outcome = CliRunner().invoke(casino_cli, ["odds", *args, "--json"])
    assert outcome.exit_code == 0, outcome.output
    return json.loads(outcome.output)


def test_odds_command_gives_every_bet_exactly() -> None:
    data = odds_json(
        "--decks",
        "8",
        "--war-ties",
        "repeat",
        "--tie-ladder",
        "10,25,50,200",
        "--war-tie-bet",
        "--hands",
        "3",
    )
    rules = TableRules(
        decks=8,
        war_ties="repeat",
        tie_ladder=(10, 25, 50, 200),
        max_hands=3,
        max_war_tie_bet=100_000,
    )
    assert data["rules"] == rules.to_dict()
    odds = table_odds(rules)
    assert set(data["bets"]) == set(odds.bets)
    for name, bet in odds.bets.items():
        assert F(data["bets"][name]["exact"]["rtp"]) == bet.rtp
        assert F(data["bets"][name]["exact"]["rtp_per_total"]) == bet.rtp_per_total
    assert F(data["round"]["ante"]["exact"]["variance"]) == odds.round_variance(3)
    assert "house_edge_war" not in data  # the one-hand figures do not describe repeated wars


def test_odds_command_takes_a_rules_snapshot_and_names_a_refused_rule() -> None:
    snapshot = json.dumps({"decks": 2, "war_tie_bonus": True})
    data = odds_json("--rules", snapshot)
    assert F(data["exact"]["house_edge_war"]) == odds_for(2, war_tie_bonus=True).house_edge_war
    bad = CliRunner().invoke(casino_cli, ["odds", "--tie-ladder", "10,25,50,200"])
    assert bad.exit_code == 2 and "tie_ladder" in bad.output
    text = CliRunner().invoke(casino_cli, ["odds", "--decks", "6", "--hands", "2"])
    assert text.exit_code == 0
    assert "97.3210%" in text.output and "2.8771%" in text.output  # per total, per initial
    assert "round of 2 hand(s)" in text.output


@pytest.mark.parametrize(
    ("decks", "pays", "bonus", "share"),
    [(6, 10, False, 1), (1, 12, True, F(1, 3)), (8, 11, False, 0)],
)
def test_the_reports_model_takes_any_rules(decks: int, pays: int, bonus: bool, share: F) -> None:
    rules = TableRules(decks=decks, tie_pays=pays, war_tie_bonus=bonus)
    assert round_return_of(rules, share).moments == round_return(decks, pays, bonus, share).moments


def test_the_reports_model_of_repeated_wars_is_per_total_wagered() -> None:
    rules = TableRules(decks=8, war_ties="repeat", tie_ladder=(10, 25, 50, 200))
    model = round_return_of(rules)
    bets = table_odds(rules).bets
    assert model.expected_ante_rtp() == bets["ante_war"].rtp_per_total
    assert model.expected_tie_bet_rtp() == bets["tie_bet"].rtp
    assert round_return_of(rules, 0).expected_tie_bet_rtp() == bets["tie_bet_alone"].rtp
    with pytest.raises(ValueError):
        round_return_of(rules, 2)
