"""The seed protocol through HTTP: the committed next server seed, the client seed given with
a rotation, and the client seed a pair's first bet may bring (docs/fairness.md)."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from casino.engine.casino_war import deal_casino_war

from .helpers import (
    Api,
    Player,
    active_server_seed,
    assert_problem,
    committed_next_seed,
    new_key,
)


def seeds_of(api: Api, player: Player) -> dict[str, Any]:
    response = api.get(f"/api/v1/players/{player.id}/seeds", auth=player.auth)
    assert response.status_code == 200
    return dict(response.get_json())


def rotate(api: Api, player: Player, body: dict[str, Any] | None = None) -> dict[str, Any]:
    response = api.post(f"/api/v1/players/{player.id}/seeds/rotate", body, auth=player.auth)
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def settle(api: Api, player: Player, round_body: dict[str, Any]) -> None:
    if round_body["status"] == "awaiting_decision":
        response = api.post(
            f"/api/v1/rounds/{round_body['id']}/decision",
            {"action": "surrender"},
            auth=player.auth,
            key=new_key(),
        )
        assert response.status_code == 200


def test_the_next_hash_commits_to_the_seed_the_rotation_makes_active(
    api: Api, player: Player, database_url: str
) -> None:
    shown = seeds_of(api, player)
    successor = committed_next_seed(database_url, player.id)
    assert hashlib.sha256(successor).hexdigest() == shown["next_server_seed_hash"]
    rotation = rotate(api, player, {"client_seed": "after the commitment"})
    current = rotation["current"]
    assert current["server_seed_hash"] == shown["next_server_seed_hash"]
    assert current["client_seed"] == "after the commitment"
    assert current["client_seed_chosen"] is True
    assert active_server_seed(database_url, player.id)[0] == successor  # the very seed
    # ... and a fresh one is committed for the rotation after.
    fresh = committed_next_seed(database_url, player.id)
    assert fresh != successor
    assert hashlib.sha256(fresh).hexdigest() == current["next_server_seed_hash"]
    assert seeds_of(api, player) == current


def test_a_chain_of_rotations_keeps_every_promise(api: Api, funded: Player) -> None:
    """Each rotation reveals the seed whose hash was shown as the next one a rotation
    earlier; the rounds it dealt verify against it."""
    promised = seeds_of(api, funded)["next_server_seed_hash"]
    for turn in range(3):
        current = rotate(api, funded, {"client_seed": f"turn {turn}"})["current"]
        assert current["server_seed_hash"] == promised
        played = api.bet(funded, ante=100).get_json()
        settle(api, funded, played)
        assert played["fairness"]["server_seed_hash"] == promised
        revealed = rotate(api, funded)["revealed"]
        seed = bytes.fromhex(revealed["server_seed"])
        assert hashlib.sha256(seed).hexdigest() == promised
        assert revealed["client_seeds"] == [f"turn {turn}"]
        deal = deal_casino_war(seed, f"turn {turn}", played["fairness"]["nonce"], 6)
        assert (deal.player.code, deal.dealer.code) == (
            played["player_card"],
            played["dealer_card"],
        )
        promised = seeds_of(api, funded)["next_server_seed_hash"]


def test_the_first_bet_of_a_pair_brings_its_client_seed(api: Api, funded: Player) -> None:
    before = seeds_of(api, funded)
    assert before["client_seed_chosen"] is False and before["next_nonce"] == 0
    played = api.bet(funded, ante=100, client_seed="  my entropy ")
    assert played.status_code == 201, played.get_json()
    body = played.get_json()
    assert body["fairness"]["client_seed"] == "  my entropy "  # byte for byte
    assert body["fairness"]["server_seed_hash"] == before["server_seed_hash"]
    after = seeds_of(api, funded)
    assert after["client_seed"] == "  my entropy " and after["client_seed_chosen"] is True
    assert after["next_nonce"] == 1
    settle(api, funded, body)
    # The second bet may not change it any more.
    balance = api.balance(funded)
    second = api.bet(funded, ante=100, client_seed="again")
    problem = assert_problem(second, 409, "client_seed_fixed")
    assert "chosen" in problem["detail"]
    assert seeds_of(api, funded) == after and api.balance(funded) == balance


def test_no_client_seed_from_a_bet_once_the_pair_dealt_a_round(api: Api, funded: Player) -> None:
    settle(api, funded, api.bet(funded, ante=100).get_json())
    before = seeds_of(api, funded)
    assert before["client_seed_chosen"] is False and before["next_nonce"] == 1
    balance = api.balance(funded)
    problem = assert_problem(api.bet(funded, client_seed="late"), 409, "client_seed_fixed")
    assert "first bet" in problem["detail"]
    assert seeds_of(api, funded) == before and api.balance(funded) == balance
    # A rotation opens a new pair, whose first bet may bring one again.
    rotate(api, funded)
    assert api.bet(funded, client_seed="fresh pair").get_json()["fairness"]["client_seed"] == (
        "fresh pair"
    )


@pytest.mark.parametrize(
    "choose",
    [
        lambda api, p: api.put(
            f"/api/v1/players/{p.id}/seeds/client", {"client_seed": "x"}, p.auth
        ),
        lambda api, p: api.post(
            f"/api/v1/players/{p.id}/seeds/rotate", {"client_seed": "x"}, auth=p.auth
        ),
    ],
    ids=["put-client-seed", "rotation"],
)
def test_no_client_seed_from_a_bet_once_the_player_chose_one(
    api: Api, funded: Player, choose: Any
) -> None:
    assert choose(api, funded).status_code == 200
    before = seeds_of(api, funded)
    assert before["client_seed_chosen"] is True and before["client_seed"] == "x"
    assert_problem(api.bet(funded, client_seed="y"), 409, "client_seed_fixed")
    assert seeds_of(api, funded) == before
    assert api.bet(funded).get_json()["fairness"]["client_seed"] == "x"


@pytest.mark.parametrize(
    "client_seed",
    ["", "x" * 65, "tab\there", "\u00e9t\u00e9", None, 7],
    ids=["empty", "too-long", "tab", "non-ascii", "null", "number"],
)
def test_a_bet_client_seed_is_validated_like_the_client_seed_endpoint(
    api: Api, funded: Player, client_seed: Any
) -> None:
    before = seeds_of(api, funded)
    body = {"table_id": "classic", "ante": 100, "client_seed": client_seed}
    response = api.post("/api/v1/rounds", body, auth=funded.auth, key=new_key())
    problem = assert_problem(response, 422, "validation_failed")
    assert "client_seed" in problem["errors"]
    assert seeds_of(api, funded) == before and api.balance(funded) == 1_000_000


def test_a_refused_bet_leaves_the_client_seed_as_it_was(api: Api) -> None:
    api.create_table("classic")
    poor = api.create_player()
    api.deposit(poor, 100)
    before = seeds_of(api, poor)
    assert_problem(api.bet(poor, ante=200, client_seed="mine"), 409, "insufficient_funds")
    assert seeds_of(api, poor) == before
    assert_problem(
        api.bet(poor, ante=100, table="nowhere", client_seed="mine"), 404, "table_not_found"
    )
    assert seeds_of(api, poor) == before
    assert api.bet(poor, ante=100, client_seed="mine").status_code == 201


def test_a_replayed_first_bet_answers_as_before(api: Api, funded: Player) -> None:
    key = new_key()
    body = {"table_id": "classic", "ante": 100, "client_seed": "once"}
    first = api.post("/api/v1/rounds", body, auth=funded.auth, key=key)
    second = api.post("/api/v1/rounds", body, auth=funded.auth, key=key)
    assert first.status_code == second.status_code == 201
    assert second.data == first.data
    assert second.headers["Idempotent-Replayed"] == "true"
    assert seeds_of(api, funded)["next_nonce"] == 1
