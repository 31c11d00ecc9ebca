"""Players, deposits, withdrawals, wallets and ledger history through HTTP."""

from __future__ import annotations

from typing import Any

import pytest

from .helpers import Api, Player, assert_problem, new_key

MISSING = "00000000-0000-4000-8000-000000000000"


def _money(amount: Any = 1000, currency: Any = "EUR", reference: Any = "ref-1") -> dict[str, Any]:
    return {"currency": currency, "amount": amount, "reference": reference}


# ---------------------------------------------------------------- players


def test_create_player_returns_token_once(api: Api) -> None:
    response = api.post(
        "/api/v1/players",
        {"external_ref": "crm-42", "display_name": "Ada"},
        auth=api.operator_auth,
    )
    assert response.status_code == 201
    body = response.get_json()
    assert set(body) == {
        "id",
        "external_ref",
        "display_name",
        "token",
        "created_at",
        "reissue_token",
    }
    assert body["external_ref"] == "crm-42" and body["display_name"] == "Ada"
    assert isinstance(body["token"], str) and len(body["token"]) >= 32
    fetched = api.get(f"/api/v1/players/{body['id']}", auth=api.operator_auth)
    assert fetched.status_code == 200
    assert "token" not in fetched.get_json()
    assert fetched.get_json()["id"] == body["id"]
    # The token authenticates the player.
    own = api.get(
        f"/api/v1/players/{body['id']}", auth={"Authorization": f"Bearer {body['token']}"}
    )
    assert own.status_code == 200


def test_an_idempotent_creation_stores_no_token_in_clear(api: Api, database_url: str) -> None:
    """The record a replay answers from holds the player, never its token (nor anything of
    it): a database dump or a backup must not hand out players' credentials."""
    from sqlalchemy import create_engine, select, text

    from casino.store.models import IdempotencyRecord

    key = new_key()
    body = {"external_ref": "crm-kept", "display_name": "Kept"}
    created = api.post("/api/v1/players", body, auth=api.operator_auth, key=key)
    assert created.status_code == 201, created.get_json()
    token = created.get_json()["token"]
    assert token.startswith("pl_")
    secret = token.removeprefix("pl_")

    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            records = connection.execute(
                select(IdempotencyRecord.status, IdempotencyRecord.body).where(
                    IdempotencyRecord.key == key
                )
            ).all()
            # Every column as the database holds it, the body as its stored JSON text.
            raw = connection.execute(
                text("SELECT * FROM idempotency_records WHERE key = :key"), {"key": key}
            ).all()
    finally:
        engine.dispose()
    assert len(records) == 1 and len(raw) == 1
    status, stored_body = records[0]
    assert status == 201 and stored_body["id"] == created.get_json()["id"]
    assert stored_body["token"] is None
    stored = repr(tuple(raw[0]))
    assert secret not in stored and secret[:16] not in stored
    # The replay answers from that record: the same player, no token.
    replay = api.post("/api/v1/players", body, auth=api.operator_auth, key=key)
    assert replay.headers.get("Idempotent-Replayed") == "true"
    assert replay.get_json()["id"] == created.get_json()["id"]
    assert replay.get_json()["token"] is None


def test_display_name_is_optional(api: Api) -> None:
    response = api.post("/api/v1/players", {"external_ref": "no-name"}, auth=api.operator_auth)
    assert response.status_code == 201
    assert response.get_json()["display_name"] is None


def test_duplicate_external_ref_is_409(api: Api) -> None:
    api.create_player("dup-1")
    response = api.post("/api/v1/players", {"external_ref": "dup-1"}, auth=api.operator_auth)
    assert_problem(response, 409, "duplicate_external_ref")


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"external_ref": ""},
        {"external_ref": 42},
        {"external_ref": None},
        {"external_ref": "x" * 201},
        {"external_ref": "line\nbreak"},
        {"external_ref": "ok", "display_name": 7},
        {"external_ref": "ok", "admin": True},
    ],
    ids=["missing", "empty", "number", "null", "too-long", "control", "name-number", "unknown"],
)
def test_create_player_validation(api: Api, body: dict[str, Any]) -> None:
    response = api.post("/api/v1/players", body, auth=api.operator_auth)
    problem = assert_problem(response, 422, "validation_failed")
    assert problem["errors"]


def test_unknown_field_is_named_in_errors(api: Api) -> None:
    response = api.post(
        "/api/v1/players", {"external_ref": "ok", "admin": True}, auth=api.operator_auth
    )
    problem = assert_problem(response, 422, "validation_failed")
    assert "admin" in problem["errors"]


def test_players_cannot_create_players(api: Api, player: Player) -> None:
    response = api.post("/api/v1/players", {"external_ref": "x"}, auth=player.auth)
    assert_problem(response, 403, "forbidden")


def test_unknown_player_is_404(api: Api) -> None:
    assert_problem(
        api.get(f"/api/v1/players/{MISSING}", auth=api.operator_auth), 404, "player_not_found"
    )


# ---------------------------------------------------------------- deposits and withdrawals


def test_operator_reissues_a_player_token(api: Api, player: Player) -> None:
    response = api.post(f"/api/v1/players/{player.id}/token", auth=api.operator_auth)
    assert response.status_code == 201
    body = response.get_json()
    assert body["id"] == player.id and body["token"].startswith("pl_")
    assert body["token"] != player.token
    old = api.get(f"/api/v1/players/{player.id}", auth=player.auth)
    assert_problem(old, 401, "unauthenticated")
    new = api.get(f"/api/v1/players/{player.id}", auth={"Authorization": f"Bearer {body['token']}"})
    assert new.status_code == 200 and new.get_json()["id"] == player.id
    again = api.post(f"/api/v1/players/{player.id}/token", {}, auth=api.operator_auth)
    assert again.status_code == 201 and again.get_json()["token"] != body["token"]
    stale = api.get(
        f"/api/v1/players/{player.id}", auth={"Authorization": f"Bearer {body['token']}"}
    )
    assert_problem(stale, 401, "unauthenticated")


def test_token_reissue_is_for_operators_on_known_players(api: Api, player: Player) -> None:
    own = api.post(f"/api/v1/players/{player.id}/token", auth=player.auth)
    assert_problem(own, 403, "forbidden")
    missing = api.post(
        "/api/v1/players/00000000-0000-4000-8000-000000000000/token", auth=api.operator_auth
    )
    assert_problem(missing, 404, "player_not_found")
    extra = api.post(
        f"/api/v1/players/{player.id}/token", {"token": "mine"}, auth=api.operator_auth
    )
    assert_problem(extra, 422, "validation_failed")
    # Refused requests change nothing: the player's token still works.
    still = api.get(f"/api/v1/players/{player.id}", auth=player.auth)
    assert still.status_code == 200


def test_deposit_creates_wallet_and_ledger_transaction(api: Api, player: Player) -> None:
    assert api.get(f"/api/v1/players/{player.id}/wallets", auth=player.auth).get_json() == []
    response = api.post(
        f"/api/v1/players/{player.id}/deposits",
        _money(2500, reference="psp-1"),
        auth=api.operator_auth,
        key=new_key(),
    )
    assert response.status_code == 201
    assert "Idempotent-Replayed" not in response.headers
    tx = response.get_json()
    assert tx["kind"] == "deposit" and tx["currency"] == "EUR"
    assert tx["balance_after"] == 2500 and tx["reference"] == "psp-1"
    assert tx["round_id"] is None
    assert sum(p["amount"] for p in tx["postings"]) == 0
    assert len(tx["postings"]) >= 2
    assert isinstance(tx["id"], int) and len(tx["hash"]) == 64
    wallets = api.get(f"/api/v1/players/{player.id}/wallets", auth=player.auth)
    assert wallets.get_json() == [{"currency": "EUR", "balance": 2500}]


def test_wallet_per_currency(api: Api, player: Player) -> None:
    api.deposit(player, 100, "EUR")
    api.deposit(player, 300, "USD")
    wallets = api.get(f"/api/v1/players/{player.id}/wallets", auth=api.operator_auth).get_json()
    assert sorted((w["currency"], w["balance"]) for w in wallets) == [("EUR", 100), ("USD", 300)]


def test_withdrawal(api: Api, player: Player) -> None:
    api.deposit(player, 1000)
    response = api.post(
        f"/api/v1/players/{player.id}/withdrawals",
        _money(400),
        auth=api.operator_auth,
        key=new_key(),
    )
    assert response.status_code == 201
    assert response.get_json()["kind"] == "withdrawal"
    assert response.get_json()["balance_after"] == 600
    assert api.balance(player) == 600


def test_withdrawal_beyond_balance_is_409_and_changes_nothing(api: Api, player: Player) -> None:
    api.deposit(player, 1000)
    response = api.post(
        f"/api/v1/players/{player.id}/withdrawals",
        _money(1001),
        auth=api.operator_auth,
        key=new_key(),
    )
    assert_problem(response, 409, "insufficient_funds")
    assert api.balance(player) == 1000
    # Withdrawing the exact balance works.
    exact = api.post(
        f"/api/v1/players/{player.id}/withdrawals",
        _money(1000),
        auth=api.operator_auth,
        key=new_key(),
    )
    assert exact.status_code == 201 and api.balance(player) == 0


def test_withdrawal_without_wallet_is_409(api: Api, player: Player) -> None:
    response = api.post(
        f"/api/v1/players/{player.id}/withdrawals",
        _money(1),
        auth=api.operator_auth,
        key=new_key(),
    )
    assert_problem(response, 409, "insufficient_funds")


def test_deposit_to_unknown_player_is_404(api: Api) -> None:
    response = api.post(
        f"/api/v1/players/{MISSING}/deposits", _money(), auth=api.operator_auth, key=new_key()
    )
    assert_problem(response, 404, "player_not_found")


@pytest.mark.parametrize("kind", ["deposits", "withdrawals"])
def test_players_cannot_move_money(api: Api, player: Player, kind: str) -> None:
    response = api.post(
        f"/api/v1/players/{player.id}/{kind}", _money(), auth=player.auth, key=new_key()
    )
    assert_problem(response, 403, "forbidden")


@pytest.mark.parametrize(
    "amount",
    [0, -1, 1.5, 1.0, "100", True, False, None, 10**12 + 1, 10**30, [100], {"v": 1}],
    ids=[
        "zero",
        "negative",
        "fraction",
        "float-integral",
        "string",
        "true",
        "false",
        "null",
        "over-limit",
        "huge",
        "list",
        "object",
    ],
)
def test_amount_must_be_json_integer_in_range(api: Api, player: Player, amount: Any) -> None:
    response = api.post(
        f"/api/v1/players/{player.id}/deposits",
        _money(amount),
        auth=api.operator_auth,
        key=new_key(),
    )
    problem = assert_problem(response, 422, "validation_failed")
    assert "amount" in problem["errors"]
    assert api.get(f"/api/v1/players/{player.id}/wallets", auth=player.auth).get_json() == []


def test_amount_limits_are_inclusive(api: Api, player: Player) -> None:
    api.deposit(player, 1)
    api.deposit(player, 10**12 - 1)
    assert api.balance(player) == 10**12


def test_raw_float_literal_is_refused(api: Api, player: Player) -> None:
    response = api.client.post(
        f"/api/v1/players/{player.id}/deposits",
        data=b'{"currency": "EUR", "amount": 1e3, "reference": "r"}',
        headers={
            **api.operator_auth,
            "Content-Type": "application/json",
            "Idempotency-Key": new_key(),
        },
    )
    assert_problem(response, 422, "validation_failed")


@pytest.mark.parametrize(
    "body",
    [
        _money(currency="eur"),
        _money(currency="EURO"),
        _money(currency=978),
        _money(reference=""),
        _money(reference=None),
        {"currency": "EUR", "amount": 1},
        {**_money(), "fee": 1},
    ],
    ids=["lowercase", "four-letters", "number", "empty-ref", "null-ref", "no-ref", "unknown"],
)
def test_money_movement_validation(api: Api, player: Player, body: dict[str, Any]) -> None:
    response = api.post(
        f"/api/v1/players/{player.id}/deposits", body, auth=api.operator_auth, key=new_key()
    )
    assert_problem(response, 422, "validation_failed")


# ---------------------------------------------------------------- idempotency


@pytest.mark.parametrize("kind", ["deposits", "withdrawals"])
def test_idempotency_key_required(api: Api, player: Player, kind: str) -> None:
    api.deposit(player, 1000)
    response = api.post(f"/api/v1/players/{player.id}/{kind}", _money(), auth=api.operator_auth)
    assert_problem(response, 400, "idempotency_key_required")
    assert api.balance(player) == 1000


def test_idempotency_key_checked_before_body(api: Api, player: Player) -> None:
    response = api.post(
        f"/api/v1/players/{player.id}/deposits", {"nonsense": 1}, auth=api.operator_auth
    )
    assert_problem(response, 400, "idempotency_key_required")


@pytest.mark.parametrize("key", ["", "   ", "k" * 256, "caf\u00e9"])
def test_invalid_idempotency_key(api: Api, player: Player, key: str) -> None:
    response = api.client.post(
        f"/api/v1/players/{player.id}/deposits",
        json=_money(),
        headers={**api.operator_auth, "Idempotency-Key": key},
    )
    assert response.status_code == 400
    assert response.get_json()["code"] in {"idempotency_key_required", "idempotency_key_invalid"}


def test_same_key_same_body_replays_first_response(api: Api, player: Player) -> None:
    key = new_key()
    path = f"/api/v1/players/{player.id}/deposits"
    first = api.post(path, _money(700), auth=api.operator_auth, key=key)
    second = api.post(path, _money(700), auth=api.operator_auth, key=key)
    assert first.status_code == second.status_code == 201
    assert second.headers["Idempotent-Replayed"] == "true"
    assert second.get_json() == first.get_json()
    assert api.balance(player) == 700


def test_replay_ignores_key_order_and_whitespace(api: Api, player: Player) -> None:
    key = new_key()
    path = f"/api/v1/players/{player.id}/deposits"
    headers = {**api.operator_auth, "Content-Type": "application/json", "Idempotency-Key": key}
    first = api.client.post(
        path, data=b'{"currency":"EUR","amount":5,"reference":"r"}', headers=headers
    )
    second = api.client.post(
        path, data=b'{ "reference": "r", "amount": 5, "currency": "EUR" }', headers=headers
    )
    assert first.status_code == 201 and second.status_code == 201
    assert second.headers["Idempotent-Replayed"] == "true"
    assert api.balance(player) == 5


def test_same_key_other_body_is_422(api: Api, player: Player) -> None:
    key = new_key()
    path = f"/api/v1/players/{player.id}/deposits"
    assert api.post(path, _money(700), auth=api.operator_auth, key=key).status_code == 201
    response = api.post(path, _money(701), auth=api.operator_auth, key=key)
    assert_problem(response, 422, "idempotency_key_reused")
    assert api.balance(player) == 700


def test_same_key_other_path_is_422(api: Api, player: Player) -> None:
    api.deposit(player, 5000)
    key = new_key()
    dep = api.post(
        f"/api/v1/players/{player.id}/deposits", _money(10), auth=api.operator_auth, key=key
    )
    assert dep.status_code == 201
    wd = api.post(
        f"/api/v1/players/{player.id}/withdrawals", _money(10), auth=api.operator_auth, key=key
    )
    assert_problem(wd, 422, "idempotency_key_reused")
    assert api.balance(player) == 5010


def test_refused_request_stores_nothing_under_its_key(api: Api, player: Player) -> None:
    key = new_key()
    path = f"/api/v1/players/{player.id}/withdrawals"
    refused = api.post(path, _money(100), auth=api.operator_auth, key=key)
    assert_problem(refused, 409, "insufficient_funds")
    api.deposit(player, 100)
    retried = api.post(path, _money(100), auth=api.operator_auth, key=key)
    assert retried.status_code == 201
    assert "Idempotent-Replayed" not in retried.headers
    assert api.balance(player) == 0


def test_keys_are_per_caller(api: Api) -> None:
    api.create_table("classic")
    alice, bob = api.create_player(), api.create_player()
    api.deposit(alice, 10_000)
    api.deposit(bob, 10_000)
    key = new_key()
    first = api.post("/api/v1/rounds", {"table_id": "classic", "ante": 100}, alice.auth, key)
    second = api.post("/api/v1/rounds", {"table_id": "classic", "ante": 100}, bob.auth, key)
    assert first.status_code == 201 and second.status_code == 201
    assert "Idempotent-Replayed" not in second.headers
    assert first.get_json()["id"] != second.get_json()["id"]


# ---------------------------------------------------------------- ledger history


def test_transactions_paginate_newest_first(api: Api, player: Player) -> None:
    for amount in range(1, 8):
        api.deposit(player, amount)
    path = f"/api/v1/players/{player.id}/transactions"
    seen: list[dict[str, Any]] = []
    cursor: str | None = None
    pages = 0
    while True:
        query = f"?limit=3&cursor={cursor}" if cursor else "?limit=3"
        response = api.get(path + query, auth=player.auth)
        assert response.status_code == 200
        body = response.get_json()
        assert set(body) == {"items", "next_cursor"}
        assert len(body["items"]) <= 3
        seen.extend(body["items"])
        pages += 1
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert pages == 3
    assert [tx["postings"] and tx["kind"] for tx in seen] == ["deposit"] * 7
    ids = [tx["id"] for tx in seen]
    assert ids == sorted(ids, reverse=True) and len(set(ids)) == 7
    assert [tx["balance_after"] for tx in seen] == [28, 21, 15, 10, 6, 3, 1]


def test_transactions_default_page(api: Api, player: Player) -> None:
    api.deposit(player, 10)
    body = api.get(f"/api/v1/players/{player.id}/transactions", auth=player.auth).get_json()
    assert len(body["items"]) == 1 and body["next_cursor"] is None
    for key in ("id", "kind", "round_id", "postings", "balance_after", "created_at"):
        assert key in body["items"][0]


@pytest.mark.parametrize(
    "query",
    [
        "?limit=0",
        "?limit=201",
        "?limit=abc",
        "?limit=1.5",
        "?cursor=",
        "?cursor=garbage!!",
        "?cursor=" + "\u00e9" * 300,
        "?page=2",
    ],
    ids=[
        "zero",
        "too-big",
        "text",
        "float",
        "empty-cursor",
        "bad-cursor",
        "non-ascii-cursor",
        "unknown-param",
    ],
)
def test_transactions_query_validation(api: Api, player: Player, query: str) -> None:
    api.deposit(player, 10)
    response = api.get(f"/api/v1/players/{player.id}/transactions{query}", auth=player.auth)
    assert response.status_code == 422, response.get_json()
    assert response.get_json()["code"] in {"validation_failed", "invalid_cursor"}
