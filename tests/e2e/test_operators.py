"""Operators as tenants through the API (docs/operators.md): the platform creates, lists, reads
and changes operators; an operator's token acts for that operator only; the wallet secret is
write-only and a replaced one stays valid for the grace period; an inactive operator's
tokens are refused; an operator's currencies bound its tables and wallets."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from click.testing import CliRunner
from flask import Flask

from casino.api.database import EXTENSION_KEY
from casino.cli import main as cli
from casino.service.operators import SECRET_GRACE

from .helpers import Api, assert_problem, new_key

SECRET = "s3cret-of-acme-0123456789-abcdef"
NEW_SECRET = "n3w-secret-of-acme-0123456789-xyz"
SEAMLESS = {
    "mode": "seamless",
    "url": "https://wallet.acme.example/casino",
    "secret": SECRET,
    "timeout_ms": 2500,
}


def create(api: Api, operator_id: str = "acme", **body: Any) -> Any:
    payload = {"id": operator_id, "name": "Acme Casino", **body}
    return api.post("/api/v1/operators", payload, auth=api.platform_auth)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_platform_creates_an_operator_with_a_first_admin_token(api: Api) -> None:
    made = create(api, currencies=["GBP", "EUR"], wallet=SEAMLESS)
    assert made.status_code == 201, made.get_json()
    body = made.get_json()
    assert body["id"] == "acme" and body["currencies"] == ["EUR", "GBP"]
    assert body["wallet"] == {
        "mode": "seamless",
        "url": "https://wallet.acme.example/casino",
        "timeout_ms": 2500,
        "close_losing_round_with_zero_win": True,
        "secret_set": True,
        "previous_secret_valid_until": None,
    }
    assert SECRET not in made.get_data(as_text=True)
    token = body["token"]
    # The token is acme's: it creates acme's tables, and cannot manage operators.
    table = api.post("/api/v1/tables", {"id": "classic", "currency": "GBP"}, auth=bearer(token))
    assert table.status_code == 201, table.get_json()
    assert_problem(api.get("/api/v1/operators", auth=bearer(token)), 403, "forbidden")
    listed = api.get("/api/v1/operators", auth=api.platform_auth).get_json()["items"]
    assert [item["id"] for item in listed] == ["acme", "default"]
    default = next(item for item in listed if item["id"] == "default")
    assert default["currencies_from_deployment"] and default["wallet"]["mode"] == "transfer"
    assert_problem(create(api), 409, "duplicate_operator")


def test_a_retried_creation_with_its_key_answers_the_operator_without_the_token(
    api: Api,
) -> None:
    key = new_key()
    body = {"id": "acme", "name": "Acme Casino"}
    first = api.post("/api/v1/operators", body, auth=api.platform_auth, key=key)
    again = api.post("/api/v1/operators", body, auth=api.platform_auth, key=key)
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert first.get_json()["token"] and again.get_json()["token"] is None
    assert {**first.get_json(), "token": None} == again.get_json()


def test_platform_tokens_do_not_act_for_operators(api: Api) -> None:
    for path in ("/api/v1/tables", "/api/v1/ledger/transactions", "/api/v1/currencies"):
        assert_problem(api.get(path, auth=api.platform_auth), 403, "forbidden")
    refused = api.post("/api/v1/players", {"external_ref": "x"}, auth=api.platform_auth)
    assert_problem(refused, 403, "forbidden")


def test_bad_operators_are_refused_and_nothing_is_made(api: Api) -> None:
    cases = [
        ({"id": "Acme!", "name": "x"}, "validation_failed"),
        ({"id": "acme", "name": "   "}, "invalid_operator"),
        ({"id": "acme", "name": "x", "currencies": ["XAU"]}, "unsupported_currency"),
        ({"id": "acme", "name": "x", "currencies": ["JPY"]}, "unsupported_currency"),
        ({"id": "acme", "name": "x", "wallet": {"mode": "seamless"}}, "invalid_wallet_settings"),
        (
            {"id": "acme", "name": "x", "wallet": {**SEAMLESS, "url": "ftp://wallet"}},
            "invalid_wallet_settings",
        ),
        (
            {"id": "acme", "name": "x", "wallet": {**SEAMLESS, "secret": "short"}},
            "validation_failed",
        ),
    ]
    for body, code in cases:
        answer = api.post("/api/v1/operators", body, auth=api.platform_auth)
        assert_problem(answer, 422, code)
    ids = [
        o["id"] for o in api.get("/api/v1/operators", auth=api.platform_auth).get_json()["items"]
    ]
    assert ids == ["default"]
    assert_problem(
        api.get("/api/v1/operators/nobody", auth=api.platform_auth), 404, "operator_not_found"
    )


def test_a_new_secret_keeps_the_old_one_valid_for_the_grace_period(api: Api, app: Flask) -> None:
    assert create(api, wallet=SEAMLESS).status_code == 201
    changed = api.client.patch(
        "/api/v1/operators/acme",
        json={"wallet": {"secret": NEW_SECRET}, "name": "Acme"},
        headers=api.platform_auth,
    )
    assert changed.status_code == 200, changed.get_json()
    body = changed.get_json()
    assert body["name"] == "Acme" and body["wallet"]["secret_set"]
    assert NEW_SECRET not in changed.get_data(as_text=True)
    assert SECRET not in changed.get_data(as_text=True)
    until = body["wallet"]["previous_secret_valid_until"]
    assert until is not None
    database = app.extensions[EXTENSION_KEY]
    with database.unit_of_work("acme") as uow:
        wallet = uow.operators.current().seamless
        assert wallet is not None and wallet.timeout_ms == 2500
        now = uow.now()
        assert wallet.secrets_at(now) == (NEW_SECRET.encode(), SECRET.encode())
        assert wallet.secrets_at(now + SECRET_GRACE + timedelta(seconds=1)) == (
            NEW_SECRET.encode(),
        )
        assert SECRET not in repr(wallet) and SECRET not in repr(uow.operators.current())


def test_an_inactive_operators_tokens_are_refused(api: Api) -> None:
    token = create(api).get_json()["token"]
    api.post("/api/v1/tables", {"id": "classic", "currency": "EUR"}, auth=bearer(token))
    player = api.post("/api/v1/players", {"external_ref": "p"}, auth=bearer(token)).get_json()
    off = api.client.patch(
        "/api/v1/operators/acme", json={"active": False}, headers=api.platform_auth
    )
    assert off.status_code == 200 and off.get_json()["active"] is False
    for who in (token, player["token"]):
        assert_problem(api.get("/api/v1/tables", auth=bearer(who)), 403, "operator_inactive")
    # The operator default and its tokens are untouched.
    assert api.get("/api/v1/tables", auth=api.operator_auth).status_code == 200
    api.client.patch("/api/v1/operators/acme", json={"active": True}, headers=api.platform_auth)
    assert api.get("/api/v1/tables", auth=bearer(token)).status_code == 200
    # The configured tokens are the operator default's: deactivating it refuses them too.
    api.client.patch("/api/v1/operators/default", json={"active": False}, headers=api.platform_auth)
    assert_problem(api.get("/api/v1/tables", auth=api.operator_auth), 403, "operator_inactive")
    api.client.patch("/api/v1/operators/default", json={"active": True}, headers=api.platform_auth)
    assert api.get("/api/v1/tables", auth=api.operator_auth).status_code == 200


def test_an_operators_currencies_bound_its_tables_wallets_and_currency_list(api: Api) -> None:
    token = create(api, currencies=["GBP"]).get_json()["token"]
    listed = api.get("/api/v1/currencies", auth=bearer(token)).get_json()
    assert [c["code"] for c in listed] == ["GBP"]
    euro = api.post("/api/v1/tables", {"id": "classic", "currency": "EUR"}, auth=bearer(token))
    assert_problem(euro, 422, "unsupported_currency")
    player = api.post("/api/v1/players", {"external_ref": "p"}, auth=bearer(token)).get_json()
    deposit = api.post(
        f"/api/v1/players/{player['id']}/deposits",
        {"currency": "EUR", "amount": 100, "reference": "r"},
        auth=bearer(token),
        key=new_key(),
    )
    assert_problem(deposit, 422, "unsupported_currency")
    # The deployment's own operator keeps the deployment's currencies.
    assert len(api.get("/api/v1/currencies", auth=api.operator_auth).get_json()) == 3


def test_the_cli_creates_an_operator_and_prints_its_token(
    api: Api, database_url: str, tmp_path: Any
) -> None:
    secret = tmp_path / "wallet.secret"
    secret.write_text(SECRET + "\n")
    made = CliRunner().invoke(
        cli,
        [
            "operators", "create", "--database-url", database_url, "--id", "acme",
            "--name", "Acme Casino", "--currency", "EUR", "--seamless",
            "--wallet-url", "https://wallet.acme.example", "--wallet-secret-file", str(secret),
        ],
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    assert SECRET not in made.output
    printed = json.loads(made.output)
    assert printed["operator"]["wallet"]["mode"] == "seamless"
    assert printed["operator"]["currencies"] == ["EUR"]
    token = printed["token"]
    assert api.get("/api/v1/tables", auth=bearer(token)).get_json()["items"] == []
    listed = CliRunner().invoke(cli, ["operators", "list", "--database-url", database_url])
    assert listed.output.splitlines()[0].startswith("acme\tseamless\tEUR\tactive")
    tokens = CliRunner().invoke(cli, ["list-operator-tokens", "--database-url", database_url])
    assert any(line.endswith("\tacme\tadmin") for line in tokens.output.splitlines())
    platform = CliRunner().invoke(
        cli, ["create-operator-token", "--platform", "--database-url", database_url]
    )
    assert platform.exit_code == 0 and platform.output.startswith("pt_")
    answer = api.get("/api/v1/operators/acme", auth=bearer(platform.output.strip()))
    assert answer.status_code == 200 and answer.get_json()["name"] == "Acme Casino"
    assert_problem(
        api.get("/api/v1/tables", auth=bearer(platform.output.strip())), 403, "forbidden"
    )


def test_production_refuses_a_guessable_platform_token(tmp_path: Any) -> None:
    import secrets

    import config

    environ = {
        "CASINO_ENV": "production",
        "RATELIMIT_STORAGE_URI": "memory://",
        "CASINO_SIGNING_KEY": "ab" * 32,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'prod.db'}",
        "CASINO_OPERATOR_TOKENS": secrets.token_urlsafe(32),
    }
    strong = secrets.token_urlsafe(32)
    loaded = config.settings({**environ, "CASINO_PLATFORM_TOKENS": strong})
    assert loaded["CASINO_PLATFORM_TOKENS"] == [strong]
    try:
        config.settings({**environ, "CASINO_PLATFORM_TOKENS": f"{strong},changeme"})
    except config.ConfigError as error:
        assert "CASINO_PLATFORM_TOKENS: token 2 is guessable" in str(error)
        assert strong not in str(error)
    else:
        raise AssertionError("a guessable platform token was accepted")
