"""Every preset plays 1,000 seeded games to an ending, and no card is ever created or lost.

These run on the game model itself (not the simulation kernel), all seats greedy computers,
with the pack checked card by card after every battle.
"""

from __future__ import annotations

from collections import Counter

import pytest

from casino.engine.war import PRESETS, EndReason, WarGame, build_rules

GAMES = 1000


class Conservation:
    """Observer: after each battle every card of the pack is in exactly one place."""

    def __init__(self, size: int) -> None:
        self.full = frozenset(range(size))
        self.size = size
        self.battles = 0

    def __call__(self, game: WarGame) -> None:
        cards = game.all_cards()
        assert len(cards) == self.size and set(cards) == self.full, game.battles
        self.battles += 1


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(PRESETS))
def test_preset_plays_a_thousand_games_conserving_cards(variant: str) -> None:
    rules = build_rules(variant)
    check = Conservation(rules.pack_spec.size)
    endings: Counter[EndReason] = Counter()
    battles = 0
    for i in range(GAMES):
        game = WarGame(rules, f"{variant}:{i}", log=False, observer=check)
        game.advance("end")
        assert game.result is not None and game.pending == []
        endings[game.result.reason] += 1
        battles += game.battles
    assert check.battles == battles
    assert sum(endings.values()) == GAMES
    assert endings[EndReason.BATTLE_CAP] == 0
    assert endings[EndReason.CYCLE] == 0  # every preset returns won cards in random order


def test_conservation_observer_catches_a_lost_card() -> None:
    rules = build_rules("classic")
    game = WarGame(rules, "lost", log=False, observer=Conservation(rules.pack_spec.size))
    game.advance("battle")
    game.stocks[0].pop()
    with pytest.raises(AssertionError):
        game.advance("battle")
