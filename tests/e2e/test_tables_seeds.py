"""Tables (rules, RTP, operator changes) and provably fair seeds through HTTP."""

from __future__ import annotations

import hashlib
from fractions import Fraction
from typing import Any

import pytest

from casino.engine.casino_war import deal_casino_war

from .helpers import Api, Player, assert_problem, is_tie, new_key, steer_next_deal

# ---------------------------------------------------------------- tables


def test_create_table_with_defaults(api: Api) -> None:
    table = api.create_table("classic")
    assert table["id"] == "classic" and table["currency"] == "EUR" and table["active"] is True
    assert table["rules"] == {
        "decks": 6,
        "min_ante": 100,
        "max_ante": 500_000,
        "bet_increment": 100,
        "max_tie_bet": 100_000,
        "tie_pays": 10,
        "war_tie_bonus": False,
        "surrender_allowed": True,
        "max_hands": 1,
        "war_ties": "push",
        "max_war_ties": 4,
        "tie_ladder": None,
        "war_tie_bet": {"enabled": False, "pays": 10, "max": 0},
        "tie_only": False,
        "decision_seconds": None,
        "timeout_action": "surrender",
    }
    for name in ("war", "surrender", "tie_bet"):
        rtp = table["rtp"][name]
        exact = Fraction(rtp["exact"])
        assert 0 < exact < 1
        assert abs(float(exact) - rtp["value"]) < 1e-12


def test_bonus_rule_raises_war_rtp(api: Api) -> None:
    plain = api.create_table("classic")
    bonus = api.create_table("bonus", war_tie_bonus=True)
    assert Fraction(bonus["rtp"]["war"]["exact"]) > Fraction(plain["rtp"]["war"]["exact"])


def test_list_and_get_tables(api: Api, player: Player) -> None:
    for table_id in ("single-deck", "classic", "bonus"):
        api.create_table(table_id)
    listing = api.get("/api/v1/tables", auth=player.auth)
    assert listing.status_code == 200
    body = listing.get_json()
    assert [t["id"] for t in body["items"]] == ["bonus", "classic", "single-deck"]
    assert body["next_cursor"] is None
    one = api.get("/api/v1/tables/classic", auth=player.auth)
    assert one.status_code == 200 and one.get_json()["id"] == "classic"


def test_tables_paginate(api: Api) -> None:
    for table_id in ("a", "b", "c"):
        api.create_table(table_id)
    first = api.get("/api/v1/tables?limit=2", auth=api.operator_auth).get_json()
    assert [t["id"] for t in first["items"]] == ["a", "b"] and first["next_cursor"]
    second = api.get(
        f"/api/v1/tables?limit=2&cursor={first['next_cursor']}", auth=api.operator_auth
    ).get_json()
    assert [t["id"] for t in second["items"]] == ["c"] and second["next_cursor"] is None


def test_unknown_table_is_404(api: Api) -> None:
    assert_problem(api.get("/api/v1/tables/nope", auth=api.operator_auth), 404, "table_not_found")


def test_duplicate_table_is_409(api: Api) -> None:
    api.create_table("classic")
    response = api.post(
        "/api/v1/tables", {"id": "classic", "currency": "EUR"}, auth=api.operator_auth
    )
    assert_problem(response, 409, "duplicate_table")


@pytest.mark.parametrize(
    "body",
    [
        {"id": "Classic", "currency": "EUR"},
        {"id": "-x", "currency": "EUR"},
        {"id": "ok", "currency": "eur"},
        {"id": "ok", "currency": "EUR", "rules": {"decks": "6"}},
        {"id": "ok", "currency": "EUR", "rules": {"decks": 6.0}},
        {"id": "ok", "currency": "EUR", "rules": {"surrender_allowed": "yes"}},
        {"id": "ok", "currency": "EUR", "rules": {"colour": "red"}},
        {"id": "ok", "currency": "EUR", "rules": {"min_ante": -100}},
        {"id": "ok", "currency": "EUR", "color": "red"},
    ],
    ids=[
        "uppercase-id",
        "leading-hyphen",
        "lowercase-currency",
        "decks-string",
        "decks-float",
        "bool-string",
        "unknown-rule",
        "negative",
        "unknown-field",
    ],
)
def test_create_table_validation(api: Api, body: dict[str, Any]) -> None:
    response = api.post("/api/v1/tables", body, auth=api.operator_auth)
    assert_problem(response, 422, "validation_failed")


@pytest.mark.parametrize(
    "rules, code",
    [
        ({"bet_increment": 3}, "bet_increment_invalid"),
        ({"min_ante": 150}, "min_ante_invalid"),
        ({"min_ante": 1000, "max_ante": 500}, "max_ante_invalid"),
        ({"tie_pays": 7}, "tie_pays_not_allowed"),
        ({"decks": 0}, None),
    ],
)
def test_unplayable_rules_are_422(api: Api, rules: dict[str, Any], code: str | None) -> None:
    response = api.post(
        "/api/v1/tables", {"id": "odd", "currency": "EUR", "rules": rules}, auth=api.operator_auth
    )
    assert response.status_code == 422, response.get_json()
    if code is not None:
        assert response.get_json()["code"] == code


def test_players_cannot_create_or_change_tables(api: Api, player: Player) -> None:
    api.create_table("classic")
    created = api.post("/api/v1/tables", {"id": "mine", "currency": "EUR"}, auth=player.auth)
    assert_problem(created, 403, "forbidden")
    changed = api.patch("/api/v1/tables/classic", {"active": False}, auth=player.auth)
    assert_problem(changed, 403, "forbidden")


def test_patch_table_rules_and_active(api: Api) -> None:
    api.create_table("classic")
    response = api.patch(
        "/api/v1/tables/classic", {"rules": {"max_ante": 1000}}, auth=api.operator_auth
    )
    assert response.status_code == 200
    body = response.get_json()
    assert body["rules"]["max_ante"] == 1000 and body["rules"]["min_ante"] == 100
    closed = api.patch("/api/v1/tables/classic", {"active": False}, auth=api.operator_auth)
    assert closed.status_code == 200 and closed.get_json()["active"] is False


@pytest.mark.parametrize(
    "body, status",
    [
        ({}, 422),
        ({"active": "no"}, 422),
        ({"rules": {"max_ante": 50}}, 422),
        ({"rules": {"decks": 2.5}}, 422),
        ({"id": "renamed"}, 422),
    ],
    ids=["empty", "active-string", "max-below-min", "decks-float", "id-change"],
)
def test_patch_table_validation(api: Api, body: dict[str, Any], status: int) -> None:
    api.create_table("classic")
    response = api.patch("/api/v1/tables/classic", body, auth=api.operator_auth)
    assert response.status_code == status, response.get_json()
    table = api.get("/api/v1/tables/classic", auth=api.operator_auth).get_json()
    assert table["rules"]["max_ante"] == 500_000 and table["active"] is True


def test_patch_unknown_table_is_404(api: Api) -> None:
    response = api.patch("/api/v1/tables/nope", {"active": False}, auth=api.operator_auth)
    assert_problem(response, 404, "table_not_found")


def test_table_change_never_alters_a_started_round(
    api: Api, funded: Player, database_url: str
) -> None:
    steer_next_deal(api, database_url, funded, is_tie)
    started = api.bet(funded, ante=200)
    assert started.status_code == 201
    assert started.get_json()["status"] == "awaiting_decision"
    api.patch(
        "/api/v1/tables/classic",
        {"rules": {"surrender_allowed": False, "min_ante": 1000}},
        auth=api.operator_auth,
    )
    decided = api.post(
        f"/api/v1/rounds/{started.get_json()['id']}/decision",
        {"action": "surrender"},
        auth=funded.auth,
        key=new_key(),
    )
    assert decided.status_code == 200, decided.get_json()
    body = decided.get_json()
    assert body["rules"]["surrender_allowed"] is True and body["rules"]["min_ante"] == 100
    assert body["net"] == -100


def test_closed_table_refuses_bets(api: Api, funded: Player) -> None:
    api.patch("/api/v1/tables/classic", {"active": False}, auth=api.operator_auth)
    response = api.bet(funded)
    assert_problem(response, 409, "table_inactive")


# ---------------------------------------------------------------- seeds


def test_get_seeds(api: Api, player: Player) -> None:
    response = api.get(f"/api/v1/players/{player.id}/seeds", auth=player.auth)
    assert response.status_code == 200
    body = response.get_json()
    assert set(body) == {
        "server_seed_hash",
        "client_seed",
        "next_nonce",
        "next_server_seed_hash",
        "client_seed_chosen",
    }
    assert len(body["server_seed_hash"]) == 64 and body["next_nonce"] == 0
    assert len(body["next_server_seed_hash"]) == 64
    assert body["next_server_seed_hash"] != body["server_seed_hash"]
    assert body["client_seed_chosen"] is False  # the server's default
    operator_view = api.get(f"/api/v1/players/{player.id}/seeds", auth=api.operator_auth)
    assert operator_view.get_json() == body


def test_set_client_seed(api: Api, player: Player) -> None:
    response = api.put(
        f"/api/v1/players/{player.id}/seeds/client", {"client_seed": "my lucky seed"}, player.auth
    )
    assert response.status_code == 200
    assert response.get_json()["client_seed"] == "my lucky seed"
    assert response.get_json()["client_seed_chosen"] is True


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"client_seed": ""},
        {"client_seed": "x" * 65},
        {"client_seed": "\u00e9t\u00e9"},
        {"client_seed": 5},
        {"client_seed": "ok", "server_seed": "00"},
    ],
    ids=["missing", "empty", "too-long", "non-ascii", "number", "unknown"],
)
def test_client_seed_validation(api: Api, player: Player, body: dict[str, Any]) -> None:
    response = api.put(f"/api/v1/players/{player.id}/seeds/client", body, player.auth)
    assert_problem(response, 422, "validation_failed")


def test_operators_cannot_choose_a_players_client_seed(api: Api, player: Player) -> None:
    response = api.put(
        f"/api/v1/players/{player.id}/seeds/client", {"client_seed": "x"}, api.operator_auth
    )
    assert_problem(response, 403, "forbidden")
    rotate = api.post(f"/api/v1/players/{player.id}/seeds/rotate", auth=api.operator_auth)
    assert_problem(rotate, 403, "forbidden")


def test_rotation_reveals_the_committed_seed_and_its_rounds_replay(
    api: Api, funded: Player
) -> None:
    before = api.get(f"/api/v1/players/{funded.id}/seeds", auth=funded.auth).get_json()
    rounds = []
    for _ in range(3):
        response = api.bet(funded, ante=100)
        assert response.status_code == 201
        body = response.get_json()
        if body["status"] == "awaiting_decision":
            body = api.post(
                f"/api/v1/rounds/{body['id']}/decision",
                {"action": "surrender"},
                auth=funded.auth,
                key=new_key(),
            ).get_json()
        assert body["fairness"]["server_seed"] is None
        assert body["fairness"]["server_seed_hash"] == before["server_seed_hash"]
        rounds.append(body)
    rotation = api.post(f"/api/v1/players/{funded.id}/seeds/rotate", auth=funded.auth)
    assert rotation.status_code == 200
    revealed = rotation.get_json()["revealed"]
    seed = bytes.fromhex(revealed["server_seed"])
    assert hashlib.sha256(seed).hexdigest() == before["server_seed_hash"]
    assert revealed["server_seed_hash"] == before["server_seed_hash"]
    assert (revealed["first_nonce"], revealed["last_nonce"]) == (0, 2)
    current = rotation.get_json()["current"]
    assert current["server_seed_hash"] == before["next_server_seed_hash"]  # promoted
    assert current["next_server_seed_hash"] not in (
        before["server_seed_hash"],
        before["next_server_seed_hash"],
    )
    assert current["next_nonce"] == 3
    # Every round dealt under the old seed is now verifiable by anyone.
    for played in rounds:
        recall = api.get(f"/api/v1/rounds/{played['id']}", auth=funded.auth).get_json()
        assert recall["fairness"]["server_seed"] == revealed["server_seed"]
        deal = deal_casino_war(
            seed, recall["fairness"]["client_seed"], recall["fairness"]["nonce"], 6
        )
        assert (deal.player.code, deal.dealer.code) == (
            recall["player_card"],
            recall["dealer_card"],
        )


def test_rotation_refused_while_a_round_awaits_a_decision(
    api: Api, funded: Player, database_url: str
) -> None:
    steer_next_deal(api, database_url, funded, is_tie)
    open_round = api.bet(funded).get_json()
    response = api.post(f"/api/v1/players/{funded.id}/seeds/rotate", auth=funded.auth)
    problem = assert_problem(response, 409, "round_in_progress")
    assert problem["round_id"] == open_round["id"]


def test_server_seed_never_in_any_response_before_rotation(
    api: Api, funded: Player, database_url: str
) -> None:
    from .helpers import active_server_seed, committed_next_seed

    seed, _ = active_server_seed(database_url, funded.id)
    secrets = [seed.hex(), committed_next_seed(database_url, funded.id).hex()]
    texts = [
        api.bet(funded).get_data(as_text=True),
        api.get(f"/api/v1/players/{funded.id}/seeds", auth=funded.auth).get_data(as_text=True),
        api.get("/api/v1/rounds", auth=funded.auth).get_data(as_text=True),
        api.get(f"/api/v1/players/{funded.id}/transactions", auth=funded.auth).get_data(
            as_text=True
        ),
    ]
    assert not any(secret in text or secret.upper() in text for secret in secrets for text in texts)


@pytest.mark.parametrize(
    "body",
    [
        {"server_seed": "00" * 32},
        {"client_seed": "ok", "next_server_seed_hash": "00" * 32},
        {"client_seed": ""},
        {"client_seed": "x" * 65},
        {"client_seed": "tab\there"},
        {"client_seed": None},
        {"client_seed": 5},
    ],
    ids=["server-seed", "next-hash", "empty", "too-long", "tab", "null", "number"],
)
def test_rotation_takes_only_a_valid_client_seed(
    api: Api, player: Player, body: dict[str, Any]
) -> None:
    before = api.get(f"/api/v1/players/{player.id}/seeds", auth=player.auth).get_json()
    refused = api.post(f"/api/v1/players/{player.id}/seeds/rotate", body, auth=player.auth)
    assert_problem(refused, 422, "validation_failed")
    assert api.get(f"/api/v1/players/{player.id}/seeds", auth=player.auth).get_json() == before


@pytest.mark.parametrize("body", [None, {}], ids=["no-body", "empty-object"])
def test_rotation_without_a_client_seed_carries_the_old_one_over_unchosen(
    api: Api, player: Player, body: dict[str, Any] | None
) -> None:
    path = f"/api/v1/players/{player.id}/seeds"
    api.put(f"{path}/client", {"client_seed": "kept"}, player.auth)
    before = api.get(path, auth=player.auth).get_json()
    rotation = api.post(f"{path}/rotate", body, auth=player.auth)
    assert rotation.status_code == 200
    current = rotation.get_json()["current"]
    assert current["server_seed_hash"] == before["next_server_seed_hash"]
    assert current["client_seed"] == "kept"
    # Carried over, it is no choice made for the new pair: in general the server may have
    # known it when it committed the pair's server seed (docs/fairness.md).
    assert current["client_seed_chosen"] is False
    assert api.get(path, auth=player.auth).get_json() == current


def test_bets_follow_every_table_change_at_once(api: Api, funded: Player) -> None:
    """The rules a bet checks are built once per content (``TableRules.of``): each change of
    the table is seen by the very next bet, and changing it back is seen too."""

    def bet_at(ante: int) -> Any:
        response = api.bet(funded, ante=ante)
        if response.status_code == 201 and response.get_json()["status"] == "awaiting_decision":
            decided = api.post(
                f"/api/v1/rounds/{response.get_json()['id']}/decision",
                {"action": "surrender"},
                auth=funded.auth,
                key=new_key(),
            )
            assert decided.status_code == 200, decided.get_json()
        return response

    def change(rules: dict[str, Any]) -> None:
        patched = api.patch("/api/v1/tables/classic", {"rules": rules}, auth=api.operator_auth)
        assert patched.status_code == 200, patched.get_json()

    assert bet_at(400).status_code == 201
    change({"max_ante": 300})
    assert_problem(bet_at(400), 422, "ante_out_of_range")
    assert bet_at(300).status_code == 201
    change({"max_ante": 500_000})  # the content the first bet's rules were built from
    assert bet_at(400).status_code == 201
    change({"max_ante": 300})
    assert_problem(bet_at(400), 422, "ante_out_of_range")
