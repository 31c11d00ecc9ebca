"""The rules added for several hands, repeated wars and the new bets: their dict form keeps
every stored snapshot byte for byte, every refusal names its rule, and the bets they take."""

from __future__ import annotations

import json
from typing import Any

import pytest

from casino.engine.casino_war import (
    ORIGINAL_RULES,
    Dealing,
    Decision,
    HandBet,
    RecordShape,
    TableRules,
    WarTies,
)
from casino.engine.errors import InvalidBet, InvalidRules

#: The dict form of the default table as every round stored so far has it, byte for byte.
STORED_DEFAULT = (
    '{"decks": 6, "tie_pays": 10, "war_tie_bonus": false, "surrender_allowed": true, '
    '"min_ante": 100, "max_ante": 500000, "max_tie_bet": 100000, "bet_increment": 100}'
)
LADDER = (10, 25, 50, 200)


def test_the_original_rules_serialise_byte_for_byte_as_before() -> None:
    assert json.dumps(TableRules().to_dict()) == STORED_DEFAULT
    bonus = TableRules(decks=8, tie_pays=12, war_tie_bonus=True, surrender_allowed=False)
    assert list(bonus.to_dict()) == list(ORIGINAL_RULES)
    assert bonus.to_dict()["war_tie_bonus"] is True
    # Every stored snapshot reads back to rules that write it again unchanged.
    for stored in (json.loads(STORED_DEFAULT), bonus.to_dict()):
        assert TableRules.from_dict(stored).to_dict() == stored


def test_war_tie_bonus_and_war_ties_are_one_rule() -> None:
    assert TableRules(war_tie_bonus=True).war_ties is WarTies.BONUS
    assert TableRules().war_ties is WarTies.PUSH
    assert TableRules(war_ties="bonus") == TableRules(war_tie_bonus=True)
    assert TableRules(war_ties="bonus").to_dict() == TableRules(war_tie_bonus=True).to_dict()
    assert TableRules(war_ties="push").to_dict() == TableRules().to_dict()
    repeat = TableRules(war_ties="repeat")
    assert repeat.war_tie_bonus is False and repeat.to_dict()["war_ties"] == "repeat"
    with pytest.raises(InvalidRules) as caught:
        TableRules(war_tie_bonus=True, war_ties="repeat")
    assert caught.value.rule == "war_ties"


NEW_RULES: list[dict[str, Any]] = [
    {"max_hands": 5},
    {"war_ties": "repeat"},
    {"war_ties": "repeat", "max_war_ties": 3},
    {"war_ties": "repeat", "tie_ladder": [10, 25, 50, 200]},
    {"war_tie_pays": 12, "max_war_tie_bet": 5000},
    {"max_war_tie_bet": 100},
    {"tie_only": True},
    {"decision_seconds": 30},
]


@pytest.mark.parametrize("changes", NEW_RULES)
def test_a_new_rule_appears_only_when_set_and_round_trips(changes: dict[str, Any]) -> None:
    rules = TableRules.from_dict(changes)
    data = rules.to_dict()
    assert list(data)[:8] == list(ORIGINAL_RULES)
    assert {k: v for k, v in data.items() if k not in ORIGINAL_RULES} == changes
    assert TableRules.from_dict(json.loads(json.dumps(data))) == rules


def test_the_procedure_and_the_record_shape_follow_the_rules() -> None:
    assert TableRules().dealing is Dealing.CLASSIC
    assert TableRules().record_shape is RecordShape.ONE_HAND
    assert TableRules(max_hands=2).dealing is Dealing.TABLE
    assert TableRules(max_hands=2).record_shape is RecordShape.HANDS
    assert TableRules(war_ties="repeat").dealing is Dealing.CLASSIC
    assert TableRules(war_ties="repeat").record_shape is RecordShape.HANDS
    assert TableRules(max_war_tie_bet=100).record_shape is RecordShape.HANDS
    # Tie-only bets and the clock fit the one-hand shape.
    for rules in (TableRules(tie_only=True), TableRules(decision_seconds=10)):
        assert rules.record_shape is RecordShape.ONE_HAND


def test_the_ladder_pays_the_highest_step_reached() -> None:
    rules = TableRules(decks=8, war_ties="repeat", tie_ladder=LADDER)
    assert [rules.tie_bet_return(n) for n in range(5)] == [0, 11, 26, 51, 201]
    assert [TableRules().tie_bet_return(n) for n in range(3)] == [0, 11, 11]


REFUSED: list[tuple[dict[str, Any], str, str]] = [
    ({"max_hands": 0}, "max_hands", "invalid_rules"),
    ({"max_hands": 6}, "max_hands", "invalid_rules"),
    ({"max_hands": 2.0}, "max_hands", "rules_not_integer"),
    ({"war_ties": "sometimes"}, "war_ties", "invalid_rules"),
    ({"max_war_ties": 5}, "max_war_ties", "invalid_rules"),  # without repeat
    ({"war_ties": "repeat", "max_war_ties": 1}, "max_war_ties", "invalid_rules"),
    ({"war_ties": "repeat", "max_war_ties": 9}, "max_war_ties", "invalid_rules"),
    ({"tie_ladder": [10, 25, 50, 200]}, "tie_ladder", "invalid_rules"),  # without repeat
    ({"war_ties": "repeat", "tie_ladder": [10, 25, 50]}, "tie_ladder", "invalid_rules"),
    ({"war_ties": "repeat", "tie_ladder": [11, 25, 50, 200]}, "tie_ladder", "invalid_rules"),
    ({"war_ties": "repeat", "tie_ladder": [10, 25, 20, 200]}, "tie_ladder", "invalid_rules"),
    ({"war_ties": "repeat", "tie_ladder": [10, 25, 50, 1001]}, "tie_ladder", "invalid_rules"),
    ({"war_ties": "repeat", "tie_ladder": [10, 25, 50, "x"]}, "tie_ladder", "invalid_rules"),
    (
        {"war_ties": "repeat", "tie_ladder": [10, 25, 50, 200], "max_tie_bet": 0},
        "tie_ladder",
        "invalid_rules",
    ),
    ({"war_tie_pays": 13, "max_war_tie_bet": 100}, "war_tie_pays", "invalid_rules"),
    ({"war_tie_pays": 12}, "war_tie_pays", "invalid_rules"),  # no war tie bet
    ({"max_war_tie_bet": 150}, "max_war_tie_bet", "invalid_rules"),
    ({"max_war_tie_bet": -100}, "max_war_tie_bet", "invalid_rules"),
    ({"tie_only": True, "max_tie_bet": 0}, "tie_only", "invalid_rules"),
    ({"tie_only": 1}, "tie_only", "rules_not_boolean"),
    ({"decision_seconds": 4}, "decision_seconds", "invalid_rules"),
    ({"decision_seconds": 601}, "decision_seconds", "invalid_rules"),
    ({"decision_seconds": True}, "decision_seconds", "invalid_rules"),
    ({"decision_seconds": 30, "surrender_allowed": False}, "decision_seconds", "invalid_rules"),
    ({"decision_seconds": 30, "timeout_action": "war"}, "timeout_action", "invalid_rules"),
    ({"timeout_action": "war"}, "timeout_action", "invalid_rules"),
    ({"timeout_action": "nap"}, "timeout_action", "invalid_rules"),
    # A round the shoe cannot deal: five hands, seven wars, one deck (69 cards of 52).
    (
        {"decks": 1, "max_hands": 5, "war_ties": "repeat", "max_war_ties": 8},
        "max_war_ties",
        "invalid_rules",
    ),
    ({"unheard_of": 1}, "unheard_of", "unknown_rule"),
    ({"decks": 9}, "decks", "decks_out_of_range"),
    ({"tie_pays": 9}, "tie_pays", "tie_pays_not_allowed"),
    ({"min_ante": 150}, "min_ante", "min_ante_invalid"),
]


@pytest.mark.parametrize(("changes", "rule", "code"), REFUSED)
def test_a_refused_rule_is_named(changes: dict[str, Any], rule: str, code: str) -> None:
    with pytest.raises(InvalidRules) as caught:
        TableRules.from_dict(changes)
    assert (caught.value.rule, caught.value.code) == (rule, code)
    assert caught.value.detail


def test_the_largest_rounds_that_fit_the_shoe_are_taken() -> None:
    rules = TableRules(decks=1, max_hands=5, war_ties="repeat", max_war_ties=5)
    assert rules.most_cards() == 1 + 5 + 4 * 9 <= 52
    assert TableRules(decks=2, max_hands=5, war_ties="repeat", max_war_ties=8).most_cards() == 69


def test_the_clock_is_a_duration_and_only_surrenders() -> None:
    rules = TableRules(decision_seconds=45)
    assert rules.decision_timeout is not None and rules.decision_timeout.total_seconds() == 45
    assert rules.timeout_action is Decision.SURRENDER
    assert TableRules().decision_timeout is None
    assert TableRules(timeout_action="surrender") == TableRules()


@pytest.mark.parametrize(
    ("ante", "tie_bet", "code"),
    [
        (0, 0, "invalid_bet"),  # a tie bet alone needs a tie bet
        (0, 50, "tie_bet_not_multiple_of_increment"),
        (0, 200_000, "tie_bet_out_of_range"),
        (50, 100, "ante_out_of_range"),
        (150, 100, "ante_not_multiple_of_increment"),
    ],
)
def test_tie_only_bets(ante: int, tie_bet: int, code: str) -> None:
    rules = TableRules(tie_only=True)
    rules.validate_bet(0, 100)
    with pytest.raises(InvalidBet) as caught:
        rules.validate_bet(ante, tie_bet)
    assert caught.value.code == code


def test_an_ante_of_zero_stays_refused_where_tie_only_is_not_allowed() -> None:
    with pytest.raises(InvalidBet) as caught:
        TableRules().validate_bet(0, 100)
    assert caught.value.code == "ante_out_of_range"


def test_hands_and_war_tie_bets_are_validated() -> None:
    rules = TableRules(max_hands=3, max_war_tie_bet=1_000)
    rules.validate_hands([HandBet(100, 0)] * 3)
    for count in (0, 4):
        with pytest.raises(InvalidBet) as caught:
            rules.validate_hands([HandBet(100)] * count)
        assert caught.value.code == "invalid_bet" and "hand(s)" in caught.value.detail
    with pytest.raises(InvalidBet) as caught:
        rules.validate_hands([HandBet(100), HandBet(100, 150)])
    assert caught.value.code == "tie_bet_not_multiple_of_increment"
    rules.validate_war_tie_bet(0)
    rules.validate_war_tie_bet(1_000)
    for amount, code, says in [
        (1_100, "invalid_bet", "between 0 and 1000"),
        (-100, "invalid_bet", "between 0 and 1000"),
        (150, "invalid_bet", "multiple of 100"),
        (100.0, "bet_not_integer", "whole numbers"),
    ]:
        with pytest.raises(InvalidBet) as caught:
            rules.validate_war_tie_bet(amount)  # type: ignore[arg-type]
        assert caught.value.code == code and says in caught.value.detail
    with pytest.raises(InvalidBet) as caught:
        TableRules().validate_war_tie_bet(100)
    assert caught.value.code == "invalid_bet" and "no war tie bet" in caught.value.detail
