"""The rules in play, position by position, as the seeds describe them."""

from __future__ import annotations

from war_positions import codes, game_with, rules_of

from casino.engine.war import EndReason, WarRules


def battle(game):  # type: ignore[no-untyped-def]
    game.advance("battle")
    assert game.log
    return game.log[-1].to_dict()


def test_higher_card_takes_both() -> None:
    game = game_with(rules_of("classic", return_order="winner-first"), ["QS 2C", "9H 3C"])
    entry = battle(game)
    assert entry["turned"] == ["QS", "9H"] and entry["winner"] == 0 and entry["won"] == 2
    assert codes(game, game.stocks[0]) == "2C QS 9H"
    assert entry["stocks"] == [3, 1]


def test_a_war_of_three_down_moves_ten_cards() -> None:
    rules = rules_of("classic", return_order="fixed")
    game = game_with(rules, ["8C 2C 3C 4C KH 5C", "8D 2D 3D 4D 4S 5D"])
    entry = battle(game)
    assert entry["wars"] == [
        {"down": [["2C", "3C", "4C"], ["2D", "3D", "4D"]], "up": ["KH", "4S"], "standing": []}
    ]
    assert entry["winner"] == 0 and entry["won"] == 10
    # Fixed return order: seat 0's cards as played, then seat 1's.
    assert codes(game, game.stocks[0]) == "5C 8C 2C 3C 4C KH 8D 2D 3D 4D 4S"
    assert game.wars == 1 and game.wars_won == [1, 0]


def test_portuguese_example_last_card_face_up_stands_for_the_war() -> None:
    # A and B play sevens; A plays one down, B has only one card: a queen, face up. A's up card
    # is a queen too; B's queen stays while A plays one down and one up, a nine: B takes all 7.
    rules = rules_of("classic-1", return_order="winner-first")
    game = game_with(rules, ["7C 2C QC 3C 9C KD KH", "7D QD"])
    entry = battle(game)
    assert [w["up"] for w in entry["wars"]] == [["QC", "QD"], ["9C", None]]
    assert entry["wars"][0]["down"] == [["2C"], []]
    assert entry["wars"][1]["standing"] == [1]
    assert entry["winner"] == 1 and entry["won"] == 7
    assert codes(game, game.stocks[1]) == "7D QD 7C 2C QC 3C 9C"
    assert not game.finished


def test_last_card_face_up_both_out_with_equal_cards_is_a_draw() -> None:
    game = game_with(rules_of("classic-1"), ["7C QC", "7D QD"])
    entry = battle(game)
    assert entry["void"] == [0, 1]
    assert game.result is not None and game.result.draw
    assert game.result.reason is EndReason.VOID


def test_portuguese_example_lose_rule() -> None:
    # Sevens; each plays a card face down, but that was B's last card: A wins.
    game = game_with(rules_of("classic-1", short_stack="lose"), ["7C 2C QC 3C", "7D 2D"])
    entry = battle(game)
    assert entry["eliminated"] == [1] and entry["winner"] == 0
    assert game.result is not None and game.result.winners == (0,)
    assert len(game.stocks[0]) == 6


def test_lose_rule_neither_can_finish() -> None:
    rules = rules_of("classic", short_stack="lose")
    fewer = game_with(rules, ["7C 2C 3C", "7D 2D"])  # B runs out first
    battle(fewer)
    assert fewer.result is not None and fewer.result.winners == (0,)
    same = game_with(rules, ["7C 2C", "7D 2D"])  # both at the same moment: a draw
    battle(same)
    assert same.result is not None and same.result.draw


def test_italian_all_but_the_last_face_down() -> None:
    rules = rules_of("classic", short_stack="all-but-last", return_order="winner-first")
    game = game_with(rules, ["8C 2C 3C 4C KH 5C", "8D 2D 9D"])
    entry = battle(game)
    # B has two cards: one face down, the last one face up.
    assert entry["wars"][0]["down"] == [["2C", "3C", "4C"], ["2D"]]
    assert entry["wars"][0]["up"] == ["KH", "9D"]
    assert entry["winner"] == 0
    assert game.result is not None and game.result.winners == (0,)


def test_italian_no_card_at_all_loses_and_both_out_is_a_draw_with_cards_back() -> None:
    rules = rules_of("classic", short_stack="all-but-last")
    lone = game_with(rules, ["8C 2C", "8D"])
    battle(lone)
    assert lone.result is not None and lone.result.winners == (0,)
    both = game_with(rules, ["8C 2C QC", "8D 2D QD"])
    battle(both)
    assert both.result is not None and both.result.draw
    assert sorted(codes(both, both.stocks[0]).split()) == ["2C", "8C", "QC"]  # own cards back


def test_greek_repeated_tie_settled_one_face_up_card_at_a_time() -> None:
    rules = rules_of("three-wars", return_order="winner-first")
    game = game_with(rules, ["8C 2C 3C 4C KH 5C AC", "8D 2D 3D 4D KD 6D 2S"])
    entry = battle(game)
    assert [w["down"] for w in entry["wars"]] == [
        [["2C", "3C", "4C"], ["2D", "3D", "4D"]],
        [[], []],
    ]
    assert [w["up"] for w in entry["wars"]] == [["KH", "KD"], ["5C", "6D"]]
    assert entry["winner"] == 1 and entry["won"] == 12


def test_three_wars_ending() -> None:
    rules = rules_of("three-wars")
    stock0 = "8C 2C 3C 4C KH " * 3
    stock1 = "8D 2D 3D 4D 2H " * 3
    game = game_with(rules, [stock0 + "5C", stock1 + "5D"])
    # Cards repeat in this made-up position; only the count of wars matters here.
    for _ in range(3):
        game.advance("battle")
    assert game.wars_won == [3, 0]
    assert game.result is not None and game.result.winners == (0,)
    assert game.result.reason is EndReason.THREE_WARS


def test_battle_limit_larger_stock_wins_and_equal_is_a_draw() -> None:
    rules = rules_of("classic", battle_limit=50)
    game = game_with(rules, ["KC QC " * 30, "2D 3D " * 30])
    game.advance("end")
    assert game.battles == 50 and game.result is not None
    assert game.result.reason is EndReason.BATTLE_LIMIT and game.result.winners == (0,)
    level = game_with(rules, ["KC 2C " * 30, "2D KD " * 30])
    level.advance("end")
    assert level.result is not None and level.result.draw and level.battles == 50


def test_multiplayer_every_player_joins_the_war() -> None:
    rules = rules_of("multiplayer", return_order="fixed")
    game = game_with(rules, ["9C 2C AC 3C", "9D 2D 5D 3D", "5H 2H KH 3H"])
    entry = battle(game)
    assert entry["wars"][0]["down"] == [["2C"], ["2D"], ["2H"]]
    assert entry["wars"][0]["up"] == ["AC", "5D", "KH"]
    assert entry["winner"] == 0 and entry["won"] == 9


def test_multiplayer_war_of_the_tied_only() -> None:
    rules = rules_of("multiplayer", war_joins="tied", return_order="fixed")
    game = game_with(rules, ["9C 2C 5C 3C", "9D 2D AD 3D", "5H 2H KH 3H"])
    entry = battle(game)
    assert entry["wars"][0]["down"] == [["2C"], ["2D"], None]
    assert entry["wars"][0]["up"] == ["5C", "AD", None]
    assert entry["winner"] == 1 and entry["won"] == 7
    assert len(game.stocks[2]) == 3


def test_multiplayer_players_drop_out_and_the_last_holder_wins() -> None:
    rules = rules_of("multiplayer")
    game = game_with(rules, ["AC AD", "2C", "3C"])
    game.advance("battle")
    assert game.cards_held(1) == 0 and game.cards_held(2) == 0
    assert game.result is not None and game.result.winners == (0,) and game.result.losers == (1, 2)


def test_razboi_war_size_is_the_value_of_the_tied_rank() -> None:
    rules = rules_of("razboi", return_order="fixed")
    seven = game_with(rules, ["7C " + "2C " * 6 + "KC 4C", "7D " + "2D " * 6 + "QD 4D"])
    entry = battle(seven)
    assert [len(d) for d in entry["wars"][0]["down"]] == [6, 6]  # seven cards, last face up
    assert entry["wars"][0]["up"] == ["KC", "QD"] and entry["won"] == 16
    faces = game_with(rules, ["JC " + "2C " * 9 + "AC", "JD " + "2D " * 9 + "3D"])
    assert [len(d) for d in battle(faces)["wars"][0]["down"]] == [9, 9]  # face cards: 10
    aces = game_with(rules, ["AC " + "2C " * 10 + "KC", "AD " + "2D " * 10 + "3D"])
    assert [len(d) for d in battle(aces)["wars"][0]["down"]] == [10, 10]  # aces: 11
    one = game_with(rules_of("razboi", ace_value=1), ["AC KC 2C", "AD 3D 2D"])
    assert battle(one)["wars"][0]["down"] == [[], []]


def test_razboi_short_stock_everyone_plays_as_many_as_the_fewest() -> None:
    rules = rules_of("razboi", return_order="fixed")
    game = game_with(rules, ["9C 2C 3C 4C 5C 6C 7C 8C KC", "9D 2D QD"])
    entry = battle(game)
    assert [len(d) for d in entry["wars"][0]["down"]] == [1, 1]
    assert entry["wars"][0]["up"] == ["3C", "QD"] and entry["winner"] == 1


def test_pyanitsa_six_beats_ace_but_is_lowest_otherwise() -> None:
    rules = rules_of("pyanitsa", return_order="fixed")
    game = game_with(rules, ["6C 6D 7C", "AC KD 8C"])
    assert battle(game)["winner"] == 0  # six and ace: the six
    assert battle(game)["winner"] == 1  # six and king: the six is lowest
    three = game_with(rules_of("pyanitsa", seats=3), ["6C 7C", "AD 8D", "KH 9H"])
    assert battle(three)["winner"] == 0
    full = game_with(rules_of("pyanitsa", pack="standard-52"), ["2C 3C", "AD 4D"])
    assert battle(full)["winner"] == 0  # with 52 cards it is the two that beats the ace


def test_pyanitsa_tie_methods() -> None:
    face_up = game_with(rules_of("pyanitsa"), ["9C KC 7C", "9D 8D 7D"])
    entry = battle(face_up)
    assert entry["wars"][0]["down"] == [[], []] and entry["wars"][0]["up"] == ["KC", "8D"]
    down_up = game_with(rules_of("pyanitsa", war_down=1), ["9C 6C KC 7C", "9D 6D 8D 7D"])
    entry = battle(down_up)
    assert entry["wars"][0]["down"] == [["6C"], ["6D"]]


def test_pyanitsa_endings() -> None:
    holder = game_with(rules_of("pyanitsa"), ["AC", "KC"])
    holder.advance("end")
    assert holder.result is not None
    assert holder.result.winners == (1,) and holder.result.reason is EndReason.HOLDER_LOSES
    rules = rules_of("pyanitsa", ending="first-out-loses", seats=3)
    first_out = game_with(rules, ["AC 7C", "KC 8D", "QC 9D"])
    first_out.advance("end")
    assert first_out.result is not None
    assert first_out.result.reason is EndReason.FIRST_OUT_LOSES
    # Seat 1 ran out first (after battle 2): it is the drunkard, the others win.
    assert first_out.battles == 2 and first_out.result.winners == (0, 2)
    assert first_out.result.losers == (1,)


def test_tod_und_leben_tricks_set_aside_and_equal_last_cards_split() -> None:
    rules = rules_of("tod-und-leben")
    game = game_with(rules, ["AC 8C QC 9C", "KD 8D 7D 9D"])
    game.advance("end")
    log = [entry.to_dict() for entry in game.log or []]
    assert [e["winner"] for e in log] == [0, 0, None]
    assert log[1]["wars"][0] == {"down": [[], []], "up": ["QC", "7D"], "standing": []}
    assert log[2]["void"] == [0, 1]  # last cards equal: each takes one
    assert [len(a) for a in game.aside] == [7, 1]
    assert game.result is not None and game.result.winners == (0,)
    assert game.result.reason is EndReason.ONE_PASS


def test_tod_und_leben_match_of_rounds() -> None:
    game = game_with(rules_of("tod-und-leben", rounds=3), ["AC", "KC"])
    game.advance("end")
    assert game.round_no == 2
    assert sum(game.round_wins) <= 3 and game.round_wins[0] >= 1  # round 1 was seat 0's
    assert game.result is not None and game.result.reason is EndReason.ONE_PASS
    best = max(game.round_wins)
    if game.round_wins.count(best) == 1:
        assert game.result.winners == (game.round_wins.index(best),)
    else:
        assert game.result.draw


def test_safety_cap_stops_any_game() -> None:
    game = game_with(rules_of("classic"), ["KC 2C " * 10, "QD 3D " * 10])
    game.battle_cap = 7
    game.advance("end")
    assert game.battles == 7 and game.result is not None
    assert game.result.reason is EndReason.BATTLE_CAP and game.result.draw


def test_rules_dataclass_is_frozen() -> None:
    rules = WarRules()
    try:
        rules.seats = 3  # type: ignore[misc]
    except AttributeError:
        pass
    else:  # pragma: no cover
        raise AssertionError("WarRules must be immutable")
