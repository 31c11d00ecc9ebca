"""Player A can neither see nor touch player B's resources: every attempt answers 404."""

from __future__ import annotations

import pytest

from .helpers import Api, Player, assert_problem, is_tie, new_key, steer_next_deal


@pytest.fixture
def pair(api: Api, database_url: str) -> tuple[Player, Player, str]:
    """Alice and Bob, both funded; Bob has a round awaiting a decision (its id returned)."""
    api.create_table("classic")
    alice, bob = api.create_player(), api.create_player()
    api.deposit(alice, 10_000)
    api.deposit(bob, 10_000)
    steer_next_deal(api, database_url, bob, is_tie)
    bob_round = api.bet(bob).get_json()
    assert bob_round["status"] == "awaiting_decision"
    return alice, bob, bob_round["id"]


@pytest.mark.parametrize(
    "suffix", ["", "/wallets", "/transactions", "/seeds"], ids=["player", "wallets", "tx", "seeds"]
)
def test_cannot_read_another_players_resources(
    api: Api, pair: tuple[Player, Player, str], suffix: str
) -> None:
    alice, bob, _ = pair
    response = api.get(f"/api/v1/players/{bob.id}{suffix}", auth=alice.auth)
    problem = assert_problem(response, 404, "player_not_found")
    # Indistinguishable from a player that does not exist.
    unknown = api.get(
        f"/api/v1/players/00000000-0000-4000-8000-000000000000{suffix}", auth=alice.auth
    )
    assert unknown.status_code == 404
    assert unknown.get_json() == problem
    # Bob himself can.
    assert api.get(f"/api/v1/players/{bob.id}{suffix}", auth=bob.auth).status_code == 200


def test_cannot_touch_another_players_seeds(api: Api, pair: tuple[Player, Player, str]) -> None:
    alice, bob, _ = pair
    before = api.get(f"/api/v1/players/{bob.id}/seeds", auth=bob.auth).get_json()
    set_seed = api.put(
        f"/api/v1/players/{bob.id}/seeds/client", {"client_seed": "hijack"}, auth=alice.auth
    )
    assert_problem(set_seed, 404, "player_not_found")
    rotate = api.post(f"/api/v1/players/{bob.id}/seeds/rotate", auth=alice.auth)
    assert_problem(rotate, 404, "player_not_found")
    assert api.get(f"/api/v1/players/{bob.id}/seeds", auth=bob.auth).get_json() == before


def test_cannot_see_or_decide_another_players_round(
    api: Api, pair: tuple[Player, Player, str]
) -> None:
    alice, bob, bob_round = pair
    assert_problem(api.get(f"/api/v1/rounds/{bob_round}", auth=alice.auth), 404, "round_not_found")
    decided = api.post(
        f"/api/v1/rounds/{bob_round}/decision",
        {"action": "surrender"},
        auth=alice.auth,
        key=new_key(),
    )
    assert_problem(decided, 404, "round_not_found")
    assert api.get(f"/api/v1/rounds/{bob_round}", auth=bob.auth).get_json()["status"] == (
        "awaiting_decision"
    )
    assert api.balance(alice) == 10_000


def test_round_listing_is_scoped_to_the_caller(api: Api, pair: tuple[Player, Player, str]) -> None:
    alice, bob, bob_round = pair
    mine = api.get("/api/v1/rounds", auth=alice.auth).get_json()
    assert mine["items"] == []
    asked = api.get(f"/api/v1/rounds?player_id={bob.id}", auth=alice.auth)
    assert_problem(asked, 404, "player_not_found")
    own = api.get(f"/api/v1/rounds?player_id={alice.id}", auth=alice.auth)
    assert own.status_code == 200 and own.get_json()["items"] == []
    assert [r["id"] for r in api.get("/api/v1/rounds", auth=bob.auth).get_json()["items"]] == [
        bob_round
    ]


def test_cannot_move_another_players_money(api: Api, pair: tuple[Player, Player, str]) -> None:
    alice, bob, _ = pair
    for kind in ("deposits", "withdrawals"):
        response = api.post(
            f"/api/v1/players/{bob.id}/{kind}",
            {"currency": "EUR", "amount": 1, "reference": "x"},
            auth=alice.auth,
            key=new_key(),
        )
        assert response.status_code in (403, 404)
    assert api.balance(bob) == 10_000 - 100
