"""Game sessions (the launch flow) through HTTP: issue, scope, expiry, revocation, hashing.

Time is the app's injected clock (``CASINO_CLOCK``), moved forward by the tests: nothing sleeps.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import create_engine, select

from casino import create_app
from casino.api.database import EXTENSION_KEY
from casino.store.models import GameSession

from .helpers import Api, Player, assert_problem, make_config, new_key, steer_next_deal

MISSING = "00000000-0000-4000-8000-000000000000"
START = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)


class FakeClock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@dataclass
class Launch:
    id: str
    token: str
    body: dict[str, Any]

    @property
    def auth(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(START)


@pytest.fixture
def clocked_app(database_url: str, clock: FakeClock) -> Iterator[Flask]:
    application = create_app(make_config(database_url, CASINO_CLOCK=clock))
    yield application
    application.extensions[EXTENSION_KEY].engine.dispose()


@pytest.fixture
def api(clocked_app: Flask) -> Api:  # overrides the e2e api: the clocked app
    return Api(clocked_app.test_client())


@pytest.fixture
def funded(api: Api) -> Player:
    api.create_table("classic")
    someone = api.create_player()
    api.deposit(someone, 100_000)
    return someone


def launch(api: Api, player: Player, **body: Any) -> Launch:
    """A launch, and the exchange of its code as the game client makes it."""
    response = api.post(f"/api/v1/players/{player.id}/sessions", body, auth=api.operator_auth)
    assert response.status_code == 201, response.get_json()
    data = response.get_json()
    exchanged = api.post("/api/v1/sessions/exchange", {"code": data["launch_code"]})
    assert exchanged.status_code == 200, exchanged.get_json()
    return Launch(data["id"], exchanged.get_json()["token"], data)


# ---------------------------------------------------------------- contract


def test_session_operations_answer_as_the_spec_says(api: Api, funded: Player) -> None:
    """Every answer of the three operations, success and refusal, matches the served spec."""
    from .test_openapi_contract import Contract, served_spec

    contract = Contract(served_spec(api))
    check = contract.check
    path = f"/api/v1/players/{funded.id}/sessions"
    op = api.operator_auth
    created = check("createGameSession", api.post(path, {"table_id": "classic"}, auth=op))
    assert created["launch_code"].startswith("lc_") and "token" not in created
    exchange = "/api/v1/sessions/exchange"
    session = check("exchangeLaunchCode", api.post(exchange, {"code": created["launch_code"]}))
    assert session["token"].startswith("gs_") and session["session_id"] == created["id"]
    bare = check("createGameSession", api.post(path, auth=op))
    assert bare["table_id"] is None
    bare_token = api.post(exchange, {"code": bare["launch_code"]}).get_json()["token"]
    auth = {"Authorization": f"Bearer {session['token']}"}
    current = check("getCurrentGameSession", api.get("/api/v1/sessions/current", auth=auth))
    assert current["id"] == created["id"]
    listed = check("listGameSessions", api.get(path, auth=op))
    assert {item["id"] for item in listed["items"]} == {created["id"], bare["id"]}
    assert (
        check("revokeGameSession", api.client.delete(f"/api/v1/sessions/{bare['id']}", headers=op))
        is None
    )
    spare = check("createGameSession", api.post(path, auth=op))
    spare_token = api.post(exchange, {"code": spare["launch_code"]}).get_json()["token"]
    spare_auth = {"Authorization": f"Bearer {spare_token}"}
    ended = api.client.delete("/api/v1/sessions/current", headers=spare_auth)
    assert check("endCurrentGameSession", ended) is None

    refusals = {
        "createGameSession": [
            api.post(path, {"ttl_seconds": 5}, auth=op),
            api.post(f"/api/v1/players/{MISSING}/sessions", {}, auth=op),
            api.post(path, {"table_id": "nowhere"}, auth=op),
            api.post(path, {}, auth=auth),
            api.post(path, {}),
        ],
        "getCurrentGameSession": [
            api.get("/api/v1/sessions/current", auth=funded.auth),
            api.get("/api/v1/sessions/current", auth=op),
            api.get("/api/v1/sessions/current"),
        ],
        "revokeGameSession": [
            api.client.delete(f"/api/v1/sessions/{MISSING}", headers=op),
            api.client.delete(f"/api/v1/sessions/{created['id']}", headers=auth),
        ],
        "exchangeLaunchCode": [
            api.post(exchange, {"code": created["launch_code"]}),  # spent
            api.post(exchange, {"code": "lc_unknown"}),
            api.post(exchange, {}),
        ],
        "listGameSessions": [
            api.get(f"/api/v1/players/{MISSING}/sessions", auth=op),
            api.get(path, auth=auth),
        ],
        "revokePlayerSessions": [
            api.client.delete(f"/api/v1/players/{MISSING}/sessions", headers=op),
            api.client.delete(path, headers=auth),
        ],
        "endCurrentGameSession": [
            api.client.delete("/api/v1/sessions/current", headers=funded.auth),
            api.client.delete("/api/v1/sessions/current", headers=op),
            api.client.delete("/api/v1/sessions/current", headers=spare_auth),
        ],
    }
    for operation_id, answers in refusals.items():
        for response in answers:
            assert response.status_code >= 400
            assert check(operation_id, response)["code"]
    statuses = {(o, s) for o, s in contract.checked}
    assert {("createGameSession", 201), ("getCurrentGameSession", 200)} <= statuses
    assert {("revokeGameSession", 204), ("endCurrentGameSession", 204)} <= statuses
    assert {("exchangeLaunchCode", 200), ("exchangeLaunchCode", 401)} <= statuses
    revoked_all = check("revokePlayerSessions", api.client.delete(path, headers=op))
    assert revoked_all == {"revoked": 1}  # created's; bare and spare had ended already
    # The revoked session is refused from then on, as the spec declares too.
    gone = api.get("/api/v1/sessions/current", auth={"Authorization": f"Bearer {bare_token}"})
    assert check("getCurrentGameSession", gone)["code"] == "unauthenticated"


# ---------------------------------------------------------------- issuing


def test_launch_answers_a_launch_code_expiry_and_launch_url(api: Api, funded: Player) -> None:
    session = launch(api, funded, table_id="classic")
    body = session.body
    assert set(body) >= {"id", "launch_code", "launch_code_expires_at", "expires_at"}
    assert "token" not in body  # the token is made by the exchange, for the client only
    assert body["player_id"] == funded.id and body["table_id"] == "classic"
    assert session.token.startswith("gs_") and len(session.token) >= 40
    code = body["launch_code"]
    assert code.startswith("lc_") and len(code) >= 40
    # The code rides in the fragment, which a browser never sends to a server.
    assert body["launch_url"] == f"/play/?table=classic#code={code}"
    assert session.token not in body["launch_url"]
    assert datetime.fromisoformat(body["expires_at"]) == START + timedelta(hours=8)
    assert datetime.fromisoformat(body["launch_code_expires_at"]) == START + timedelta(seconds=120)


def test_launch_without_table_and_with_a_lifetime(api: Api, funded: Player) -> None:
    session = launch(api, funded, ttl_seconds=600)
    assert session.body["table_id"] is None
    assert session.body["launch_url"] == f"/play/#code={session.body['launch_code']}"
    assert datetime.fromisoformat(session.body["expires_at"]) == START + timedelta(minutes=10)
    longest = launch(api, funded, ttl_seconds=24 * 3600)
    assert datetime.fromisoformat(longest.body["expires_at"]) == START + timedelta(days=1)
    empty = api.post(f"/api/v1/players/{funded.id}/sessions", auth=api.operator_auth)
    assert empty.status_code == 201


@pytest.mark.parametrize(
    "body",
    [
        {"ttl_seconds": 24 * 3600 + 1},
        {"ttl_seconds": 59},
        {"ttl_seconds": 0},
        {"ttl_seconds": "600"},
        {"ttl_seconds": 600.0},
        {"table_id": "Not A Slug"},
        {"player_id": MISSING},
    ],
)
def test_launch_validation(api: Api, funded: Player, body: dict[str, Any]) -> None:
    response = api.post(f"/api/v1/players/{funded.id}/sessions", body, auth=api.operator_auth)
    problem = assert_problem(response, 422, "validation_failed")
    assert set(problem["errors"]) == set(body)


def test_launch_for_unknown_player_or_table_is_404(api: Api, funded: Player) -> None:
    unknown_player = api.post(f"/api/v1/players/{MISSING}/sessions", {}, auth=api.operator_auth)
    assert_problem(unknown_player, 404, "player_not_found")
    unknown_table = api.post(
        f"/api/v1/players/{funded.id}/sessions", {"table_id": "nowhere"}, auth=api.operator_auth
    )
    assert_problem(unknown_table, 404, "table_not_found")


def test_only_operators_launch(api: Api, funded: Player) -> None:
    session = launch(api, funded)
    for auth in (funded.auth, session.auth):
        response = api.post(f"/api/v1/players/{funded.id}/sessions", {}, auth=auth)
        assert_problem(response, 403, "forbidden")


# ---------------------------------------------------------------- hashing


def test_only_the_tokens_hash_is_stored(api: Api, funded: Player, database_url: str) -> None:
    session = launch(api, funded, table_id="classic")
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            rows = [dict(row) for row in connection.execute(select(GameSession)).mappings()]
    finally:
        engine.dispose()
    assert len(rows) == 1
    (row,) = rows
    assert row["token_hash"] == hashlib.sha256(session.token.encode()).hexdigest()
    code = session.body["launch_code"]
    assert row["launch_code_hash"] is None  # spent by the exchange
    assert all(session.token not in str(v) and code not in str(v) for v in row.values())
    # Nor does the API ever show it again.
    current = api.get("/api/v1/sessions/current", auth=session.auth)
    assert current.status_code == 200
    assert session.token not in current.get_data(as_text=True)
    # A token whose hash is stored, but presented as its hash, is not a token.
    as_hash = {"Authorization": f"Bearer gs_{row['token_hash']}"}
    assert_problem(api.get("/api/v1/sessions/current", auth=as_hash), 401, "unauthenticated")


# ---------------------------------------------------------------- scope


def test_session_token_plays_on_the_players_own_routes(
    api: Api, funded: Player, database_url: str
) -> None:
    session = launch(api, funded, table_id="classic")
    auth = session.auth
    base = f"/api/v1/players/{funded.id}"
    current = api.get("/api/v1/sessions/current", auth=auth).get_json()
    assert current == {
        "id": session.id,
        "player_id": funded.id,
        "table_id": "classic",
        "language": None,
        "expires_at": session.body["expires_at"],
    }
    assert api.get(base, auth=auth).status_code == 200
    assert api.get(f"{base}/wallets", auth=auth).get_json() == [
        {"currency": "EUR", "balance": 100_000}
    ]
    assert api.get(f"{base}/transactions", auth=auth).status_code == 200
    assert api.get("/api/v1/tables/classic", auth=auth).status_code == 200
    assert api.get(f"{base}/seeds", auth=auth).status_code == 200

    # A tie: bet, decide, recall; the wallet moves as with the player's own token.
    steer_next_deal(api, database_url, funded, lambda deal: deal.is_tie)
    bet = api.post("/api/v1/rounds", {"table_id": "classic", "ante": 1000}, auth, new_key())
    assert bet.status_code == 201, bet.get_json()
    round_id = bet.get_json()["id"]
    assert bet.get_json()["status"] == "awaiting_decision"
    decided = api.post(
        f"/api/v1/rounds/{round_id}/decision", {"action": "surrender"}, auth, new_key()
    )
    assert decided.status_code == 200 and decided.get_json()["status"] == "settled"
    assert api.get(f"/api/v1/rounds/{round_id}", auth=auth).status_code == 200
    assert api.get("/api/v1/rounds", auth=auth).get_json()["items"][0]["id"] == round_id
    assert api.balance(funded) == 100_000 - 500

    seeds = api.put(f"{base}/seeds/client", {"client_seed": "mine"}, auth=auth)
    assert seeds.status_code == 200
    rotated = api.post(f"{base}/seeds/rotate", auth=auth)
    assert rotated.status_code == 200
    assert api.get(f"/api/v1/rounds/{round_id}", auth=auth).get_json()["fairness"]["server_seed"]


def test_session_and_player_token_are_one_idempotency_caller(api: Api, funded: Player) -> None:
    session = launch(api, funded, table_id="classic")
    key = new_key()
    body = {"table_id": "classic", "ante": 100}
    first = api.post("/api/v1/rounds", body, session.auth, key)
    again = api.post("/api/v1/rounds", body, funded.auth, key)
    assert first.status_code == again.status_code == 201
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert again.get_json()["id"] == first.get_json()["id"]


def test_session_token_is_refused_on_operator_routes_and_token_reissue(
    api: Api, funded: Player
) -> None:
    session = launch(api, funded)
    auth = session.auth
    money = {"currency": "EUR", "amount": 100, "reference": "x"}
    refused = [
        api.post(f"/api/v1/players/{funded.id}/token", auth=auth),
        api.post(f"/api/v1/players/{funded.id}/sessions", {}, auth=auth),
        api.client.delete(f"/api/v1/sessions/{session.id}", headers=auth),
        api.post("/api/v1/players", {"external_ref": "new"}, auth=auth),
        api.post(f"/api/v1/players/{funded.id}/deposits", money, auth, new_key()),
        api.post(f"/api/v1/players/{funded.id}/withdrawals", money, auth, new_key()),
        api.post("/api/v1/tables", {"id": "mine", "currency": "EUR"}, auth=auth),
        api.patch("/api/v1/tables/classic", {"active": False}, auth=auth),
    ]
    for response in refused:
        assert_problem(response, 403, "forbidden")
    # Still usable, and nothing moved.
    assert api.get("/api/v1/sessions/current", auth=auth).status_code == 200
    assert api.balance(funded) == 100_000
    assert api.get("/api/v1/tables/classic", auth=auth).get_json()["active"] is True


def _limits(api: Api, player: Player, body: dict[str, Any], auth: dict[str, str]) -> Any:
    return api.put(f"/api/v1/players/{player.id}/limits", body, auth=auth)


def test_session_token_may_protect_the_player(api: Api, funded: Player) -> None:
    """Reading and lowering limits, reality checks, statements, protection reads and an
    exclusion: what protects the player is one click away inside the game."""
    session = launch(api, funded, table_id="classic")
    auth = session.auth
    base = f"/api/v1/players/{funded.id}"
    first = _limits(
        api,
        funded,
        {"currency": "EUR", "deposit": {"day": 5000}, "session_minutes": 120},
        auth,
    )
    assert first.status_code == 200, first.get_json()
    lower = _limits(
        api,
        funded,
        {"currency": "EUR", "deposit": {"day": 4000}, "loss": {"week": 900}},
        auth,
    )
    assert lower.status_code == 200, lower.get_json()
    money = {(m["limit"], m["period"]): m for m in lower.get_json()["limits"]["money"]}
    assert money[("deposit", "day")]["amount"] == 4000
    assert money[("loss", "week")]["amount"] == 900
    assert money[("deposit", "day")]["pending"] is None
    # Asking for what is in force, or lowering a time limit, is fine too.
    same = _limits(api, funded, {"session_minutes": 120, "reality_check_minutes": 20}, auth)
    assert same.status_code == 200, same.get_json()
    assert api.get(f"{base}/limits", auth=auth).status_code == 200
    assert api.get(f"{base}/limits/history", auth=auth).status_code == 200
    assert api.get(f"{base}/protection", auth=auth).status_code == 200
    acknowledged = api.post(f"{base}/reality-check", auth=auth)
    assert acknowledged.status_code == 200, acknowledged.get_json()
    span = "from=2030-01-01T00:00:00Z&to=2030-01-03T00:00:00Z"
    assert api.get(f"{base}/statement?{span}", auth=auth).status_code == 200
    excluded = api.post(f"{base}/exclusions", {"kind": "cool_off", "days": 1}, auth=auth)
    assert excluded.status_code == 201, excluded.get_json()
    assert_problem(
        api.post("/api/v1/rounds", {"table_id": "classic", "ante": 100}, auth, new_key()),
        403,
        "cooling_off",
    )


@pytest.mark.parametrize(
    "body",
    [
        {"currency": "EUR", "deposit": {"day": 6000}},  # a higher money limit
        {"currency": "EUR", "deposit": {"day": None}},  # a removal
        {"currency": "EUR", "deposit": {"day": 1000}, "loss": {"day": 2001}},  # mixed
        {"session_minutes": 121},  # a longer session
        {"reality_check_minutes": None},  # no more reality checks
    ],
)
def test_session_token_may_not_raise_or_remove_a_limit(
    api: Api, funded: Player, body: dict[str, Any]
) -> None:
    session = launch(api, funded, table_id="classic")
    base = f"/api/v1/players/{funded.id}"
    start = {
        "currency": "EUR",
        "deposit": {"day": 5000},
        "loss": {"day": 2000},
        "session_minutes": 120,
        "reality_check_minutes": 30,
    }
    assert _limits(api, funded, start, funded.auth).status_code == 200
    before = api.get(f"{base}/limits", auth=funded.auth).get_json()
    history = api.get(f"{base}/limits/history", auth=funded.auth).get_json()

    problem = assert_problem(_limits(api, funded, body, session.auth), 403, "forbidden")
    assert "lower" in problem["detail"] and "player's own token" in problem["detail"]
    # Nothing changed, not even the lower limit asked for alongside.
    assert api.get(f"{base}/limits", auth=funded.auth).get_json() == before
    assert api.get(f"{base}/limits/history", auth=funded.auth).get_json() == history

    # The player's own token (and the operator) may still ask for it, under the 24-hour rule.
    own = _limits(api, funded, body, funded.auth)
    assert own.status_code == 200, own.get_json()
    assert own.get_json()["changes"] and any(
        change["effective_at"] != change["requested_at"] for change in own.get_json()["changes"]
    )


def test_session_token_is_documented_as_refused_raising_limits(api: Api) -> None:
    operation = api.get("/api/v1/openapi.json").get_json()["paths"][
        "/api/v1/players/{player_id}/limits"
    ]["put"]
    assert "403" in operation["responses"]
    assert "game session" in operation["description"]


def test_session_token_sees_only_its_player(api: Api, funded: Player) -> None:
    other = api.create_player()
    session = launch(api, funded)
    for path in ("", "/wallets", "/transactions", "/seeds"):
        response = api.get(f"/api/v1/players/{other.id}{path}", auth=session.auth)
        assert_problem(response, 404, "player_not_found")


def test_current_session_needs_a_session_token(api: Api, funded: Player) -> None:
    assert_problem(api.get("/api/v1/sessions/current", auth=funded.auth), 404, "session_not_found")
    operator = api.get("/api/v1/sessions/current", auth=api.operator_auth)
    assert_problem(operator, 403, "forbidden")


# ---------------------------------------------------------------- expiry


def test_session_expires(api: Api, funded: Player, clock: FakeClock) -> None:
    session = launch(api, funded, ttl_seconds=60)
    wallets = f"/api/v1/players/{funded.id}/wallets"
    clock.advance(seconds=59)
    assert api.get(wallets, auth=session.auth).status_code == 200
    clock.advance(seconds=1)
    expired = api.get(wallets, auth=session.auth)
    problem = assert_problem(expired, 401, "session_expired")
    assert "expired" in problem["detail"]
    assert expired.headers["WWW-Authenticate"] == "Bearer"
    bet = api.post("/api/v1/rounds", {"table_id": "classic", "ante": 100}, session.auth, new_key())
    assert_problem(bet, 401, "session_expired")
    assert api.balance(funded) == 100_000
    # The player's own token and a fresh launch are unaffected.
    assert api.get(wallets, auth=funded.auth).status_code == 200
    assert api.get(wallets, auth=launch(api, funded).auth).status_code == 200


def test_a_default_session_lasts_eight_hours(api: Api, funded: Player, clock: FakeClock) -> None:
    session = launch(api, funded)
    clock.advance(hours=8, seconds=-1)
    assert api.get("/api/v1/sessions/current", auth=session.auth).status_code == 200
    clock.advance(seconds=1)
    assert_problem(api.get("/api/v1/sessions/current", auth=session.auth), 401, "session_expired")


# ---------------------------------------------------------------- revocation


def test_revocation_is_immediate(api: Api, funded: Player) -> None:
    session = launch(api, funded)
    kept = launch(api, funded)
    wallets = f"/api/v1/players/{funded.id}/wallets"
    assert api.get(wallets, auth=session.auth).status_code == 200
    revoked = api.client.delete(f"/api/v1/sessions/{session.id}", headers=api.operator_auth)
    assert revoked.status_code == 204 and revoked.get_data() == b""
    assert_problem(api.get(wallets, auth=session.auth), 401, "unauthenticated")
    bet = api.post("/api/v1/rounds", {"table_id": "classic", "ante": 100}, session.auth, new_key())
    assert_problem(bet, 401, "unauthenticated")
    # Revoking again changes nothing; the player's other credentials still work.
    again = api.client.delete(f"/api/v1/sessions/{session.id}", headers=api.operator_auth)
    assert again.status_code == 204
    assert api.get(wallets, auth=kept.auth).status_code == 200
    assert api.get(wallets, auth=funded.auth).status_code == 200


def test_revoking_an_unknown_session_is_404(api: Api, funded: Player) -> None:
    response = api.client.delete(f"/api/v1/sessions/{MISSING}", headers=api.operator_auth)
    assert_problem(response, 404, "session_not_found")
    not_a_uuid = api.client.delete("/api/v1/sessions/not-a-uuid", headers=api.operator_auth)
    assert_problem(not_a_uuid, 404, "not_found")
    assert_problem(
        api.client.delete(f"/api/v1/sessions/{MISSING}", headers=funded.auth), 403, "forbidden"
    )


def test_reissuing_the_player_token_leaves_sessions_alone(api: Api, funded: Player) -> None:
    """Sessions are their own credentials: the operator ends them one by one (DELETE)."""
    session = launch(api, funded)
    reissued = api.post(f"/api/v1/players/{funded.id}/token", auth=api.operator_auth)
    assert reissued.status_code == 201
    assert api.get("/api/v1/sessions/current", auth=session.auth).status_code == 200
