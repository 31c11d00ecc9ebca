"""Named variants: each is a set of ``WarRules`` defaults plus the options a player may change.

``build_rules(variant, options)`` is the one way in: it refuses unknown variants and options,
options a variant fixes, values outside what the variant allows, and (through ``WarRules``)
combinations that cannot be played. ``variant_catalogue()`` is the published schema.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from casino.engine.errors import InvalidRules
from casino.engine.war.rules import (
    BATTLE_LIMITS,
    BY_RANK,
    WAR_DOWN_COUNTS,
    WarRules,
)

OptionValue = int | str | bool | None

#: Every option a variant can expose, with its meaning; a preset narrows the allowed values.
OPTION_HELP: dict[str, str] = {
    "seats": "number of players (2 to 4); stocks are dealt equal, odd cards left out",
    "pack": "standard-52, jokers-54 (two jokers above the aces), piquet-32 (A-7), russian-36 (A-6)",
    "joker_deal": "random: jokers dealt like any card; split: one joker buried in each stock",
    "war_down": "face-down cards each player adds in a war before the face-up one; 'rank': as "
    "many cards as the tied rank is worth, the last face up (Război)",
    "ace_value": "Război: cards in a war started by aces (11, or 1)",
    "repeat_tie": "war: a tie in a war starts another war; face-up: further ties are settled by "
    "one more face-up card at a time",
    "return_order": "shuffled: won cards go under the stock in random order; fixed: in seat "
    "order, each player's cards as played, whoever won (games can cycle: a repeated position "
    "is detected and drawn); winner-first: the winner's cards first, then the others'",
    "short_stack": "player short of cards for a war: lose; last-up (last card face up, stands "
    "for the whole war); all-but-last (all but the last face down, no card at all loses); "
    "match-fewest (all play as many as the shortest stock)",
    "war_joins": "three or four players: all (everyone fights the war) or tied (only the tied)",
    "won_cards": "stock: under the stock; pile: on a face-up capture pile, shuffled into a new "
    "stock when the stock runs out",
    "protect_own_pile": "Steal War timing fix: playing a card of your own pile's top rank "
    "protects your pile for that battle",
    "ending": "all-cards; three-wars (first to win three wars); holder-loses / first-out-loses "
    "(P'yanitsa)",
    "battle_limit": "null (play to the end) or 50, 100, 250, 500 battles; a war counts as one; "
    "at the limit the most cards wins, equal is a draw",
    "rounds": "Tod und Leben: rounds in the match (most rounds won wins)",
}

_WAR_DOWN: tuple[OptionValue, ...] = WAR_DOWN_COUNTS
_LIMITS: tuple[OptionValue, ...] = (None, *BATTLE_LIMITS)
_ORDERS = ("shuffled", "fixed", "winner-first")
_SHORT = ("lose", "last-up", "all-but-last", "match-fewest")
_CLASSIC_CHOICES: dict[str, tuple[OptionValue, ...]] = {
    "war_down": _WAR_DOWN,
    "repeat_tie": ("war", "face-up"),
    "return_order": _ORDERS,
    "short_stack": _SHORT,
    "won_cards": ("stock", "pile"),
    "ending": ("all-cards", "three-wars"),
    "battle_limit": _LIMITS,
}


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    description: str
    defaults: Mapping[str, Any]
    choices: Mapping[str, tuple[OptionValue, ...]] = field(default_factory=dict)

    @property
    def rules(self) -> WarRules:
        return WarRules(**self.defaults)

    def schema(self) -> dict[str, Any]:
        base = self.rules
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "decisions": base.has_decisions,
            "rules": base.to_dict(),
            "options": {
                name: {
                    "default": base.to_dict()[name],
                    "allowed": list(allowed),
                    "description": OPTION_HELP[name],
                }
                for name, allowed in self.choices.items()
            },
        }


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset(
            "classic",
            "War",
            "Two players, 26 cards each. Higher card takes both; a tie is a war of three cards "
            "face down and one face up. A player short of cards turns the last one up.",
            {},
            {**_CLASSIC_CHOICES},
        ),
        Preset(
            "classic-1",
            "War, one card down",
            "Classic War with the basic English rule: one card face down in a war.",
            {"war_down": 1},
            {**_CLASSIC_CHOICES},
        ),
        Preset(
            "multiplayer",
            "War for three or four",
            "17 cards each for three (one left out), 13 for four. The single highest card takes "
            "all; a tie for highest starts a war in which every player takes part, one card "
            "down and one up. A player out of cards drops out; the last holding cards wins.",
            {"seats": 3, "war_down": 1},
            {
                "seats": (3, 4),
                "war_joins": ("all", "tied"),
                **_CLASSIC_CHOICES,
            },
        ),
        Preset(
            "jokers",
            "War with jokers",
            "Classic War with two jokers above the aces; optionally one joker buried in each "
            "stock so no player gets both.",
            {"pack": "jokers-54"},
            {"seats": (2, 3, 4), "joker_deal": ("random", "split"), **_CLASSIC_CHOICES},
        ),
        Preset(
            "razboi",
            "Război",
            "Romanian War: a war takes as many cards as the tied rank is worth (two sevens: "
            "seven cards each, the last face up; face cards 10, aces 11 unless chosen 1). A "
            "player short of cards makes everyone play as many as it has.",
            {"war_down": BY_RANK, "short_stack": "match-fewest"},
            {
                "seats": (2, 3, 4),
                "ace_value": (11, 1),
                "short_stack": _SHORT,
                "war_joins": ("all", "tied"),
                "return_order": _ORDERS,
                "ending": ("all-cards", "three-wars"),
                "battle_limit": _LIMITS,
            },
        ),
        Preset(
            "steal",
            "Steal War",
            "Gary Philippy and Hayes Ruberti's War with two jokers and face-up capture piles. "
            "Look at your next card: if it matches the top of another player's pile you may "
            "steal the pile with it instead of playing it. The winner of a battle chooses which "
            "won card lies on top of its pile. Out of cards in a war: you lose.",
            {
                "pack": "jokers-54",
                "won_cards": "pile",
                "stealing": True,
                "protect_own_pile": True,
                "short_stack": "lose",
            },
            {
                "seats": (2, 3, 4),
                "pack": ("jokers-54", "standard-52"),
                "war_down": _WAR_DOWN,
                "protect_own_pile": (True, False),
                "return_order": _ORDERS,
                "ending": ("all-cards", "three-wars"),
                "battle_limit": _LIMITS,
            },
        ),
        Preset(
            "pyanitsa",
            "P'yanitsa (Drunkard)",
            "Russian War with 36 cards: ace high, six low, but a six beats an ace. Ties: one "
            "more card face up (or one down, one up). The player left holding all the cards is "
            "the drunkard and loses (or: the first out of cards loses).",
            {
                "pack": "russian-36",
                "low_beats_ace": True,
                "war_down": 0,
                "ending": "holder-loses",
            },
            {
                "seats": (2, 3, 4),
                "pack": ("russian-36", "standard-52"),
                "war_down": (0, 1),
                "ending": ("holder-loses", "first-out-loses"),
                "short_stack": _SHORT,
                "war_joins": ("all", "tied"),
                "return_order": _ORDERS,
                "battle_limit": _LIMITS,
            },
        ),
        Preset(
            "tod-und-leben",
            "Tod und Leben (Life and Death)",
            "32 cards, 16 each, played through once. Higher card takes the trick, set aside; "
            "equal cards: each turns the next card and the trick grows. Equal last cards: each "
            "takes its own. Most cards won wins the round.",
            {
                "pack": "piquet-32",
                "war_down": 0,
                "won_cards": "aside",
                "ending": "one-pass",
                "short_stack": "all-but-last",
            },
            {"rounds": (1, 3, 5)},
        ),
        Preset(
            "hand-of-three",
            "War with a hand of three",
            "Erik Arneson's variant: hold three cards and choose which to play, then refill "
            "from your stock. In a war each puts three cards down and chooses the fourth from "
            "the hand; the higher fourth card takes the six down and both fourth cards, the "
            "lower takes the two cards that caused the war.",
            {"hand_size": 3, "short_stack": "all-but-last"},
            {
                "war_down": _WAR_DOWN,
                "repeat_tie": ("war", "face-up"),
                "return_order": _ORDERS,
                "short_stack": ("all-but-last", "lose"),
                "ending": ("all-cards", "three-wars"),
                "battle_limit": _LIMITS,
            },
        ),
        Preset(
            "three-wars",
            "War to three wars",
            "Greek rules: three cards down in a war, further ties settled one face-up card at "
            "a time; the first player to win three wars wins.",
            {"ending": "three-wars", "repeat_tie": "face-up"},
            {
                "war_down": _WAR_DOWN,
                "repeat_tie": ("face-up", "war"),
                "return_order": _ORDERS,
                "short_stack": _SHORT,
                "battle_limit": _LIMITS,
            },
        ),
    )
}


def preset(variant: str) -> Preset:
    try:
        return PRESETS[variant]
    except (KeyError, TypeError):
        known = ", ".join(PRESETS)
        raise InvalidRules(f"unknown variant {variant!r}; choose one of {known}") from None


def build_rules(variant: str, options: Mapping[str, Any] | None = None) -> WarRules:
    """The rules of ``variant`` with ``options`` applied, or ``InvalidRules`` saying why not."""
    p = preset(variant)
    settings = dict(p.defaults)
    for name, value in (options or {}).items():
        if name not in OPTION_HELP and name not in WarRules.__dataclass_fields__:
            raise InvalidRules(f"unknown option {name!r}")
        allowed = p.choices.get(name)
        if allowed is None:
            fixed = p.rules.to_dict().get(name)
            if value == fixed and type(value) is type(fixed):
                continue
            choices = ", ".join(p.choices) or "none"
            raise InvalidRules(
                f"option {name!r} is fixed at {fixed!r} in variant {variant!r} "
                f"(options it takes: {choices})"
            )
        if not any(value == a and type(value) is type(a) for a in allowed):
            shown = ", ".join("null" if a is None else repr(a) for a in allowed)
            raise InvalidRules(
                f"option {name!r} of variant {variant!r} must be one of {shown}, not {value!r}"
            )
        settings[name] = value
    try:
        return WarRules(**settings)
    except InvalidRules as exc:
        raise InvalidRules(
            f"variant {variant!r} with these options cannot be played: {exc.detail}"
        ) from None


def variant_catalogue() -> list[dict[str, Any]]:
    """Every preset with its description, base rules and option schema (for the API)."""
    return [p.schema() for p in PRESETS.values()]


def parse_option_value(variant: str, name: str, text: str) -> OptionValue:
    """An option value typed on a command line, matched against what the variant allows."""
    allowed = preset(variant).choices.get(name)
    if allowed is None:
        raise InvalidRules(f"variant {variant!r} takes no option {name!r}")
    wanted = text.strip().lower()
    for value in allowed:
        spelled = "null" if value is None else str(value).lower()
        if wanted == spelled or (value is None and wanted == "none"):
            return value
    shown = ", ".join("null" if a is None else str(a).lower() for a in allowed)
    raise InvalidRules(
        f"option {name!r} of variant {variant!r} must be one of {shown}, not {text!r}"
    )
