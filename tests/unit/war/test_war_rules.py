"""Rules as data: presets, option overrides, refused combinations, the published schema."""

from __future__ import annotations

import json

import pytest

from casino.engine.errors import InvalidRules
from casino.engine.war import PRESETS, WarRules, build_rules, parse_option_value, variant_catalogue
from casino.engine.war.rules import Ending, ReturnOrder, ShortStack, WonCards, war_value

ALL_PRESETS = [
    "classic",
    "classic-1",
    "multiplayer",
    "jokers",
    "razboi",
    "steal",
    "pyanitsa",
    "tod-und-leben",
    "hand-of-three",
    "three-wars",
]


def test_the_ten_presets_exist_and_build() -> None:
    assert list(PRESETS) == ALL_PRESETS
    for name in ALL_PRESETS:
        assert isinstance(build_rules(name), WarRules)


def test_preset_defaults_follow_the_rule_texts() -> None:
    classic = build_rules("classic")
    assert (classic.seats, classic.war_down, classic.pack) == (2, 3, "standard-52")
    assert classic.short_stack is ShortStack.LAST_UP
    assert classic.return_order is ReturnOrder.SHUFFLED
    assert build_rules("classic-1").war_down == 1
    assert build_rules("multiplayer").seats == 3
    assert build_rules("jokers").pack_spec.jokers == 2
    razboi = build_rules("razboi")
    assert (razboi.war_down, razboi.ace_value, razboi.short_stack) == ("rank", 11, "match-fewest")
    steal = build_rules("steal")
    assert steal.stealing and steal.won_cards is WonCards.PILE and steal.pack == "jokers-54"
    pyanitsa = build_rules("pyanitsa")
    assert pyanitsa.pack == "russian-36" and pyanitsa.low_beats_ace
    assert pyanitsa.ending is Ending.HOLDER_LOSES
    tod = build_rules("tod-und-leben")
    assert (tod.pack, tod.war_down, tod.ending) == ("piquet-32", 0, Ending.ONE_PASS)
    assert build_rules("hand-of-three").hand_size == 3
    assert build_rules("three-wars").ending is Ending.THREE_WARS


def test_options_override_within_allowed_values() -> None:
    rules = build_rules("classic", {"war_down": 1, "return_order": "fixed", "battle_limit": 250})
    assert (rules.war_down, rules.return_order, rules.battle_limit) == (1, "fixed", 250)
    assert build_rules("multiplayer", {"seats": 4, "war_joins": "tied"}).seats == 4
    assert build_rules("pyanitsa", {"ending": "first-out-loses", "pack": "standard-52"})
    assert build_rules("tod-und-leben", {"rounds": 3}).rounds == 3
    # Restating a fixed option at its value is harmless.
    assert build_rules("steal", {"stealing": True}).stealing


@pytest.mark.parametrize(
    ("variant", "options", "message"),
    [
        ("nope", {}, "unknown variant 'nope'"),
        ("classic", {"colour": "red"}, "unknown option 'colour'"),
        ("classic", {"war_down": 7}, "must be one of 0, 1, 2, 3"),
        ("classic", {"war_down": True}, "must be one of"),
        ("classic", {"battle_limit": 300}, "must be one of null, 50, 100, 250, 500"),
        ("classic", {"seats": 3}, "option 'seats' is fixed at 2 in variant 'classic'"),
        ("steal", {"stealing": False}, "fixed at True"),
        ("tod-und-leben", {"pack": "standard-52"}, "fixed at 'piquet-32'"),
        ("pyanitsa", {"pack": "jokers-54"}, "must be one of 'russian-36', 'standard-52'"),
        ("multiplayer", {"seats": 5}, "must be one of 3, 4"),
    ],
)
def test_refused_options_say_why(variant: str, options: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidRules) as caught:
        build_rules(variant, options)
    assert message in caught.value.detail
    assert caught.value.code == "invalid_rules"


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"seats": 5}, "seats must be 2 to 4"),
        ({"joker_deal": "split"}, "needs a pack with jokers"),
        ({"pack": "jokers-54", "joker_deal": "split", "seats": 3}, "seats must be 2"),
        ({"pack": "jokers-54", "war_down": "rank"}, "no card count for a joker"),
        ({"pack": "jokers-54", "low_beats_ace": True}, "undefined with jokers"),
        ({"stealing": True}, "won_cards must be 'pile'"),
        ({"stealing": True, "won_cards": "pile"}, "short_stack must be 'lose'"),
        ({"protect_own_pile": True}, "only means something with stealing"),
        ({"hand_size": 3, "seats": 3}, "two-player game"),
        ({"hand_size": 3, "short_stack": "last-up"}, "'lose' or 'all-but-last'"),
        ({"hand_size": 3, "war_down": "rank", "short_stack": "lose"}, "cannot be 'rank'"),
        ({"ending": "one-pass"}, "go together"),
        ({"won_cards": "aside"}, "go together"),
        ({"ending": "one-pass", "won_cards": "aside", "battle_limit": 50}, "must be null"),
        ({"rounds": 3}, "rounds only apply"),
        ({"short_stack": "sometimes"}, "short_stack must be one of"),
        ({"ace_value": 14}, "ace_value must be 1 or 11"),
    ],
)
def test_impossible_combinations_are_refused(settings: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidRules) as caught:
        WarRules(**settings)  # type: ignore[arg-type]
    assert message in caught.value.detail


def test_a_clash_through_a_preset_names_the_variant_and_the_clash() -> None:
    assert build_rules("jokers", {"seats": 3}).seats == 3
    assert build_rules("jokers", {"joker_deal": "split"}).cards_per_seat == 27
    with pytest.raises(InvalidRules) as caught:
        build_rules("jokers", {"seats": 3, "joker_deal": "split"})
    assert caught.value.detail == (
        "variant 'jokers' with these options cannot be played: joker_deal 'split' buries one "
        "joker in each of two stocks: seats must be 2"
    )


def test_rules_round_trip_through_json() -> None:
    for name in ALL_PRESETS:
        rules = build_rules(name)
        again = WarRules.from_dict(json.loads(json.dumps(rules.to_dict())))
        assert again == rules
    with pytest.raises(InvalidRules, match="unknown rule setting"):
        WarRules.from_dict({"speed": 3})


def test_catalogue_publishes_every_preset_with_its_option_schema() -> None:
    catalogue = json.loads(json.dumps(variant_catalogue()))
    assert [item["name"] for item in catalogue] == ALL_PRESETS
    for item in catalogue:
        assert item["title"] and item["description"]
        for name, spec in item["options"].items():
            assert spec["default"] in spec["allowed"], (item["name"], name)
            assert spec["description"]
            # Every allowed value really builds (alone).
            for value in spec["allowed"]:
                try:
                    build_rules(item["name"], {name: value})
                except InvalidRules as exc:
                    # Only a clash with another default may refuse it, and it must say so.
                    assert "cannot be played" in exc.detail
    steal = next(item for item in catalogue if item["name"] == "steal")
    assert steal["decisions"] is True
    assert steal["options"]["protect_own_pile"] == {
        "default": True,
        "allowed": [True, False],
        "description": steal["options"]["protect_own_pile"]["description"],
    }


def test_command_line_values_are_matched_to_allowed_ones() -> None:
    assert parse_option_value("classic", "war_down", "1") == 1
    assert parse_option_value("razboi", "ace_value", "1") == 1
    assert parse_option_value("classic", "battle_limit", "null") is None
    assert parse_option_value("classic", "battle_limit", "none") is None
    assert parse_option_value("steal", "protect_own_pile", "false") is False
    with pytest.raises(InvalidRules, match="takes no option"):
        parse_option_value("tod-und-leben", "war_down", "1")
    with pytest.raises(InvalidRules, match="must be one of"):
        parse_option_value("classic", "war_down", "9")


def test_razboi_war_sizes() -> None:
    assert [war_value(r, 11) for r in range(2, 15)] == [2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 11]
    assert war_value(14, 1) == 1
