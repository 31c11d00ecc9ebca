"""Issue 19, point 6: launches that can be cut off, through HTTP on both databases.

The launch URL carries a one-time code (120 s), exchanged once for the session's token; a
player's live sessions are listed and revoked all at once, a holder logs out, a token
reissue may end them, and a session bets at its own table only. Time is the app's injected
clock: nothing sleeps.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import event

from casino import create_app
from casino.api.database import EXTENSION_KEY

from .helpers import Api, Player, assert_problem, make_config, new_key, steer_next_deal
from .protection_helpers import Clock

EXCHANGE = "/api/v1/sessions/exchange"
MISSING = "00000000-0000-4000-8000-000000000000"


def launch_body(api: Api, player: Player, **body: Any) -> dict[str, Any]:
    response = api.post(f"/api/v1/players/{player.id}/sessions", body, auth=api.operator_auth)
    assert response.status_code == 201, response.get_json()
    return dict(response.get_json())


def exchange(api: Api, code: str) -> Any:
    return api.post(EXCHANGE, {"code": code})


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def launched(api: Api, player: Player, **body: Any) -> tuple[dict[str, Any], dict[str, str]]:
    """A launch and the session token's header, as the client gets it."""
    created = launch_body(api, player, **body)
    answer = exchange(api, created["launch_code"])
    assert answer.status_code == 200, answer.get_json()
    return created, bearer(answer.get_json()["token"])


def bet(api: Api, auth: dict[str, str], table_id: str = "classic") -> Any:
    return api.post("/api/v1/rounds", {"table_id": table_id, "ante": 100}, auth, new_key())


# ---------------------------------------------------------------- the code


def test_a_launch_code_is_exchanged_once(capi: Api, gambler: Player) -> None:
    created = launch_body(capi, gambler, table_id="classic", language="pt")
    code = created["launch_code"]
    assert created["launch_url"] == f"/play/?table=classic&lang=pt#code={code}"
    first = exchange(capi, code)
    assert first.status_code == 200, first.get_json()
    session = first.get_json()
    assert session["token"].startswith("gs_") and session["token"] != code
    assert (session["id"], session["session_id"]) == (created["id"], created["id"])
    assert session["player_id"] == gambler.id
    assert (session["table_id"], session["language"]) == ("classic", "pt")
    assert session["expires_at"] == created["expires_at"]
    assert first.headers["Cache-Control"] == "no-store"
    # The second exchange of the same code is refused, and changes nothing.
    again = assert_problem(exchange(capi, code), 401, "unauthenticated")
    assert "token" not in again
    current = capi.get("/api/v1/sessions/current", auth=bearer(session["token"]))
    assert current.status_code == 200 and current.get_json()["language"] == "pt"


def test_a_launch_code_lasts_two_minutes(capi: Api, gambler: Player, clock: Clock) -> None:
    late = launch_body(capi, gambler)
    in_time = launch_body(capi, gambler)
    clock.advance(seconds=119)
    assert exchange(capi, in_time["launch_code"]).status_code == 200
    clock.advance(seconds=1)
    assert_problem(exchange(capi, late["launch_code"]), 401, "unauthenticated")


@pytest.mark.parametrize(
    "code",
    ["lc_unknown", "gs_" + "x" * 43, "not-a-code", "lc_" + "x" * 600],
    ids=["unknown", "token-shaped", "no-prefix", "huge"],
)
def test_anything_but_a_live_code_is_401(capi: Api, gambler: Player, code: str) -> None:
    response = exchange(capi, code)
    if len(code) > 512:
        assert_problem(response, 422, "validation_failed")
    else:
        assert_problem(response, 401, "unauthenticated")


def test_a_launch_code_is_no_bearer_token(capi: Api, gambler: Player) -> None:
    created = launch_body(capi, gambler)
    response = capi.get("/api/v1/sessions/current", auth=bearer(created["launch_code"]))
    assert_problem(response, 401, "unauthenticated")


def test_a_revoked_sessions_code_opens_nothing(capi: Api, gambler: Player) -> None:
    created = launch_body(capi, gambler)
    gone = capi.client.delete(f"/api/v1/sessions/{created['id']}", headers=capi.operator_auth)
    assert gone.status_code == 204
    assert_problem(exchange(capi, created["launch_code"]), 401, "unauthenticated")


@pytest.mark.parametrize("language", ["fr", "EN", "", "en-GB", 1])
def test_the_language_is_one_the_client_speaks(capi: Api, gambler: Player, language: Any) -> None:
    path = f"/api/v1/players/{gambler.id}/sessions"
    response = capi.post(path, {"language": language}, auth=capi.operator_auth)
    problem = assert_problem(response, 422, "validation_failed")
    assert set(problem["errors"]) == {"language"}


@pytest.mark.parametrize("language", ["en", "pt", "nl", "ca", "it", "el"])
def test_every_client_language_goes_into_the_launch_url(
    capi: Api, gambler: Player, language: str
) -> None:
    created = launch_body(capi, gambler, language=language)
    assert created["language"] == language
    assert created["launch_url"] == f"/play/?lang={language}#code={created['launch_code']}"


def test_two_exchanges_of_one_code_at_once_give_one_token(
    clocked_app: Flask, capi: Api, gambler: Player
) -> None:
    created = launch_body(capi, gambler)
    start = threading.Barrier(2)
    statuses: list[int] = []

    def attempt() -> None:
        client = clocked_app.test_client()
        start.wait()
        statuses.append(client.post(EXCHANGE, json={"code": created["launch_code"]}).status_code)

    threads = [threading.Thread(target=attempt) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200, 401]


# ---------------------------------------------------------------- throttling


def test_bad_codes_are_throttled_before_the_database(database_url: str, gambler: Player) -> None:
    app = create_app(
        make_config(database_url, RATELIMIT_ENABLED=True, AUTH_FAILURE_LIMIT="3 per minute")
    )
    engine = app.extensions[EXTENSION_KEY].engine
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    try:
        client = app.test_client()
        answers = [client.post(EXCHANGE, json={"code": f"lc_guess-{i}"}) for i in range(3)]
        assert [a.status_code for a in answers] == [401, 401, 401]
        assert statements  # each refusal looked the code up
        statements.clear()
        for i in range(3):
            limited = client.post(EXCHANGE, json={"code": f"lc_more-{i}"})
            assert_problem(limited, 429, "rate_limited")
            assert int(limited.headers["Retry-After"]) > 0
        assert statements == []
    finally:
        engine.dispose()


# ---------------------------------------------------------------- listing and revoking


def test_a_players_live_sessions_are_listed(capi: Api, gambler: Player, clock: Clock) -> None:
    path = f"/api/v1/players/{gambler.id}/sessions"
    short, _ = launched(capi, gambler, ttl_seconds=60)
    revoked, _ = launched(capi, gambler)
    capi.client.delete(f"/api/v1/sessions/{revoked['id']}", headers=capi.operator_auth)
    clock.advance(seconds=1)
    unused = launch_body(capi, gambler, table_id="classic", language="nl")
    other = capi.create_player()
    launch_body(capi, other)
    listed = capi.get(path, auth=capi.operator_auth)
    assert listed.status_code == 200
    items = listed.get_json()["items"]
    assert [item["id"] for item in items] == [unused["id"], short["id"]]  # newest first
    assert items[0]["exchanged_at"] is None and items[1]["exchanged_at"] is not None
    assert (items[0]["table_id"], items[0]["language"]) == ("classic", "nl")
    assert "launch_code" not in items[0] and "token" not in items[0]
    clock.advance(seconds=60)  # the short one expires
    assert [i["id"] for i in capi.get(path, auth=capi.operator_auth).get_json()["items"]] == [
        unused["id"]
    ]
    assert_problem(
        capi.get(f"/api/v1/players/{MISSING}/sessions", auth=capi.operator_auth),
        404,
        "player_not_found",
    )
    assert_problem(capi.get(path, auth=gambler.auth), 403, "forbidden")


def test_revoking_all_of_a_players_sessions(capi: Api, gambler: Player) -> None:
    path = f"/api/v1/players/{gambler.id}/sessions"
    _, first = launched(capi, gambler)
    _, second = launched(capi, gambler, table_id="classic")
    unused = launch_body(capi, gambler)
    other = capi.create_player()
    _, others = launched(capi, other)
    answer = capi.client.delete(path, headers=capi.operator_auth)
    assert answer.status_code == 200 and answer.get_json() == {"revoked": 3}
    wallets = f"/api/v1/players/{gambler.id}/wallets"
    for auth in (first, second):
        assert_problem(capi.get(wallets, auth=auth), 401, "unauthenticated")
    assert_problem(exchange(capi, unused["launch_code"]), 401, "unauthenticated")
    # The player's own token and another player's session are untouched.
    assert capi.get(wallets, auth=gambler.auth).status_code == 200
    assert capi.get("/api/v1/sessions/current", auth=others).status_code == 200
    assert capi.get(path, auth=capi.operator_auth).get_json() == {"items": []}
    again = capi.client.delete(path, headers=capi.operator_auth)
    assert again.get_json() == {"revoked": 0}
    missing = capi.client.delete(f"/api/v1/players/{MISSING}/sessions", headers=capi.operator_auth)
    assert_problem(missing, 404, "player_not_found")


def test_the_holder_logs_out(capi: Api, gambler: Player) -> None:
    _, auth = launched(capi, gambler)
    _, kept = launched(capi, gambler)
    ended = capi.client.delete("/api/v1/sessions/current", headers=auth)
    assert ended.status_code == 204 and ended.get_data() == b""
    assert_problem(capi.get("/api/v1/sessions/current", auth=auth), 401, "unauthenticated")
    assert_problem(bet(capi, auth), 401, "unauthenticated")
    assert capi.get("/api/v1/sessions/current", auth=kept).status_code == 200
    # Only a session's token logs out: the player's own token has no session to end.
    own = capi.client.delete("/api/v1/sessions/current", headers=gambler.auth)
    assert_problem(own, 404, "session_not_found")
    operator = capi.client.delete("/api/v1/sessions/current", headers=capi.operator_auth)
    assert_problem(operator, 403, "forbidden")


def test_reissuing_the_players_token_may_end_its_sessions(capi: Api, gambler: Player) -> None:
    path = f"/api/v1/players/{gambler.id}/token"
    _, kept = launched(capi, gambler)
    left_alone = capi.post(path, {}, auth=capi.operator_auth)
    assert left_alone.status_code == 201 and left_alone.get_json()["sessions_revoked"] == 0
    assert capi.get("/api/v1/sessions/current", auth=kept).status_code == 200
    ended = capi.post(path, {"revoke_sessions": True}, auth=capi.operator_auth)
    assert ended.status_code == 201, ended.get_json()
    assert ended.get_json()["sessions_revoked"] == 1
    assert_problem(capi.get("/api/v1/sessions/current", auth=kept), 401, "unauthenticated")
    new_token = bearer(ended.get_json()["token"])
    assert capi.get(f"/api/v1/players/{gambler.id}", auth=new_token).status_code == 200
    wrong = capi.post(path, {"revoke_sessions": "yes"}, auth=capi.operator_auth)
    assert_problem(wrong, 422, "validation_failed")


# ---------------------------------------------------------------- the session's table


def test_a_session_bets_at_its_table_only(capi: Api, gambler: Player, database_url: str) -> None:
    capi.create_table("other", min_ante=10, bet_increment=10)
    _, at_classic = launched(capi, gambler, table_id="classic")
    before = capi.balance(gambler)
    refused = assert_problem(bet(capi, at_classic, "other"), 403, "session_table_mismatch")
    assert "classic" in refused["detail"]
    assert capi.balance(gambler) == before
    assert capi.get("/api/v1/rounds", auth=gambler.auth).get_json()["items"] == []
    steer_next_deal(capi, database_url, gambler, lambda deal: not deal.is_tie)
    assert bet(capi, at_classic, "classic").status_code == 201
    # A session launched for no table, and the player's own token, bet anywhere.
    _, anywhere = launched(capi, gambler)
    steer_next_deal(capi, database_url, gambler, lambda deal: not deal.is_tie)
    assert bet(capi, anywhere, "other").status_code == 201
    steer_next_deal(capi, database_url, gambler, lambda deal: not deal.is_tie)
    assert bet(capi, gambler.auth, "other").status_code == 201
