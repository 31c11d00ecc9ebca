"""Table rules: defaults, refused combinations, the dict form and bet validation codes."""

from __future__ import annotations

import pytest

from casino.engine.casino_war import TableRules
from casino.engine.errors import InvalidBet, InvalidRules


def test_defaults_are_a_valid_six_deck_table() -> None:
    rules = TableRules()
    assert rules.decks == 6
    assert rules.tie_pays == 10
    assert rules.war_tie_bonus is False
    assert rules.surrender_allowed is True
    assert (rules.min_ante, rules.max_ante, rules.max_tie_bet, rules.bet_increment) == (
        100,
        500_000,
        100_000,
        100,
    )
    assert rules.tie_bet_offered


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"decks": 0}, "decks_out_of_range"),
        ({"decks": 9}, "decks_out_of_range"),
        ({"tie_pays": 9}, "tie_pays_not_allowed"),
        ({"tie_pays": 13}, "tie_pays_not_allowed"),
        (
            {"bet_increment": 1, "min_ante": 1, "max_ante": 1, "max_tie_bet": 1},
            "bet_increment_invalid",
        ),
        ({"bet_increment": 0}, "bet_increment_invalid"),
        (
            {"bet_increment": 3, "min_ante": 3, "max_ante": 3, "max_tie_bet": 3},
            "bet_increment_invalid",
        ),
        ({"min_ante": 150}, "min_ante_invalid"),
        ({"min_ante": 0}, "min_ante_invalid"),
        ({"min_ante": -100}, "min_ante_invalid"),
        ({"max_ante": 50_050}, "max_ante_invalid"),
        ({"min_ante": 1_000, "max_ante": 900}, "max_ante_invalid"),
        ({"max_tie_bet": -100}, "max_tie_bet_invalid"),
        ({"max_tie_bet": 150}, "max_tie_bet_invalid"),
        ({"decks": 6.0}, "rules_not_integer"),
        ({"decks": True}, "rules_not_integer"),
        ({"min_ante": "100"}, "rules_not_integer"),
        ({"war_tie_bonus": 1}, "rules_not_boolean"),
        ({"surrender_allowed": "yes"}, "rules_not_boolean"),
    ],
)
def test_invalid_rules_are_refused_at_creation(changes: dict[str, object], code: str) -> None:
    with pytest.raises(InvalidRules) as caught:
        TableRules(**changes)  # type: ignore[arg-type]
    assert caught.value.code == code


@pytest.mark.parametrize("decks", range(1, 9))
@pytest.mark.parametrize("tie_pays", [10, 11, 12])
def test_every_allowed_deck_count_and_tie_payout(decks: int, tie_pays: int) -> None:
    assert TableRules(decks=decks, tie_pays=tie_pays).decks == decks


def test_no_tie_bet_table_and_smallest_increment_are_valid() -> None:
    rules = TableRules(min_ante=2, max_ante=2, max_tie_bet=0, bet_increment=2)
    assert not rules.tie_bet_offered


def test_dict_round_trip_and_defaults_for_missing_keys() -> None:
    rules = TableRules(decks=8, tie_pays=12, war_tie_bonus=True, surrender_allowed=False)
    data = rules.to_dict()
    assert data == {
        "decks": 8,
        "tie_pays": 12,
        "war_tie_bonus": True,
        "surrender_allowed": False,
        "min_ante": 100,
        "max_ante": 500_000,
        "max_tie_bet": 100_000,
        "bet_increment": 100,
    }
    assert TableRules.from_dict(data) == rules
    assert TableRules.from_dict({"decks": 2}) == TableRules(decks=2)


def test_from_dict_refuses_unknown_keys_and_bad_values() -> None:
    with pytest.raises(InvalidRules) as caught:
        TableRules.from_dict({"decks": 6, "jokers": 2})
    assert caught.value.code == "unknown_rule"
    with pytest.raises(InvalidRules):
        TableRules.from_dict({"tie_pays": 20})


def test_rules_are_frozen() -> None:
    rules = TableRules()
    with pytest.raises(AttributeError):
        rules.decks = 2  # type: ignore[misc]


@pytest.mark.parametrize(
    ("ante", "tie_bet", "code"),
    [
        (0, 0, "ante_out_of_range"),
        (-100, 0, "ante_out_of_range"),
        (50, 0, "ante_out_of_range"),
        (500_100, 0, "ante_out_of_range"),
        (150, 0, "ante_not_multiple_of_increment"),
        (499_950, 0, "ante_not_multiple_of_increment"),
        (100, -100, "tie_bet_out_of_range"),
        (100, 100_100, "tie_bet_out_of_range"),
        (100, 50, "tie_bet_not_multiple_of_increment"),
        (100, 250, "tie_bet_not_multiple_of_increment"),
        (100.0, 0, "bet_not_integer"),
        (True, 0, "bet_not_integer"),
        (100, None, "bet_not_integer"),
    ],
)
def test_validate_bet_codes(ante: object, tie_bet: object, code: str) -> None:
    with pytest.raises(InvalidBet) as caught:
        TableRules().validate_bet(ante, tie_bet)  # type: ignore[arg-type]
    assert caught.value.code == code


def test_range_is_checked_before_the_increment() -> None:
    with pytest.raises(InvalidBet) as caught:
        TableRules().validate_bet(50, 0)
    assert caught.value.code == "ante_out_of_range"


@pytest.mark.parametrize(("ante", "tie_bet"), [(100, 0), (500_000, 100_000), (1_200, 300)])
def test_valid_bets_pass(ante: int, tie_bet: int) -> None:
    TableRules().validate_bet(ante, tie_bet)


def test_any_tie_bet_is_out_of_range_at_a_table_without_one() -> None:
    rules = TableRules(max_tie_bet=0)
    rules.validate_bet(100, 0)
    with pytest.raises(InvalidBet) as caught:
        rules.validate_bet(100, 100)
    assert caught.value.code == "tie_bet_out_of_range"


def test_rules_of_a_mapping_are_built_once_per_content() -> None:
    data = {**TableRules().to_dict(), "max_ante": 300_000}
    first = TableRules.of(data)
    assert first == TableRules.from_dict(data)
    assert TableRules.of(dict(data)) is first  # the same content: the same instance
    changed = TableRules.of({**data, "max_ante": 200_000})
    assert changed.max_ante == 200_000 and TableRules.of(data).max_ante == 300_000


def test_rules_of_tell_values_by_type_and_refuse_as_from_dict() -> None:
    # 1 == True and 1 == 1.0 in Python: a cache keyed by values alone would serve one's
    # rules for the other instead of checking it.
    assert TableRules.of({"surrender_allowed": True}).surrender_allowed is True
    with pytest.raises(InvalidRules):
        TableRules.of({"decks": 2.5})
    with pytest.raises(InvalidRules):
        TableRules.of({"decks": 2.5})  # a refusal is not remembered as rules
    ladder = {"war_ties": "repeat", "max_war_ties": 3, "tie_ladder": [10, 20, 30]}
    assert TableRules.of(ladder).tie_ladder == (10, 20, 30)
    with pytest.raises(InvalidRules) as refused:
        TableRules.of({"nonsense": 1})
    assert refused.value.rule == "nonsense"
