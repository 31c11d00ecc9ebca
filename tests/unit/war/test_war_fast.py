"""The simulation kernel plays exactly the games the game model plays, only faster."""

from __future__ import annotations

import itertools
import random

import pytest

from casino.engine.errors import InvalidRules
from casino.engine.war import WarGame, WarRules, build_rules
from casino.engine.war import fast as kernel

GRID = {
    "pack": ["standard-52", "jokers-54", "piquet-32", "russian-36"],
    "war_down": [0, 1, 2, 3, "rank"],
    "ace_value": [1, 11],
    "repeat_tie": ["war", "face-up"],
    "return_order": ["shuffled", "fixed", "winner-first"],
    "short_stack": ["lose", "last-up", "all-but-last", "match-fewest"],
    "ending": ["all-cards", "three-wars", "holder-loses", "first-out-loses"],
    "battle_limit": [None, 50, 250],
    "joker_deal": ["random", "split"],
}


def sampled_rules(count: int) -> list[WarRules]:
    """A seeded sample of the kernel's rule space, every value of every option included."""
    chooser = random.Random(2024)
    names = list(GRID)
    out: list[WarRules] = []
    # Each value of each option at least once, then random combinations.
    wanted = [(name, value) for name in names for value in GRID[name]]
    while len(out) < count:
        settings = {name: chooser.choice(GRID[name]) for name in names}
        if wanted:
            name, value = wanted.pop()
            settings[name] = value
        try:
            rules = WarRules(**settings)  # type: ignore[arg-type]
        except InvalidRules:
            continue
        assert kernel.supported(rules)
        out.append(rules)
    return out


def model(rules: WarRules, seed: str) -> tuple[object, ...]:
    game = WarGame(rules, seed, log=False)
    game.advance("end")
    assert game.result is not None
    return (game.result.winners, game.result.reason, game.battles, game.wars)


@pytest.mark.parametrize("rules", sampled_rules(120), ids=lambda r: f"{r.war_down}-{r.short_stack}")
def test_kernel_and_model_agree_game_by_game(rules: WarRules) -> None:
    for i in range(3):
        seed = f"agree:{i}"
        outcome = kernel.play(rules, seed)
        assert (outcome.winners, outcome.reason, outcome.battles, outcome.wars) == model(
            rules, seed
        )


def test_kernel_and_model_agree_on_presets_it_plays() -> None:
    for name in ("classic", "classic-1", "jokers", "razboi", "three-wars"):
        rules = build_rules(name)
        assert kernel.supported(rules)
        for i in range(20):
            outcome = kernel.play(rules, f"{name}:{i}")
            assert (outcome.winners, outcome.reason, outcome.battles, outcome.wars) == model(
                rules, f"{name}:{i}"
            )


def test_kernel_refuses_what_it_cannot_play() -> None:
    for name in ("multiplayer", "steal", "pyanitsa", "tod-und-leben", "hand-of-three"):
        assert not kernel.supported(build_rules(name))
    assert not kernel.supported(build_rules("classic", {"won_cards": "pile"}))


def test_every_combination_of_the_war_options_is_valid_for_the_kernel() -> None:
    combos = itertools.product(GRID["war_down"], GRID["short_stack"], GRID["return_order"])
    for war_down, short_stack, order in combos:
        rules = WarRules(war_down=war_down, short_stack=short_stack, return_order=order)
        assert kernel.supported(rules)
