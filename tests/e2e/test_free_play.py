"""Free-play War over REST through the Flask test client (SQLite and PostgreSQL)."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

from casino import create_app
from casino.api.database import EXTENSION_KEY
from casino.api.resources.free_play import settings_from
from casino.engine.war import PRESETS, WarGame, draw_seat, new_game
from casino.store.free_play_models import FreePlayGame
from config import ConfigError

from .helpers import Api, assert_problem, make_config

BASE = "/api/v1/free-play"
HUMAN_VS_GREEDY = [{"type": "human"}, {"type": "computer", "strategy": "greedy"}]
#: game id -> the game token its creation returned
TOKENS: dict[str, str] = {}


def game_auth(game_id: str) -> dict[str, str]:
    """The Authorization header of a game's owner (an unknown id gets a made-up token)."""
    return {"Authorization": f"Bearer {TOKENS.get(game_id, 'gm_unknown')}"}


def create(api: Api, **body: Any) -> dict[str, Any]:
    response = api.post(f"{BASE}/games", body)
    assert response.status_code == 201, response.get_json()
    game: dict[str, Any] = response.get_json()
    assert response.headers["Location"] == f"{BASE}/games/{game['id']}"
    TOKENS[game["id"]] = game.pop("token")
    return game


def autoplay(api: Api, game_id: str, until: str, **extra: Any) -> dict[str, Any]:
    response = api.post(
        f"{BASE}/games/{game_id}/autoplay", {"until": until, **extra}, auth=game_auth(game_id)
    )
    assert response.status_code == 200, response.get_json()
    game: dict[str, Any] = response.get_json()
    return game


def move(api: Api, game_id: str, body: dict[str, Any]) -> dict[str, Any]:
    response = api.post(f"{BASE}/games/{game_id}/moves", body, auth=game_auth(game_id))
    assert response.status_code == 200, response.get_json()
    game: dict[str, Any] = response.get_json()
    return game


def stored_record(database_url: str, game_id: str) -> dict[str, Any]:
    engine = create_engine(database_url)
    try:
        with Session(engine) as session:
            state = session.scalars(
                select(FreePlayGame.state).where(FreePlayGame.id == game_id)
            ).one()
    finally:
        engine.dispose()
    return dict(state)


# ---------------------------------------------------------------- variants


def test_variants_list_every_preset_with_its_option_schema(api: Api) -> None:
    response = api.get(f"{BASE}/variants")
    assert response.status_code == 200
    items = response.get_json()["items"]
    assert [v["name"] for v in items] == list(PRESETS)
    by_name = {v["name"]: v for v in items}
    classic = by_name["classic"]
    assert classic["description"] and classic["title"]
    assert classic["rules"]["war_down"] == 3
    assert classic["options"]["war_down"]["default"] == 3
    assert classic["options"]["war_down"]["allowed"] == [0, 1, 2, 3]
    assert classic["options"]["battle_limit"]["allowed"][0] is None
    assert by_name["steal"]["decisions"] is True
    assert by_name["hand-of-three"]["decisions"] is True
    assert by_name["classic"]["decisions"] is False
    assert by_name["tod-und-leben"]["options"]["rounds"]["allowed"] == [1, 3, 5]


# ---------------------------------------------------------------- creating and viewing


def test_a_new_game_is_dealt_and_nothing_played(api: Api) -> None:
    game = create(api, variant="classic")
    assert game["status"] == "in_progress"
    assert game["battles"] == 0 and game["log"] == [] and game["result"] is None
    assert game["viewer"] == 0  # the only human seat by default
    assert game["version"] == 1
    assert game["seed"] is None and len(game["seed_hash"]) == 64
    assert [(s["type"], s["strategy"]) for s in game["seats"]] == [
        ("human", None),
        ("computer", "greedy"),
    ]
    assert [s["cards"] for s in game["seats"]] == [26, 26]
    fetched = api.get(f"{BASE}/games/{game['id']}", auth=game_auth(game["id"]))
    assert fetched.status_code == 200
    assert fetched.get_json()["seed_hash"] == game["seed_hash"]


def test_options_seats_and_seed_are_honoured(api: Api) -> None:
    game = create(
        api,
        variant="multiplayer",
        options={"seats": 4, "war_joins": "tied"},
        seed="my seed 1",
        seats=[{"type": "computer", "strategy": "random"}] * 2 + [{"type": "computer"}] * 2,
    )
    assert game["rules"]["seats"] == 4 and game["rules"]["war_joins"] == "tied"
    assert game["options"] == {"seats": 4, "war_joins": "tied"}
    assert [s["strategy"] for s in game["seats"]] == ["random", "random", "greedy", "greedy"]
    assert game["viewer"] is None  # no human seat: a spectator's view
    assert [s["cards"] for s in game["seats"]] == [13, 13, 13, 13]
    same = create(
        api,
        variant="multiplayer",
        options={"seats": 4, "war_joins": "tied"},
        seed="my seed 1",
        seats=[{"type": "computer", "strategy": "random"}] * 2 + [{"type": "computer"}] * 2,
    )
    first = autoplay(api, game["id"], "end")
    second = autoplay(api, same["id"], "end")
    assert first["seed"] == "my seed 1"
    assert first["result"] == second["result"] and first["log"] == second["log"]


def test_the_human_chooses_its_seat_or_has_it_drawn(api: Api) -> None:
    game = create(api, variant="multiplayer", options={"seats": 4}, human_seat=2, seed="seat")
    assert [s["type"] for s in game["seats"]] == ["computer", "computer", "human", "computer"]
    assert game["viewer"] == 2  # the view is the human's own
    drawn = create(api, variant="multiplayer", human_seat="draw", seed="seat")
    human = [s["seat"] for s in drawn["seats"] if s["type"] == "human"]
    assert human == [draw_seat("seat", 3)] and drawn["viewer"] == human[0]
    played = autoplay(api, drawn["id"], "end")
    assert played["result"] is not None


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"variant": "poker"}, 422, "validation_failed"),
        ({}, 422, "validation_failed"),
        ({"variant": "classic", "colour": "red"}, 422, "validation_failed"),
        ({"variant": "classic", "options": {"war_down": 7}}, 422, "invalid_rules"),
        ({"variant": "classic", "options": {"no_such": 1}}, 422, "invalid_rules"),
        ({"variant": "classic", "options": {"pack": "piquet-32"}}, 422, "invalid_rules"),
        ({"variant": "classic", "options": {"war_down": [1]}}, 422, "invalid_rules"),
        ({"variant": "classic", "options": []}, 422, "validation_failed"),
        ({"variant": "classic", "seed": ""}, 422, "validation_failed"),
        ({"variant": "classic", "seed": "tab\there"}, 422, "validation_failed"),
        ({"variant": "classic", "seed": "x" * 129}, 422, "validation_failed"),
        ({"variant": "classic", "seats": [{"type": "human"}]}, 422, "invalid_rules"),
        ({"variant": "classic", "seats": [{"type": "alien"}] * 2}, 422, "validation_failed"),
        (
            {"variant": "classic", "seats": [{"type": "human", "strategy": "greedy"}] * 2},
            422,
            "invalid_rules",
        ),
        (
            {"variant": "classic", "seats": [{"type": "computer", "brain": "big"}] * 2},
            422,
            "validation_failed",
        ),
        ({"variant": "classic", "seats": []}, 422, "validation_failed"),
        ({"variant": "classic", "human_seat": 2}, 422, "invalid_rules"),
        ({"variant": "classic", "human_seat": 4}, 422, "validation_failed"),
        ({"variant": "classic", "human_seat": "1"}, 422, "validation_failed"),
        ({"variant": "classic", "human_seat": True}, 422, "validation_failed"),
        ({"variant": "classic", "human_seat": "random"}, 422, "validation_failed"),
        (
            {"variant": "classic", "human_seat": 0, "seats": [{"type": "human"}] * 2},
            422,
            "invalid_rules",
        ),
    ],
)
def test_bad_game_requests_are_refused(
    api: Api, body: dict[str, Any], status: int, code: str
) -> None:
    body_problem = assert_problem(api.post(f"{BASE}/games", body), status, code)
    if code == "invalid_rules":
        assert body_problem["detail"]


def test_unknown_games_and_seats(api: Api) -> None:
    missing = "00000000-0000-4000-8000-000000000000"
    assert_problem(
        api.get(f"{BASE}/games/{missing}", auth=game_auth(missing)), 404, "game_not_found"
    )
    assert_problem(api.get(f"{BASE}/games/not-a-uuid"), 404, "not_found")
    assert_problem(
        api.post(f"{BASE}/games/{missing}/moves", {"action": "play"}, auth=game_auth(missing)),
        404,
        "game_not_found",
    )
    assert_problem(
        api.post(f"{BASE}/games/{missing}/autoplay", {"until": "end"}, auth=game_auth(missing)),
        404,
        "game_not_found",
    )
    game = create(api, variant="classic")
    assert_problem(
        api.get(f"{BASE}/games/{game['id']}?seat=2", auth=game_auth(game["id"])),
        422,
        "invalid_seat",
    )
    assert_problem(
        api.get(f"{BASE}/games/{game['id']}?seat=9", auth=game_auth(game["id"])),
        422,
        "validation_failed",
    )
    assert_problem(
        api.get(f"{BASE}/games/{game['id']}?colour=red", auth=game_auth(game["id"])),
        422,
        "validation_failed",
    )
    assert_problem(
        api.post(
            f"{BASE}/games/{game['id']}/autoplay", {"until": "forever"}, auth=game_auth(game["id"])
        ),
        422,
        "validation_failed",
    )
    assert_problem(
        api.post(
            f"{BASE}/games/{game['id']}/autoplay",
            {"until": "end", "speed": 2},
            auth=game_auth(game["id"]),
        ),
        422,
        "validation_failed",
    )
    assert_problem(
        api.post(
            f"{BASE}/games/{game['id']}/moves",
            {"action": "play", "seat": 3},
            auth=game_auth(game["id"]),
        ),
        422,
        "invalid_seat",
    )
    assert_problem(
        api.post(
            f"{BASE}/games/{game['id']}/moves",
            {"action": "play", "why": 1},
            auth=game_auth(game["id"]),
        ),
        422,
        "validation_failed",
    )
    assert_problem(
        api.post(f"{BASE}/games/{game['id']}/moves", {}, auth=game_auth(game["id"])),
        422,
        "validation_failed",
    )


# ---------------------------------------------------------------- playing


@pytest.mark.parametrize("variant", list(PRESETS))
def test_every_preset_plays_to_the_end_over_rest(api: Api, variant: str) -> None:
    game = create(api, variant=variant, seed=f"rest-{variant}")
    total = sum(s["cards"] for s in game["seats"])
    first = autoplay(api, game["id"], "battle")
    # One battle, or less when it stops at a human's choice.
    assert (first["battles"], first["log_size"]) == (1, 1) or (
        first["status"] == "awaiting_decision" and first["battles"] == 0
    )
    assert sum(s["cards"] for s in first["seats"]) <= total
    done = autoplay(api, game["id"], "end")
    assert done["status"] == "finished"
    assert done["result"]["reason"]
    assert done["result"]["battles"] == done["battles"] >= 1
    assert done["seed"] == f"rest-{variant}"
    assert done["pending"] == []
    assert done["log_size"] == len(done["log"]) >= 1
    again = api.get(f"{BASE}/games/{game['id']}", auth=game_auth(game["id"])).get_json()
    assert again["result"] == done["result"] and again["version"] == done["version"]
    tail = api.get(f"{BASE}/games/{game['id']}?log_tail=1", auth=game_auth(game["id"])).get_json()
    assert tail["log"] == done["log"][-1:] and tail["log_size"] == done["log_size"]
    # A finished game stays as it is.
    assert autoplay(api, game["id"], "end")["result"] == done["result"]
    assert_problem(
        api.post(
            f"{BASE}/games/{game['id']}/moves", {"action": "play"}, auth=game_auth(game["id"])
        ),
        409,
        "game_finished",
    )


def test_autoplay_battle_by_battle(api: Api) -> None:
    game = create(api, variant="classic", seed="step")
    for expected in range(1, 6):
        game = autoplay(api, game["id"], "battle")
        assert game["battles"] == expected == game["log_size"]
        assert sum(s["cards"] for s in game["seats"]) == 52


def test_autoplay_to_a_decision_without_choices_plays_to_the_end(api: Api) -> None:
    game = create(api, variant="three-wars", seed="no-choices")
    done = autoplay(api, game["id"], "decision")
    assert done["status"] == "finished"


def play_by_moves(api: Api, game_id: str, choose: Any) -> tuple[dict[str, Any], list[Any]]:
    """Drive a game with one human seat (seat 0): autoplay to each choice, answer it."""
    made: list[Any] = []
    game = autoplay(api, game_id, "decision")
    for _ in range(5_000):
        if game["status"] == "finished":
            return game, made
        if not game["pending"]:
            game = autoplay(api, game_id, "decision")
            continue
        decision = game["pending"][0]
        assert decision["seat"] == 0 and decision["legal"], decision
        choice = choose(decision)
        assert choice in decision["legal"]
        made.append((decision["kind"], choice))
        game = move(api, game_id, choice)
    raise AssertionError("the game did not end")


def replayed(variant: str, seed: str, moves: list[Any]) -> WarGame:
    game = new_game(variant, None, seed, HUMAN_VS_GREEDY)
    for _kind, choice in moves:
        game.advance("decision")
        game.apply(0, choice)
    game.advance("decision")
    return game


def test_steal_war_is_played_by_a_human_over_rest(api: Api) -> None:
    """Steal when offered, put the highest card on top: both kinds of choice over REST."""

    def choose(decision: dict[str, Any]) -> dict[str, Any]:
        legal = decision["legal"]
        steal = [m for m in legal if m["action"] == "steal"]
        return steal[0] if steal else legal[-1]

    for attempt in range(10):
        seed = f"steal-{attempt}"
        game = create(api, variant="steal", seed=seed, seats=HUMAN_VS_GREEDY)
        done, made = play_by_moves(api, game["id"], choose)
        kinds = {kind for kind, _ in made}
        if kinds == {"steal-or-play", "pile-top"}:
            break
    else:
        raise AssertionError("no seed gave both Steal War choices")
    assert done["result"]["outcome"] in ("win", "draw")
    assert any(choice == {"action": "steal"} for _, choice in made)
    # Fully determined by the seed and the moves: the engine replays it to the same end.
    engine_game = replayed("steal", seed, made)
    assert engine_game.result is not None
    assert engine_game.result.to_dict() == done["result"]
    assert engine_game.battles == done["battles"]
    assert any(entry.get("steals") for entry in done["log"])


def test_hand_of_three_is_played_by_a_human_over_rest(api: Api) -> None:
    """Always the card of the middle strength: a real choice every battle it is offered."""

    def choose(decision: dict[str, Any]) -> dict[str, Any]:
        hand = decision["context"]["hand"]
        ranked = sorted(hand, key=lambda c: c["strength"])
        wanted = ranked[len(ranked) // 2]["card"]
        return next(m for m in decision["legal"] if m["card"] == wanted)

    game = create(api, variant="hand-of-three", seed="three-1", seats=HUMAN_VS_GREEDY)
    assert game["seats"][0]["hand"] is not None and len(game["seats"][0]["hand"]) == 3
    assert game["seats"][1]["hand"] is None  # the opponent's hand is not shown
    done, made = play_by_moves(api, game["id"], choose)
    assert len(made) >= 10 and {kind for kind, _ in made} == {"hand-card"}
    assert done["status"] == "finished"
    engine_game = replayed("hand-of-three", "three-1", made)
    assert engine_game.result is not None
    assert engine_game.result.to_dict() == done["result"]


def test_illegal_moves_are_409_with_the_legal_ones(api: Api) -> None:
    game = create(api, variant="hand-of-three", seed="illegal", seats=HUMAN_VS_GREEDY)
    gid = game["id"]
    nothing_yet = assert_problem(
        api.post(
            f"{BASE}/games/{gid}/moves", {"action": "play", "card": "2C"}, auth=game_auth(gid)
        ),
        409,
        "illegal_move",
    )
    assert nothing_yet["legal"] == []
    game = autoplay(api, gid, "decision")
    legal = game["pending"][0]["legal"]
    not_in_hand = next(
        code
        for code in ("2C", "3D", "4H", "5S", "6C")
        if {"action": "play", "card": code} not in legal
    )
    body = assert_problem(
        api.post(
            f"{BASE}/games/{gid}/moves",
            {"action": "play", "card": not_in_hand},
            auth=game_auth(gid),
        ),
        409,
        "illegal_move",
    )
    assert body["legal"] == legal
    assert body["seat"] == 0
    assert body["pending"] == [{"seat": 0, "kind": "hand-card"}]
    assert "legal moves" in body["detail"]
    for wrong in ({"action": "steal"}, {"action": "play"}, {"action": "PLAY", "card": "ZZ"}):
        assert (
            assert_problem(
                api.post(f"{BASE}/games/{gid}/moves", wrong, auth=game_auth(gid)),
                409,
                "illegal_move",
            )["legal"]
            == legal
        )
    # The computer's seat has nothing to decide.
    assert_problem(
        api.post(f"{BASE}/games/{gid}/moves", {**legal[0], "seat": 1}, auth=game_auth(gid)),
        409,
        "illegal_move",
    )
    # Nothing changed; card codes are case-insensitive.
    unchanged = api.get(f"{BASE}/games/{gid}", auth=game_auth(gid)).get_json()
    assert unchanged["version"] == game["version"] and unchanged["pending"] == game["pending"]
    after = move(api, gid, {"action": "play", "card": legal[0]["card"].lower()})
    assert after["version"] == game["version"] + 1


def test_a_game_without_choices_refuses_moves(api: Api) -> None:
    game = create(api, variant="classic")
    body = assert_problem(
        api.post(
            f"{BASE}/games/{game['id']}/moves", {"action": "play"}, auth=game_auth(game["id"])
        ),
        409,
        "illegal_move",
    )
    assert body["legal"] == []
    computers = create(api, variant="classic", seats=[{"type": "computer"}] * 2)
    assert_problem(
        api.post(
            f"{BASE}/games/{computers['id']}/moves",
            {"action": "play"},
            auth=game_auth(computers["id"]),
        ),
        409,
        "illegal_move",
    )


def test_several_human_seats_say_who_moves(api: Api) -> None:
    game = create(
        api,
        variant="hand-of-three",
        seed="two-humans",
        seats=[{"type": "human"}, {"type": "human"}],
    )
    gid = game["id"]
    assert game["viewer"] is None
    game = autoplay(api, gid, "decision", seat=1)
    assert game["viewer"] == 1
    mine = [p for p in game["pending"] if p["seat"] == 1]
    theirs = [p for p in game["pending"] if p["seat"] == 0]
    assert mine[0]["legal"] and "legal" not in theirs[0]  # only the viewer's own choice
    assert_problem(
        api.post(f"{BASE}/games/{gid}/moves", mine[0]["legal"][0], auth=game_auth(gid)),
        422,
        "seat_required",
    )
    after_one = move(api, gid, {**mine[0]["legal"][0], "seat": 1})
    assert after_one["battles"] == game["battles"]  # waits for seat 0's simultaneous choice
    assert [p["seat"] for p in after_one["pending"]] == [0]
    seat0 = api.get(f"{BASE}/games/{gid}?seat=0", auth=game_auth(gid)).get_json()
    after_both = move(api, gid, {**seat0["pending"][0]["legal"][0], "seat": 0})
    assert after_both["battles"] == game["battles"] + 1


# ---------------------------------------------------------------- what a seat may see


def _face_up(entry: dict[str, Any]) -> set[str]:
    cards = {c for c in entry.get("turned", []) if isinstance(c, str)}
    for war in entry.get("wars", []):
        cards |= {c for c in war.get("up", []) if isinstance(c, str)}
    return cards


def _first_war(api: Api, database_url: str, seed: str) -> tuple[str, set[str], set[str]]:
    """Play a game battle by battle to its first war: the game id, the cards that war put
    face down (from the stored record, replayed) and those among them never yet face up."""
    game = create(api, variant="classic", seed=seed)
    seen_up: set[str] = set()
    for _ in range(500):
        game = autoplay(api, game["id"], "battle")
        entry = game["log"][-1]
        seen_up |= _face_up(entry)
        if entry["wars"]:
            for war in entry["wars"]:
                assert all(d is None or isinstance(d, int) for d in war["down"]), war
            break
    truth = WarGame.from_dict(stored_record(database_url, game["id"]))
    assert truth.log is not None and truth.log[-1].wars, "no war"
    down = {c for war in truth.log[-1].wars for cards in war.down if cards for c in cards}
    return game["id"], down, down - seen_up


def test_face_down_cards_are_never_shown_before_the_end(api: Api, database_url: str) -> None:
    for attempt in range(20):
        seed = f"hidden-{attempt}"
        gid, down, hidden = _first_war(api, database_url, seed)
        if hidden:  # a war before the cards went round: these were never seen at all
            break
    else:
        raise AssertionError("no early war in 20 games")
    for viewer in ("", "?seat=0", "?seat=1"):
        text = api.get(f"{BASE}/games/{gid}{viewer}", auth=game_auth(gid)).get_data(as_text=True)
        assert not [c for c in hidden if f'"{c}"' in text], viewer
        assert '"moves"' not in text and seed not in text  # neither the record nor the seed
    done = autoplay(api, gid, "end")
    assert done["seed"] == seed
    revealed = json.dumps(done["log"])
    assert all(f'"{c}"' in revealed for c in down)  # shown once the game is over


# ---------------------------------------------------------------- concurrency


def test_concurrent_moves_on_one_game_apply_once(app: Flask, api: Api, database_url: str) -> None:
    game = create(api, variant="hand-of-three", seed="race", seats=HUMAN_VS_GREEDY)
    gid = game["id"]
    game = autoplay(api, gid, "decision")
    choice = game["pending"][0]["legal"][0]
    count = 4
    barrier = threading.Barrier(count)
    results: list[tuple[int, str | None]] = [(0, None)] * count

    def send(index: int) -> None:
        client = app.test_client()
        barrier.wait(timeout=30)
        response = client.post(f"{BASE}/games/{gid}/moves", json=choice, headers=game_auth(gid))
        results[index] = (response.status_code, (response.get_json() or {}).get("code"))

    threads = [threading.Thread(target=send, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    statuses = sorted(status for status, _ in results)
    assert statuses == [200] + [409] * (count - 1), results
    # The row lock serialises the moves: the later ones see the card already played.
    assert {code for status, code in results if status == 409} == {"illegal_move"}
    record = stored_record(database_url, gid)
    assert [m["move"] for m in record["moves"]] == [choice]
    final = api.get(f"{BASE}/games/{gid}", auth=game_auth(gid)).get_json()
    assert final["version"] == game["version"] + 1
    assert WarGame.from_dict(record).battles == final["battles"]


# ---------------------------------------------------------------- simulations


def test_simulation_summarises_seeded_games(api: Api) -> None:
    body = {"variant": "classic", "games": 400, "seed": "sim"}
    response = api.post(f"{BASE}/simulations", body)
    assert response.status_code == 200, response.get_json()
    result = response.get_json()
    assert result["games"] == result["games_requested"] == 400
    assert result["complete"] is True and result["stopped_by"] is None
    assert result["limits"] == {"max_battles": 5_000_000, "max_seconds": 10.0}  # the defaults
    stats = result["battles"]
    assert 0 < stats["median"] <= stats["p95"] <= stats["max"]
    assert 150 < stats["mean"] < 450
    assert result["wars_per_game"] > 0
    assert sum(result["wins"]) + result["draws"] == 400
    assert result["cycles"] == 0 and result["unfinished"] == 0
    again = api.post(f"{BASE}/simulations", body).get_json()
    assert again.pop("id") != result.pop("id")  # two jobs...
    assert again == result  # ... with one result: reproducible
    one_down = api.post(
        f"{BASE}/simulations", {**body, "options": {"war_down": 1, "return_order": "fixed"}}
    ).get_json()
    assert one_down["rules"]["war_down"] == 1
    assert one_down["cycles"] > 0  # a fixed return order loops; detected and drawn


def test_every_preset_simulates(api: Api) -> None:
    for variant in PRESETS:
        response = api.post(f"{BASE}/simulations", {"variant": variant, "games": 5, "seed": "p"})
        assert response.status_code == 200, (variant, response.get_json())
        result = response.get_json()
        assert result["games"] == 5 and len(result["wins"]) == result["rules"]["seats"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"variant": "classic", "games": 0, "seed": "s"}, "validation_failed"),
        ({"variant": "classic", "games": 10_001, "seed": "s"}, "validation_failed"),
        ({"variant": "classic", "games": 10.0, "seed": "s"}, "validation_failed"),
        ({"variant": "classic", "games": "10", "seed": "s"}, "validation_failed"),
        ({"variant": "classic", "games": 10}, "validation_failed"),
        ({"variant": "classic", "games": 10, "seed": "s" * 101}, "validation_failed"),
        ({"variant": "chess", "games": 10, "seed": "s"}, "validation_failed"),
        ({"variant": "classic", "games": 10, "seed": "s", "fast": True}, "validation_failed"),
        ({"variant": "classic", "games": 10, "seed": "s", "options": {"x": 1}}, "invalid_rules"),
    ],
)
def test_bad_simulations_are_refused(api: Api, body: dict[str, Any], code: str) -> None:
    assert_problem(api.post(f"{BASE}/simulations", body), 422, code)


def _app(database_url: str, **settings: Any) -> Flask:
    return create_app(make_config(database_url, **settings))


def test_a_simulation_stops_at_its_work_bounds(database_url: str) -> None:
    body = {"variant": "classic", "games": 10_000, "seed": "bounded"}
    budget = _app(database_url, FREE_PLAY_SIMULATION_MAX_BATTLES=2_000)
    clock = _app(database_url, FREE_PLAY_SIMULATION_MAX_SECONDS=0)
    try:
        by_battles = budget.test_client().post(f"{BASE}/simulations", json=body).get_json()
        assert by_battles["complete"] is False and by_battles["stopped_by"] == "battle_budget"
        assert 1 <= by_battles["games"] < 100 and by_battles["games_requested"] == 10_000
        assert by_battles["limits"]["max_battles"] == 2_000
        played = by_battles["games"]
        assert by_battles["battles"]["mean"] * played >= 2_000  # it stopped at the budget
        again = budget.test_client().post(f"{BASE}/simulations", json=body).get_json()
        assert again.pop("id") != by_battles.pop("id")
        assert again == by_battles  # the battle budget is deterministic
        by_time = clock.test_client().post(f"{BASE}/simulations", json=body).get_json()
        assert by_time["stopped_by"] == "time_limit" and by_time["games"] == 1
    finally:
        for application in (budget, clock):
            application.extensions[EXTENSION_KEY].engine.dispose()


# ---------------------------------------------------------------- throttling


def test_free_play_is_rate_limited_per_address(database_url: str) -> None:
    app = _app(
        database_url,
        RATELIMIT_ENABLED=True,
        FREE_PLAY_RATE_LIMIT="4 per minute",
        FREE_PLAY_SIMULATION_RATE_LIMIT="1 per minute",
    )
    try:
        client = app.test_client()
        statuses = [client.get(f"{BASE}/variants").status_code for _ in range(6)]
        assert statuses == [200] * 4 + [429] * 2
        limited = client.post(f"{BASE}/games", json={"variant": "classic"})
        body = assert_problem(limited, 429, "rate_limited")
        assert "free-play" in body["detail"]
        assert 0 < int(limited.headers["Retry-After"]) <= 60
        other = {"REMOTE_ADDR": "10.1.2.3"}
        sim = {"variant": "classic", "games": 1, "seed": "s"}
        first = client.post(f"{BASE}/simulations", json=sim, environ_base=other)
        assert first.status_code == 200
        second = client.post(f"{BASE}/simulations", json=sim, environ_base=other)
        assert_problem(second, 429, "rate_limited")
        # Simulations have their own, lower limit; the address may still play.
        assert client.get(f"{BASE}/variants", environ_base=other).status_code == 200
        # The rest of the API is not counted.
        assert client.get("/api/v1/health").status_code == 200
    finally:
        app.extensions[EXTENSION_KEY].engine.dispose()


def test_free_play_limits_are_off_in_testing(api: Api) -> None:
    assert all(api.get(f"{BASE}/variants").status_code == 200 for _ in range(50))


def test_settings_come_from_the_environment_and_are_checked_at_start(
    database_url: str,
) -> None:
    environ = {
        "CASINO_FREE_PLAY_RATE_LIMIT": "5 per second",
        "CASINO_FREE_PLAY_SIMULATION_RATE_LIMIT": "",
        "CASINO_FREE_PLAY_SIMULATION_MAX_BATTLES": "7000",
        "CASINO_FREE_PLAY_SIMULATION_MAX_SECONDS": "2.5",
        "CASINO_UNRELATED": "x",
    }
    assert settings_from(environ) == {
        "FREE_PLAY_RATE_LIMIT": "5 per second",
        "FREE_PLAY_SIMULATION_RATE_LIMIT": "",
        "FREE_PLAY_SIMULATION_MAX_BATTLES": 7000,
        "FREE_PLAY_SIMULATION_MAX_SECONDS": 2.5,
    }
    for name, bad in (
        ("CASINO_FREE_PLAY_RATE_LIMIT", "lots"),
        ("CASINO_FREE_PLAY_SIMULATION_MAX_BATTLES", "many"),
    ):
        with pytest.raises(ConfigError, match=name):
            settings_from({name: bad})
    with pytest.raises(ConfigError, match="FREE_PLAY_RATE_LIMIT"):
        _app(database_url, FREE_PLAY_RATE_LIMIT="as many as you like")


# ---------------------------------------------------------------- OpenAPI


def test_free_play_is_documented_with_game_tokens_only_on_games(api: Api) -> None:
    spec = api.get("/api/v1/openapi.json").get_json()
    game_token = [{"gameToken": []}]
    expected = {
        (f"{BASE}/variants", "get"): ("200", None),
        (f"{BASE}/games", "post"): ("201", None),
        (f"{BASE}/games/{{game_id}}", "get"): ("200", game_token),
        (f"{BASE}/games/{{game_id}}/moves", "post"): ("200", game_token),
        (f"{BASE}/games/{{game_id}}/autoplay", "post"): ("200", game_token),
    }
    for (path, method), (success, security) in expected.items():
        operation = spec["paths"][path][method]
        assert operation.get("security") == security, path
        responses = operation["responses"]
        assert [code for code in responses if code.startswith("2")] == [success]
        assert "429" in responses
        assert "422" in responses or path.endswith("/variants")
    scheme = spec["components"]["securitySchemes"]["gameToken"]
    assert scheme["type"] == "http" and scheme["scheme"] == "bearer"


# ---------------------------------------------------------------- owners (issue 10, point 11)


def test_a_game_is_seen_and_played_only_with_its_token(api: Api) -> None:
    response = api.post(
        f"{BASE}/games", {"variant": "hand-of-three", "seats": HUMAN_VS_GREEDY, "seed": "own"}
    )
    assert response.status_code == 201, response.get_json()
    game = response.get_json()
    token = game["token"]
    assert token.startswith("gm_") and len(token) > 40
    owner = {"Authorization": f"Bearer {token}"}
    other = api.post(f"{BASE}/games", {"variant": "classic"}).get_json()
    strangers: list[dict[str, str]] = [
        {},
        {"Authorization": f"Bearer {other['token']}"},
        {"Authorization": f"Bearer {token}x"},
        {"Authorization": token},
    ]
    path = f"{BASE}/games/{game['id']}"
    for auth in strangers:
        for response in (
            api.get(path, auth=auth),
            api.get(f"{path}?seat=1", auth=auth),
            api.post(f"{path}/autoplay", {"until": "decision"}, auth=auth),
            api.post(f"{path}/moves", {"action": "play", "card": "2C"}, auth=auth),
        ):
            body = assert_problem(response, 404, "game_not_found")
            assert "hand" not in json.dumps(body)
    # Nobody else moved it; its owner sees its own hand and plays on.
    view = api.get(path, auth=owner).get_json()
    assert view["version"] == game["version"] and view["battles"] == 0
    assert view["seats"][0]["hand"] is not None
    played = api.post(f"{path}/autoplay", {"until": "decision"}, auth=owner)
    assert played.status_code == 200 and played.get_json()["version"] == game["version"] + 1
    assert "token" not in played.get_json()  # shown once, at creation


# ---------------------------------------------------------------- simulation jobs (issue 10, 1)

LONG = {"variant": "multiplayer", "options": {"seats": 4}, "games": 10_000, "seed": "long"}


def _jobs_app(database_url: str, max_seconds: float = 2, **settings: Any) -> Flask:
    return _app(
        database_url,
        FREE_PLAY_SIMULATION_WAIT_SECONDS=0,
        FREE_PLAY_SIMULATION_MAX_SECONDS=max_seconds,
        **settings,
    )


def _close(app: Flask) -> None:
    from casino.api.resources.free_play import POOL_KEY

    app.extensions[POOL_KEY].shutdown()
    app.extensions[EXTENSION_KEY].engine.dispose()


def _poll(client: Any, location: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        response = client.get(location)
        assert response.status_code == 200, response.get_json()
        job: dict[str, Any] = response.get_json()
        if job["status"] != "running":
            return job
        time.sleep(0.1)
    raise AssertionError(f"{location} still running after {timeout} s")


def test_a_simulation_not_done_within_the_wait_is_a_job_to_poll(
    database_url: str, api: Api
) -> None:
    body = {"variant": "classic", "games": 300, "seed": "job"}
    app = _jobs_app(database_url, max_seconds=120)  # complete, however loaded the machine
    try:
        client = app.test_client()
        started = client.post(f"{BASE}/simulations", json=body)
        assert started.status_code == 202, started.get_json()
        job = started.get_json()
        assert job["status"] == "running" and job["result"] is None
        assert job["games"] == 300 and job["variant"] == "classic"
        location = started.headers["Location"]
        assert location == f"{BASE}/simulations/{job['id']}"
        done = _poll(client, location)
        assert done["status"] == "done" and done["error"] is None
        assert done["finished_at"] is not None
        # The same summary a request that waits gets.
        waited = api.post(f"{BASE}/simulations", body).get_json()
        waited.pop("id")
        assert done["result"]["limits"]["max_seconds"] == 120  # this app's bound
        assert {**done["result"], "limits": waited["limits"]} == waited
        # Another worker (here another app on the same database) serves the job too.
        assert api.get(location).get_json()["result"] == done["result"]
        missing = f"{BASE}/simulations/00000000-0000-4000-8000-000000000000"
        assert_problem(client.get(missing), 404, "simulation_not_found")
    finally:
        _close(app)


def test_simulations_take_slots_per_address_and_in_total(database_url: str) -> None:
    app = _jobs_app(database_url, FREE_PLAY_SIMULATION_SLOTS=2)
    try:
        client = app.test_client()
        first = client.post(
            f"{BASE}/simulations", json=LONG, environ_base={"REMOTE_ADDR": "10.0.0.1"}
        )
        assert first.status_code == 202, first.get_json()
        # The same address waits for its own simulation.
        again = client.post(
            f"{BASE}/simulations", json=LONG, environ_base={"REMOTE_ADDR": "10.0.0.1"}
        )
        assert_problem(again, 429, "rate_limited")
        assert int(again.headers["Retry-After"]) >= 1
        second = client.post(
            f"{BASE}/simulations", json=LONG, environ_base={"REMOTE_ADDR": "10.0.0.2"}
        )
        assert second.status_code == 202, second.get_json()
        # Both slots of the deployment are taken: anyone else is told to come back.
        third = client.post(
            f"{BASE}/simulations", json=LONG, environ_base={"REMOTE_ADDR": "10.0.0.3"}
        )
        assert_problem(third, 503, "simulations_busy")
        assert int(third.headers["Retry-After"]) >= 1
        for started in (first, second):
            done = _poll(client, started.headers["Location"])
            assert done["status"] == "done", done
            result = done["result"]
            assert result["complete"] is False and result["stopped_by"] == "time_limit"
            assert 1 <= result["games"] < 10_000
        # Slots free again.
        later = client.post(
            f"{BASE}/simulations", json=LONG, environ_base={"REMOTE_ADDR": "10.0.0.3"}
        )
        assert later.status_code == 202, later.get_json()
        _poll(client, later.headers["Location"])
    finally:
        _close(app)


def test_an_abandoned_job_holds_no_slot_and_reads_as_failed(database_url: str) -> None:
    from datetime import timedelta

    from casino.store.free_play_models import FreePlaySimulation
    from casino.store.models import utcnow

    app = _jobs_app(database_url, FREE_PLAY_SIMULATION_SLOTS=1)
    engine = create_engine(database_url)
    try:
        with Session(engine) as session:  # its worker died an hour ago, mid-simulation
            session.add(
                FreePlaySimulation(
                    id="11111111-1111-4111-8111-111111111111",
                    status="running",
                    client_hash="0" * 64,
                    request={"variant": "classic", "options": {}, "games": 1, "seed": "x"},
                    created_at=utcnow() - timedelta(hours=1),
                )
            )
            session.commit()
        client = app.test_client()
        stale = client.get(f"{BASE}/simulations/11111111-1111-4111-8111-111111111111").get_json()
        assert stale["status"] == "failed" and "abandoned" in stale["error"]
        started = client.post(f"{BASE}/simulations", json=LONG)
        assert started.status_code == 202, started.get_json()
        _poll(client, started.headers["Location"])
    finally:
        engine.dispose()
        _close(app)


def test_simulations_are_documented_as_jobs(api: Api) -> None:
    spec = api.get("/api/v1/openapi.json").get_json()
    post = spec["paths"][f"{BASE}/simulations"]["post"]
    assert sorted(c for c in post["responses"] if c.startswith("2")) == ["200", "202"]
    assert {"429", "503", "422"} <= set(post["responses"])
    job = spec["paths"][f"{BASE}/simulations/{{simulation_id}}"]["get"]
    assert "200" in job["responses"] and "404" in job["responses"]
    assert "security" not in post and "security" not in job
    schemas = spec["components"]["schemas"]
    assert {"result", "status", "error"} <= set(schemas["SimulationJob"]["properties"])
