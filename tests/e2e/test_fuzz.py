"""No request, however malformed, gets a 500 or changes anything.

Hypothesis sends arbitrary JSON documents, valid bodies with one field replaced by arbitrary
JSON, and raw bytes to every endpoint that takes a body or a query; every refusal must be a
4xx problem+json and must leave the ledger exactly as it was.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from flask import Flask
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .helpers import Api, Player, is_tie, new_key, steer_next_deal

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=12,
)
FUZZ = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


class World:
    """A funded player with an open round and a table: state worth protecting."""

    def __init__(self, api: Api, database_url: str) -> None:
        self.api = api
        api.create_table("classic")
        self.player: Player = api.create_player()
        api.deposit(self.player, 50_000)
        steer_next_deal(api, database_url, self.player, is_tie)
        self.round_id = api.bet(self.player, ante=100).get_json()["id"]
        self.snapshot = self.state()

    def state(self) -> tuple[Any, ...]:
        api, player = self.api, self.player
        txs = api.get(f"/api/v1/players/{player.id}/transactions?limit=200", auth=player.auth)
        table = api.get("/api/v1/tables/classic", auth=api.operator_auth).get_json()
        seeds = api.get(f"/api/v1/players/{player.id}/seeds", auth=player.auth).get_json()
        recall = api.get(f"/api/v1/rounds/{self.round_id}", auth=player.auth).get_json()
        return (api.balance(player), txs.get_json(), table, seeds, recall)

    def targets(self) -> list[tuple[str, str, dict[str, str], dict[str, Any]]]:
        """(method, path, auth, a valid body) for every endpoint that takes a body."""
        op, me, pid = self.api.operator_auth, self.player.auth, self.player.id
        money = {"currency": "EUR", "amount": 100, "reference": "r"}
        return [
            ("POST", "/api/v1/players", op, {"external_ref": "x"}),
            ("POST", f"/api/v1/players/{pid}/deposits", op, money),
            ("POST", f"/api/v1/players/{pid}/withdrawals", op, money),
            ("PUT", f"/api/v1/players/{pid}/seeds/client", me, {"client_seed": "s"}),
            ("POST", "/api/v1/tables", op, {"id": "t", "currency": "EUR", "rules": {}}),
            ("PATCH", "/api/v1/tables/classic", op, {"rules": {"decks": 6}, "active": True}),
            ("POST", "/api/v1/rounds", me, {"table_id": "classic", "ante": 100}),
            ("POST", f"/api/v1/rounds/{self.round_id}/decision", me, {"action": "war"}),
        ]


def _send(app: Flask, method: str, path: str, auth: dict[str, str], data: bytes) -> Any:
    headers = {**auth, "Content-Type": "application/json", "Idempotency-Key": new_key()}
    return app.test_client().open(path, method=method, data=data, headers=headers)


def _check_refused(response: Any) -> None:
    assert response.status_code < 500, response.get_data(as_text=True)
    if response.status_code >= 400:
        assert response.mimetype == "application/problem+json"
        assert isinstance(response.get_json()["code"], str)


@pytest.fixture
def world(api: Api, database_url: str) -> World:
    return World(api, database_url)


@FUZZ
@given(index=st.integers(min_value=0, max_value=7), body=JSON)
def test_arbitrary_json_bodies(app: Flask, world: World, index: int, body: Any) -> None:
    method, path, auth, _ = world.targets()[index]
    response = _send(app, method, path, auth, json.dumps(body).encode())
    _check_refused(response)
    if response.status_code >= 400:
        assert world.state() == world.snapshot
    else:
        world.snapshot = world.state()


@FUZZ
@given(index=st.integers(min_value=0, max_value=7), data=st.data())
def test_valid_bodies_with_one_field_replaced(
    app: Flask, world: World, index: int, data: st.DataObject
) -> None:
    method, path, auth, valid = world.targets()[index]
    body = dict(valid)
    field = data.draw(st.sampled_from([*body, "unexpected"]), label="field")
    body[field] = data.draw(JSON, label="value")
    response = _send(app, method, path, auth, json.dumps(body).encode())
    _check_refused(response)
    if response.status_code >= 400:
        assert world.state() == world.snapshot
    else:
        world.snapshot = world.state()


@FUZZ
@given(index=st.integers(min_value=0, max_value=7), raw=st.binary(max_size=64))
def test_raw_bytes(app: Flask, world: World, index: int, raw: bytes) -> None:
    method, path, auth, _ = world.targets()[index]
    response = _send(app, method, path, auth, raw)
    _check_refused(response)
    if response.status_code >= 400:
        assert world.state() == world.snapshot
    else:
        world.snapshot = world.state()


@FUZZ
@given(
    path=st.sampled_from(["/api/v1/rounds", "/api/v1/tables", "TX"]),
    query=st.dictionaries(
        st.sampled_from(["cursor", "limit", "status", "player_id", "other"]),
        st.text(max_size=40),
        max_size=3,
    ),
)
def test_arbitrary_query_strings(
    app: Flask, world: World, path: str, query: dict[str, str]
) -> None:
    if path == "TX":
        path = f"/api/v1/players/{world.player.id}/transactions"
    response = app.test_client().get(path, query_string=query, headers=world.api.operator_auth)
    _check_refused(response)


@FUZZ
@given(
    segment=st.text(
        alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="/?#"),
        min_size=1,
        max_size=80,
    )
)
def test_arbitrary_path_ids(app: Flask, world: World, segment: str) -> None:
    client = app.test_client()
    auth = world.api.operator_auth
    for path in (
        f"/api/v1/players/{segment}",
        f"/api/v1/tables/{segment}",
        f"/api/v1/rounds/{segment}",
    ):
        _check_refused(client.get(path, headers=auth))


@FUZZ
@given(
    authorization=st.text(max_size=80),
    key=st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=255), max_size=300),
)
def test_arbitrary_auth_and_idempotency_headers(
    app: Flask, world: World, authorization: str, key: str
) -> None:
    headers = {"Authorization": authorization, "Idempotency-Key": key}
    try:
        response = app.test_client().post(
            "/api/v1/rounds", json={"table_id": "classic", "ante": 100}, headers=headers
        )
    except ValueError:
        return  # the test client itself refuses header values HTTP cannot carry
    _check_refused(response)
    assert response.status_code in (400, 401, 403, 409, 422)
    assert world.state() == world.snapshot
