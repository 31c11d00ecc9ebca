"""Choices: Steal War (steal or play, which card on top) and the hand of three."""

from __future__ import annotations

import json

import pytest
from war_positions import codes, computers, game_with, humans, rules_of

from casino.engine.war import DecisionKind, IllegalMove, new_game, simulate

STEAL = {"action": "steal"}
PLAY = {"action": "play"}


def steal_rules(**options: object):  # type: ignore[no-untyped-def]
    return rules_of("steal", return_order="fixed", **options)


def test_steal_takes_the_pile_in_order_with_the_card_on_top_then_plays_the_next_card() -> None:
    game = game_with(steal_rules(), ["9C KC", "4D 5D"], piles=["", "2S 3S 9S"], seats=humans(2))
    game.advance("decision")
    [decision] = game.pending
    assert decision.seat == 0 and decision.kind is DecisionKind.STEAL_OR_PLAY
    assert decision.legal == (PLAY, STEAL)
    assert decision.context["card"] == "9C"
    assert decision.context["targets"] == [{"seat": 1, "top": "9S", "cards": 3}]
    game.apply(0, STEAL)
    assert codes(game, game.piles[0]) == "2S 3S 9S 9C" and game.piles[1] == []
    # KC was played after the steal and beat 4D; now seat 0 chooses its pile's top card.
    [top] = game.pending
    assert top.kind is DecisionKind.PILE_TOP
    assert {m["card"] for m in top.legal} == {"KC", "4D"}
    game.apply(0, {"action": "top", "card": "4d"})  # card codes are case-insensitive
    assert codes(game, game.piles[0]) == "2S 3S 9S 9C KC 4D"
    entry = (game.log or [])[-1].to_dict()
    assert entry["steals"] == [{"seat": 0, "card": "9C", "from": [1], "cards": 4, "war_round": 0}]
    assert entry["turned"] == ["KC", "4D"] and entry["top"] == "4D"


def test_playing_a_card_of_your_own_piles_rank_protects_the_pile() -> None:
    stocks = ["9C 2C 3C 4C KC 6C", "9D 2D 3D 4D 5D 6D"]
    game = game_with(steal_rules(), stocks, piles=["2H 9H", ""], seats=humans(2))
    game.advance("decision")
    [decision] = game.pending  # seat 0 has nothing to steal and plays its nine
    assert decision.seat == 1 and decision.context["targets"][0]["top"] == "9H"
    game.apply(1, STEAL)
    # The steal failed: seat 1's nine was played, the nines tied, and seat 0 won the war.
    table = game.view(0)["table"]
    assert table["turned"] == ["9C", "9D"] and table["wars"][0]["up"] == ["KC", "5D"]
    assert "steals" in table and table["steals"] == []
    assert codes(game, game.piles[0]) == "2H 9H" and game.piles[1] == []
    [top] = game.pending
    assert top.seat == 0 and top.kind is DecisionKind.PILE_TOP and len(top.legal) == 10


def test_without_the_timing_fix_the_same_steal_succeeds() -> None:
    stocks = ["9C 2C 3C 4C KC 6C", "9D 2D 3D 4D 5D 6D"]
    rules = steal_rules(protect_own_pile=False)
    game = game_with(rules, stocks, piles=["2H 9H", ""], seats=humans(2))
    game.advance("decision")
    game.apply(1, STEAL)
    assert codes(game, game.piles[1]) == "2H 9H 9D"
    table = game.view(0)["table"]
    assert table["turned"] == ["9C", "2D"]  # seat 1 played its next card, 2D, and lost
    assert [d.kind for d in game.pending] == [DecisionKind.PILE_TOP]


def test_both_steal_at_once_the_piles_are_exchanged() -> None:
    stocks = ["9C KC", "5D QD"]
    game = game_with(steal_rules(), stocks, piles=["2H 5H", "3S 9S"], seats=humans(2))
    game.advance("decision")
    assert [d.seat for d in game.pending] == [0, 1]
    game.apply(1, STEAL)
    assert len(game.pending) == 1  # nothing happens until both have chosen
    game.apply(0, STEAL)
    assert codes(game, game.piles[1]) == "2H 5H 5D"
    assert codes(game, game.piles[0]).startswith("3S 9S 9C")


def test_running_out_during_a_war_loses_at_once() -> None:
    game = game_with(
        steal_rules(), ["7C 2C", "7D 2D 3D 4D 5D"], seats=computers("greedy", "greedy")
    )
    game.advance("battle")
    assert game.result is not None and game.result.winners == (1,)


def test_an_empty_stock_is_refilled_from_the_capture_pile() -> None:
    # Whatever order the turned pile takes, its first card beats or ties seat 1's last 2S.
    game = game_with(
        steal_rules(), ["KC", "2D 2S"], piles=["QH KH AH", ""], seats=computers("greedy", "greedy")
    )
    game.advance("battle")
    assert len(game.stocks[0]) == 0 and len(game.piles[0]) == 5
    game.advance("battle")
    assert game.battles == 2 and game.cards_held(0) == 6
    assert game.result is not None and game.result.winners == (0,)


def test_three_players_two_thieves_one_pile_the_first_to_the_left_gets_it() -> None:
    rules = steal_rules(seats=3)
    stocks = ["2C 3C", "9D KD", "9H QH"]
    game = game_with(rules, stocks, piles=["4S 9S", "", ""], seats=humans(3))
    game.advance("decision")
    assert [d.seat for d in game.pending] == [1, 2]
    game.apply(2, STEAL)
    game.apply(1, STEAL)
    assert codes(game, game.piles[1]) == "4S 9S 9D"
    assert game.piles[0] == [] and game.piles[2] == []


def test_hand_of_three_war_the_lower_fourth_card_takes_the_pair() -> None:
    rules = rules_of("hand-of-three", return_order="fixed")
    stocks = ["3C 4C 6C 7C 8C 9C", "3D 4D 6D 7D 8D 9D"]
    game = game_with(rules, stocks, hands=["KC 5C 2C", "KD 5D 2D"], seats=humans(2))
    game.advance("decision")
    assert [d.kind for d in game.pending] == [DecisionKind.HAND_CARD] * 2
    assert game.pending[0].legal == tuple({"action": "play", "card": c} for c in ("KC", "5C", "2C"))
    game.apply(0, {"action": "play", "card": "KC"})
    game.apply(1, {"action": "play", "card": "KD"})
    # A war: three down from the stock each, then the fourth card from the refilled hand.
    assert [d.context["war"] for d in game.pending] == [True, True]
    assert codes(game, game.hands[0]) == "5C 2C 3C"
    game.apply(0, {"action": "play", "card": "5C"})
    game.apply(1, {"action": "play", "card": "2D"})
    entry = (game.log or [])[-1].to_dict()
    assert entry["winner"] == 0 and entry["won"] == 8 and entry["pair_to"] == 1
    assert codes(game, list(game.stocks[1])[-2:]) == "KC KD"


def test_illegal_moves_are_refused_with_the_legal_ones() -> None:
    game = new_game("hand-of-three", seed="illegal")
    game.advance("decision")
    [decision] = game.pending
    with pytest.raises(IllegalMove) as caught:
        game.apply(0, {"action": "play", "card": "XX"})
    assert caught.value.code == "illegal_action"
    assert caught.value.legal == [dict(m) for m in decision.legal]
    assert "legal moves: play card=" in caught.value.detail
    with pytest.raises(IllegalMove, match="no decision is pending for seat 1"):
        game.apply(1, decision.legal[0])
    with pytest.raises(IllegalMove, match="a move is an object"):
        game.apply(0, "play")
    game.apply(0, decision.legal[0])  # still fine afterwards


def test_autoplay_to_the_end_plays_for_humans_and_records_their_moves() -> None:
    game = new_game("steal", seed="auto")
    game.advance("end")
    assert game.result is not None
    human_moves = [m for m in game.moves if m["seat"] == 0]
    assert all(m["auto"] for m in human_moves)
    with pytest.raises(IllegalMove, match="the game is over"):
        game.apply(0, PLAY)


def test_a_game_is_its_seed_and_moves() -> None:
    def play(seed: str) -> str:
        game = new_game(
            "hand-of-three",
            seed=seed,
            seats=[{"type": "human"}, {"type": "computer", "strategy": "random"}],
        )
        while not game.finished:
            game.advance("decision")
            if game.pending:
                decision = game.pending[0]
                game.apply(0, decision.legal[game.battles % len(decision.legal)])
        return json.dumps([entry.to_dict() for entry in game.log or []])

    assert play("moves") == play("moves")


def test_greedy_beats_random_where_there_are_choices() -> None:
    for variant, share in (("hand-of-three", 0.9), ("steal", 0.6)):
        games = 120
        ahead = simulate(variant, games=games, seed="g", strategies=["greedy", "random"])
        behind = simulate(variant, games=games, seed="g", strategies=["random", "greedy"])
        wins = ahead["wins"][0] + behind["wins"][1]
        assert wins > share * 2 * games, (variant, wins)
