"""A fixed return order can go round forever: the repeated position is caught and drawn."""

from __future__ import annotations

from war_positions import computers, game_with, rules_of

from casino.engine.war import EndReason, WarGame, build_rules
from casino.engine.war import fast as kernel

#: A deal known to cycle under classic rules with the fixed (seat order) return: the position
#: after battle 174 is the position after battle 122, and it comes round every 52 battles.
CYCLING_SEED = "cycle-12"
CYCLE_SEEN_AT = 174
CYCLE_LENGTH = 52


def positions(game: WarGame) -> list[tuple[tuple[str, ...], ...]]:
    """Play ``game`` out, recording every stock card by card after each battle."""
    seen: list[tuple[tuple[str, ...], ...]] = []

    def record(g: WarGame) -> None:
        seen.append(tuple(tuple(g.code(c) for c in stock) for stock in g.stocks))

    game.observer = record
    game.advance("end")
    return seen


def test_the_known_cycling_deal_ends_as_a_draw_by_cycle() -> None:
    game = WarGame(build_rules("classic", {"return_order": "fixed"}), CYCLING_SEED)
    game.advance("end")
    assert game.result is not None and game.result.draw
    assert game.result.reason is EndReason.CYCLE
    assert (game.battles, game.cycle_length) == (CYCLE_SEEN_AT, CYCLE_LENGTH)
    last = (game.log or [])[-1]
    assert last.cycle is not None
    assert last.to_dict()["cycle"] == {
        "since_battle": CYCLE_SEEN_AT - CYCLE_LENGTH,
        "length": CYCLE_LENGTH,
    }


def test_the_cycle_is_real_the_same_deal_without_detection_goes_round_and_round() -> None:
    # With a battle limit there is no cycle detection: the game just plays on to the limit.
    rules = build_rules("classic", {"return_order": "fixed", "battle_limit": 500})
    seen = positions(WarGame(rules, CYCLING_SEED, log=False))
    assert len(seen) == 500  # nobody ever won all the cards
    start = CYCLE_SEEN_AT - CYCLE_LENGTH - 1  # index of the position after battle 122
    for i in range(start, 500 - CYCLE_LENGTH):
        assert seen[i] == seen[i + CYCLE_LENGTH], i
    # ... and 52 is the smallest period: no position in one turn of the cycle repeats.
    assert len(set(seen[start : start + CYCLE_LENGTH])) == CYCLE_LENGTH


def test_the_simulation_kernel_sees_the_same_cycle() -> None:
    outcome = kernel.play(build_rules("classic", {"return_order": "fixed"}), CYCLING_SEED)
    assert (outcome.reason, outcome.battles) == (EndReason.CYCLE, CYCLE_SEEN_AT)


def test_a_cycle_back_to_the_starting_position_is_caught() -> None:
    # 3-2 against 2-3, seat order return: after two battles the ranks are where they began.
    rules = rules_of("classic", return_order="fixed")
    game = game_with(rules, ["3C 2D", "2C 3D"])
    # The position set up here is not the dealt one: start the detector on it.
    game._cycles.seen_at(game._position_key(), 0)  # type: ignore[union-attr]
    game.advance("end")
    assert game.result is not None and game.result.reason is EndReason.CYCLE
    assert game.battles == 2
    assert (game.log or [])[-1].to_dict()["cycle"] == {"since_battle": 0, "length": 2}


def test_shuffled_returns_and_choices_by_chance_are_never_called_cycles() -> None:
    assert not build_rules("classic").can_cycle
    assert not build_rules("classic", {"return_order": "fixed", "battle_limit": 500}).can_cycle
    assert build_rules("steal", {"return_order": "fixed"}).can_cycle
    # Capture piles are shuffled when turned over (rule revision 2): no loop is certain.
    assert WarGame(build_rules("steal", {"return_order": "fixed"}), "x")._cycles is None
    legacy = WarGame(build_rules("steal", {"return_order": "fixed"}), "x", revision=1)
    assert legacy._cycles is not None
    pooled = build_rules("classic", {"return_order": "fixed", "won_cards": "pile"})
    assert WarGame(pooled, "x")._cycles is None
    assert WarGame(build_rules("classic", {"return_order": "fixed"}), "x")._cycles is not None
    random_seats = build_rules("hand-of-three", {"return_order": "fixed"})
    game = WarGame(random_seats, "x", computers("random", "greedy"))
    assert game._cycles is None  # a random choice can leave a repeated position
