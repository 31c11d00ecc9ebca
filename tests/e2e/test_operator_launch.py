"""Launch for an operator (issue 20, point 4): ``POST /api/v1/sessions`` names the operator's
own player reference, makes the player when new, and answers like the player-session launch;
the operator's session token is kept with the session."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from flask import Flask

from casino.api.database import EXTENSION_KEY

from .helpers import Api, assert_problem, new_key


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def acme(api: Api) -> dict[str, str]:
    made = api.post(
        "/api/v1/operators",
        {"id": "acme", "name": "Acme", "currencies": ["EUR", "GBP"]},
        auth=api.platform_auth,
    )
    assert made.status_code == 201, made.get_json()
    auth = bearer(made.get_json()["token"])
    for table_id, currency in (("classic", "EUR"), ("pounds", "GBP")):
        body = {"id": table_id, "currency": currency}
        assert api.post("/api/v1/tables", body, auth=auth).status_code == 201
    return auth


def launch(api: Api, auth: dict[str, str], key: str | None = None, **body: Any) -> Any:
    payload = {"player": "alice", "currency": "EUR", "table_id": "classic", **body}
    return api.post("/api/v1/sessions", payload, auth=auth, key=key)


def test_a_launch_makes_the_player_once_and_opens_the_table(api: Api, app: Flask) -> None:
    auth = acme(api)
    first = launch(api, auth, operator_session="acme-session-1", language="pt")
    assert first.status_code == 201, first.get_json()
    body = first.get_json()
    assert body["player_created"] and body["external_ref"] == "alice"
    assert body["currency"] == "EUR" and body["table_id"] == "classic"
    url = urlsplit(body["launch_url"])
    assert parse_qs(url.query) == {"table": ["classic"], "lang": ["pt"]}
    assert url.fragment == f"code={body['launch_code']}"
    exchanged = api.post("/api/v1/sessions/exchange", {"code": body["launch_code"]})
    assert exchanged.status_code == 200, exchanged.get_json()
    player = bearer(exchanged.get_json()["token"])
    current = api.get("/api/v1/sessions/current", auth=player).get_json()
    assert current["player_id"] == body["player_id"] and current["table_id"] == "classic"
    with app.extensions[EXTENSION_KEY].unit_of_work("acme") as uow:
        row = uow.game_sessions.get(body["id"])
        assert row is not None and row.operator_session == "acme-session-1"
    again = launch(api, auth)
    assert again.status_code == 201
    assert again.get_json()["player_id"] == body["player_id"]
    assert not again.get_json()["player_created"]
    found = api.get("/api/v1/players?external_ref=alice", auth=auth).get_json()["items"]
    assert [p["id"] for p in found] == [body["player_id"]]
    # The same reference at another operator is another player.
    api.create_table("classic")
    theirs = launch(api, api.operator_auth)
    assert theirs.status_code == 201 and theirs.get_json()["player_created"]
    assert theirs.get_json()["player_id"] != body["player_id"]


def test_currencies_and_tables_are_checked_before_anything_is_made(api: Api) -> None:
    auth = acme(api)
    cases = [
        ({"currency": "USD"}, 422, "unsupported_currency"),
        ({"currency": "GBP"}, 422, "table_currency_mismatch"),
        ({"table_id": "nowhere"}, 404, "table_not_found"),
        ({"operator_session": "line\nbreak"}, 422, "validation_failed"),
        ({"language": "xx"}, 422, "validation_failed"),
        ({"player": "   "}, 422, "invalid_external_ref"),
    ]
    for body, status, code in cases:
        assert_problem(launch(api, auth, **body), status, code)
    assert api.get("/api/v1/players?external_ref=alice", auth=auth).get_json()["items"] == []
    assert launch(api, auth, currency="GBP", table_id="pounds").status_code == 201


def test_a_retried_launch_with_its_key_answers_the_same_session(api: Api) -> None:
    auth = acme(api)
    key = new_key()
    first = launch(api, auth, key=key, operator_session="s-1")
    again = launch(api, auth, key=key, operator_session="s-1")
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert first.get_json()["launch_code"] and again.get_json()["launch_code"] is None
    assert again.get_json()["launch_url"] is None
    assert {**first.get_json(), "launch_url": None, "launch_code": None} == again.get_json()
    player = first.get_json()["player_id"]
    listed = api.get(f"/api/v1/players/{player}/sessions", auth=auth).get_json()["items"]
    assert [s["id"] for s in listed] == [first.get_json()["id"]]
    other = launch(api, auth, key=key, operator_session="s-2")
    assert_problem(other, 422, "idempotency_key_reused")


def test_players_and_platform_tokens_cannot_launch(api: Api) -> None:
    auth = acme(api)
    body = launch(api, auth).get_json()
    player = bearer(
        api.post("/api/v1/sessions/exchange", {"code": body["launch_code"]}).get_json()["token"]
    )
    assert_problem(launch(api, player), 403, "forbidden")
    assert_problem(launch(api, api.platform_auth), 403, "forbidden")
