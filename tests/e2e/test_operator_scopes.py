"""Issue 19, point 7: least-privilege operator tokens, on both databases.

``admin`` does what every operator token did before; ``support`` reads players, rounds,
sessions and protection, protects players and revokes sessions, and moves no money;
``auditor`` reads the ledger, its export and checkpoints, reports and rounds. The spec says
each operation's scopes (``x-scopes``); every operation is called here with each scope's
token, configured (``SCOPE:TOKEN``) and stored (``casino create-operator-token --scope``),
and refused with 403 ``insufficient_scope`` exactly where the spec says.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

import config
from casino import create_app
from casino.api.database import EXTENSION_KEY
from casino.service.auth import SCOPES, create_operator_token, split_scope

from .helpers import OPERATOR_TOKEN, Api, Player, assert_problem, make_config, new_key
from .test_openapi_contract import operations, served_spec

SUPPORT_TOKEN = "support-" + secrets.token_urlsafe(24)
AUDITOR_TOKEN = "auditor-" + secrets.token_urlsafe(24)
CONFIGURED = [OPERATOR_TOKEN, f"support:{SUPPORT_TOKEN}", f"auditor:{AUDITOR_TOKEN}"]
MISSING = "00000000-0000-4000-8000-000000000000"


@pytest.fixture
def scoped_app(database_url: str) -> Iterator[Flask]:
    application = create_app(make_config(database_url, CASINO_OPERATOR_TOKENS=CONFIGURED))
    yield application
    application.extensions[EXTENSION_KEY].engine.dispose()


@pytest.fixture
def sapi(scoped_app: Flask) -> Api:
    return Api(scoped_app.test_client())


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def stored_token(scoped_app: Flask, scope: str) -> str:
    database = scoped_app.extensions[EXTENSION_KEY]
    with database.unit_of_work("default") as uow:
        token = create_operator_token(uow, f"{scope} desk", scope=scope)
        uow.commit()
    return token


@pytest.fixture
def world(sapi: Api) -> Player:
    sapi.create_table("classic")
    someone = sapi.create_player()
    sapi.deposit(someone, 100_000)
    return someone


# ---------------------------------------------------------------- every operation


@pytest.mark.parametrize("kind", ["configured", "stored"])
def test_every_operation_takes_exactly_the_scopes_the_spec_declares(
    scoped_app: Flask, sapi: Api, world: Player, kind: str
) -> None:
    spec = served_spec(sapi)
    round_id = sapi.bet(world).get_json()["id"]
    ids = {
        "player_id": world.id,
        "round_id": round_id,
        "table_id": "classic",
        "seq": 1,
        "tx_id": 1,
        "session_id": MISSING,
        "index": 1,
        "operator_id": "default",
        "transaction_id": "00000000-0000-4000-8000-000000000000",
    }
    if kind == "configured":
        tokens = {"admin": OPERATOR_TOKEN, "support": SUPPORT_TOKEN, "auditor": AUDITOR_TOKEN}
    else:
        tokens = {scope: stored_token(scoped_app, scope) for scope in SCOPES}
    operator_operations = [
        (path, method, operation)
        for path, method, operation in operations(spec)
        if "operator" in operation.get("x-roles", [])
    ]
    assert len(operator_operations) >= 35
    seen: dict[str, set[str]] = {scope: set() for scope in SCOPES}
    # The narrow scopes first: a refusal changes nothing, so admin then meets the same state.
    for path, method, operation in operator_operations:
        declared = operation["x-scopes"]
        assert "admin" in declared and set(declared) <= set(SCOPES), operation["operationId"]
        sentence = "Operator token scopes: " + ", ".join(f"`{s}`" for s in declared) + "."
        assert sentence in operation["description"], operation["operationId"]
        for scope in ("auditor", "support", "admin"):
            headers = {**bearer(tokens[scope]), "Idempotency-Key": new_key()}
            answer = sapi.client.open(
                path.format(**ids), method=method.upper(), json={}, headers=headers
            )
            body = answer.get_json(silent=True) or {}
            refused = answer.status_code == 403 and body.get("code") == "insufficient_scope"
            assert refused == (scope not in declared), (
                operation["operationId"],
                scope,
                answer.status_code,
                body,
            )
            assert answer.status_code != 401, (operation["operationId"], scope)
            if not refused:
                seen[scope].add(operation["operationId"])
            answer.close()
    # What each scope is for, named: the operations it may call.
    assert {"getPlayer", "findPlayers", "listRounds", "getRound", "listGameSessions"} <= seen[
        "support"
    ]
    assert {"setLimits", "excludePlayer", "suspendPlayer", "revokePlayerSessions"} <= seen[
        "support"
    ]
    assert not {"deposit", "withdraw", "createGameSession", "exportLedger"} & seen["support"]
    assert {"listLedgerTransactions", "exportLedger", "listCheckpoints", "getTableReport"} <= (
        seen["auditor"]
    )
    assert {"listRounds", "getRound"} <= seen["auditor"]
    assert (
        not {"getPlayer", "setLimits", "deposit", "createPlayer", "listGameSessions"}
        & seen["auditor"]
    )
    assert seen["admin"] == {op["operationId"] for _, _, op in operator_operations}


def test_support_protects_and_revokes_but_moves_no_money(sapi: Api, world: Player) -> None:
    support = bearer(SUPPORT_TOKEN)
    base = f"/api/v1/players/{world.id}"
    money = {"currency": "EUR", "amount": 100, "reference": "support"}
    for kind in ("deposits", "withdrawals"):
        refused = sapi.post(f"{base}/{kind}", money, auth=support, key=new_key())
        assert_problem(refused, 403, "insufficient_scope")
    assert sapi.balance(world) == 100_000
    assert_problem(sapi.post(f"{base}/sessions", {}, auth=support), 403, "insufficient_scope")
    launched = sapi.post(f"{base}/sessions", {}, auth=sapi.operator_auth)
    assert launched.status_code == 201
    listed = sapi.get(f"{base}/sessions", auth=support).get_json()["items"]
    assert [item["id"] for item in listed] == [launched.get_json()["id"]]
    assert sapi.client.delete(f"{base}/sessions", headers=support).get_json() == {"revoked": 1}
    limits = {"currency": "EUR", "loss": {"day": 1_000}}
    assert sapi.put(f"{base}/limits", limits, auth=support).status_code == 200
    suspended = sapi.post(f"{base}/suspend", {"reason": "support call"}, auth=support)
    assert suspended.status_code == 200, suspended.get_json()
    assert_problem(sapi.bet(world), 403, "account_suspended")


def test_an_auditor_reads_the_ledger_and_nothing_else(sapi: Api, world: Player) -> None:
    auditor = bearer(AUDITOR_TOKEN)
    assert sapi.get("/api/v1/ledger/transactions", auth=auditor).status_code == 200
    assert sapi.get("/api/v1/reports/tables", auth=auditor).status_code == 200
    export = sapi.get("/api/v1/ledger/export", auth=auditor)
    assert export.status_code == 200
    export.close()
    assert sapi.get("/api/v1/rounds", auth=auditor).status_code == 200
    for path in (f"/api/v1/players/{world.id}", f"/api/v1/players/{world.id}/limits"):
        assert_problem(sapi.get(path, auth=auditor), 403, "insufficient_scope")
    created = sapi.post("/api/v1/players", {"external_ref": "by-auditor"}, auth=auditor)
    problem = assert_problem(created, 403, "insufficient_scope")
    assert "admin" in problem["detail"]


def test_metrics_need_an_admin_token(sapi: Api) -> None:
    assert sapi.get("/metrics", auth=sapi.operator_auth).status_code == 200
    for token in (SUPPORT_TOKEN, AUDITOR_TOKEN):
        assert_problem(sapi.get("/metrics", auth=bearer(token)), 403, "insufficient_scope")


def test_another_scope_cannot_replay_an_admins_answer(sapi: Api, world: Player) -> None:
    """The scope is checked before the Idempotency-Key's stored answer is looked up."""
    key = new_key()
    body = {"currency": "EUR", "amount": 100, "reference": f"r-{uuid.uuid4().hex[:6]}"}
    path = f"/api/v1/players/{world.id}/deposits"
    first = sapi.post(path, body, auth=sapi.operator_auth, key=key)
    assert first.status_code == 201
    assert_problem(
        sapi.post(path, body, auth=bearer(AUDITOR_TOKEN), key=key), 403, "insufficient_scope"
    )


# ---------------------------------------------------------------- configuration


def test_configured_tokens_take_a_scope_prefix() -> None:
    assert split_scope("plain-token") == ("admin", "plain-token")
    assert split_scope("support:abc") == ("support", "abc")
    assert split_scope("auditor:abc") == ("auditor", "abc")
    assert split_scope("admin:abc") == ("admin", "abc")
    for bad in ("suport:abc", "auditor:", "Admin:abc", "x:y"):
        with pytest.raises(ValueError):
            split_scope(bad)


def test_the_environment_names_scopes(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setenv("CASINO_ENV", "testing")
    monkeypatch.setenv("CASINO_TEST_DATABASE_URL", f"sqlite:///{tmp_path / 'scopes.db'}")
    monkeypatch.setenv("CASINO_OPERATOR_TOKENS", "plain-one, auditor:reader-two")
    app = create_app()
    try:
        assert app.config["CASINO_OPERATOR_TOKENS"] == ["plain-one", "auditor:reader-two"]
    finally:
        app.extensions[EXTENSION_KEY].engine.dispose()
    # A typo in a scope stops the start-up instead of making an admin token; the message
    # names the entry's position, never the token.
    monkeypatch.setenv("CASINO_OPERATOR_TOKENS", "plain-one, auditr:secret-value-here")
    with pytest.raises(config.ConfigError, match="token 2") as error:
        create_app()
    assert "secret-value-here" not in str(error.value)


def test_production_checks_the_token_behind_the_scope(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.setenv("RATELIMIT_STORAGE_URI", "memory://")
    monkeypatch.setenv("CASINO_SIGNING_KEY", "ab" * 32)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'prod.db'}")
    strong = secrets.token_urlsafe(32)
    # "admin" and "auditor" are placeholder words inside a token, not in front of it.
    monkeypatch.setenv("CASINO_OPERATOR_TOKENS", f"admin:{strong},auditor:{strong[::-1]}")
    app = create_app("production")
    app.extensions[EXTENSION_KEY].engine.dispose()
    monkeypatch.setenv("CASINO_OPERATOR_TOKENS", f"{strong},auditor:short")
    with pytest.raises(config.ConfigError, match="token 2 is guessable"):
        create_app("production")
