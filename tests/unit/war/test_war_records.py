"""Games as JSON (seed + moves, replayed and checked) and what each seat may see."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from casino.engine.war import CorruptRecord, WarGame, new_game


def through_json(game: WarGame) -> WarGame:
    return WarGame.from_dict(json.loads(json.dumps(game.to_dict())))


def paused_in_a_war() -> WarGame:
    """A hand-of-three game paused on the deciding card of a war (seat 0 human)."""
    for i in range(200):
        game = new_game("hand-of-three", seed=f"war-pause-{i}")
        while not game.finished and game.battles < 60:
            game.advance("decision")
            if not game.pending:
                break
            decision = game.pending[0]
            if decision.context["war"]:
                return game
            game.apply(0, decision.legal[0])
    raise AssertionError("no war in 200 games")


def test_a_paused_game_round_trips_and_plays_on_identically() -> None:
    game = paused_in_a_war()
    again = through_json(game)
    assert again.to_dict() == game.to_dict()
    assert again.view(0) == game.view(0)
    for g in (game, again):
        g.apply(0, g.pending[0].legal[-1])
        g.advance("end")
    assert again.log == game.log and again.result == game.result


def test_records_between_battles_and_finished_games_round_trip() -> None:
    game = new_game("classic", seed="between")
    for _ in range(10):
        game.advance("battle")
    again = through_json(game)
    assert again.battles == 10 and again.view(None) == game.view(None)
    game.advance("end")
    done = through_json(game)
    assert done.result == game.result and done.log == game.log


def test_steal_games_round_trip_mid_battle() -> None:
    game = new_game("steal", {"seats": 3}, seed="steal-json", seats=[{"type": "human"}] * 3)
    checked = 0
    while not game.finished and checked < 15:
        game.advance("decision")
        if game.pending:
            again = through_json(game)
            assert again.view(0) == game.view(0)
            game = again
            decision = game.pending[0]
            game.apply(decision.seat, decision.legal[-1])
            checked += 1
    assert checked == 15


def tamper(record: dict[str, Any], change: Any) -> dict[str, Any]:
    bad = copy.deepcopy(record)
    change(bad)
    return bad


def test_a_record_that_does_not_replay_is_refused() -> None:
    game = paused_in_a_war()
    record = game.to_dict()
    assert record["moves"], "the paused game has moves"

    def other_move(r: dict[str, Any]) -> None:
        r["moves"][0]["move"]["card"] = "JK1"

    bad_records = [
        tamper(record, lambda r: r.update(digest="0" * 64)),
        tamper(record, lambda r: r.update(seed="another seed")),
        tamper(record, lambda r: r.update(battles=r["battles"] + 5, paused=False)),
        tamper(record, other_move),
        tamper(record, lambda r: r.update(format="war-game/0")),
        tamper(record, lambda r: r["rules"].update(seats=9)),
    ]
    for bad in bad_records:
        with pytest.raises(CorruptRecord) as caught:
            WarGame.from_dict(bad)
        assert caught.value.code == "corrupt_game_record"


def test_views_never_show_a_face_down_card_before_the_end() -> None:
    game = paused_in_a_war()
    assert game.entry is not None
    table = game.entry.freeze()
    hidden = set(game.code(c) for c in game.hands[1])
    for war in table.wars:
        for cards in war.down:
            hidden.update(cards or [])
    # Cards in the stocks are secret too, unless they were face up in an earlier battle.
    shown: set[str] = set()
    for entry in [*(game.log or []), table]:
        shown.update(c for c in entry.turned if c)
        shown.update(c for war in entry.wars for c in war.up if c)
    hidden.update(game.code(c) for s in game.stocks for c in s)
    hidden -= shown
    assert len(hidden) > 20
    visible_to_0 = json.dumps(game.view(0))
    for code in hidden:
        assert f'"{code}"' not in visible_to_0, code
    view = game.view(0)
    assert view["seed"] is None and len(view["seed_hash"]) == 64
    assert view["seats"][0]["hand"] == [game.code(c) for c in game.hands[0]]
    assert view["seats"][1]["hand"] is None and view["seats"][1]["hand_size"] == 3
    assert view["table"]["wars"][0]["down"] == [3, 3]
    assert view["pending"][0]["legal"]  # seat 0's own decision, with its moves
    spectator = json.dumps(game.view(None))
    assert all(f'"{code}"' not in spectator for code in hidden)
    assert game.view(None)["pending"] == [{"seat": 0, "kind": "hand-card"}]
    game.advance("end")
    final = game.view(1)
    assert final["seed"] == game.seed and final["status"] == "finished"
    assert any(isinstance(d, list) for e in final["log"] for w in e["wars"] for d in w["down"]), (
        "face-down cards are shown once the game is over"
    )


def test_another_seats_steal_choice_is_private() -> None:
    for i in range(100):
        game = new_game("steal", seed=f"private-{i}", seats=[{"type": "human"}, {"type": "human"}])
        game.advance("decision")
        while not game.finished:
            steals = [d for d in game.pending if d.kind.value == "steal-or-play"]
            if steals:
                decision = steals[0]
                other = 1 - decision.seat
                seen = game.view(other)["pending"]
                mine = next(p for p in seen if p["seat"] == decision.seat)
                assert mine == {"seat": decision.seat, "kind": "steal-or-play"}
                assert decision.context["card"] in json.dumps(game.view(decision.seat)["pending"])
                return
            for d in game.pending:
                game.apply(d.seat, d.legal[0])
            game.advance("decision")
    raise AssertionError("no steal chance in 100 games")


def test_view_of_a_seat_that_does_not_exist() -> None:
    game = new_game("classic", seed="seats")
    with pytest.raises(ValueError, match="no seat 2"):
        game.view(2)
