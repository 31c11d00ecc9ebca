"""The application shell: config, health, OpenAPI, docs, HTTP-level errors, throttling."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

import config
from casino import create_app
from casino.api.database import EXTENSION_KEY
from casino.api.throttling import EXTENSION_KEY as THROTTLE_KEY

from .helpers import OPERATOR_TOKEN, Api, assert_problem, make_config, new_key

# ---------------------------------------------------------------- configuration


def test_config_selected_by_casino_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CASINO_ENV", "testing")
    monkeypatch.setenv("CASINO_TEST_DATABASE_URL", f"sqlite:///{tmp_path / 'env.db'}")
    monkeypatch.setenv("CASINO_OPERATOR_TOKENS", " a-token , another ,,")
    monkeypatch.setenv("RATELIMIT_STORAGE_URI", "memory://")
    monkeypatch.setenv("CASINO_AUTH_FAILURE_LIMIT", "7 per hour")
    app = create_app()
    assert app.config["TESTING"] is True
    assert app.config["CASINO_OPERATOR_TOKENS"] == ["a-token", "another"]
    assert app.config["DATABASE_URL"].endswith("env.db")
    assert app.config["RATELIMIT_STORAGE_URI"] == "memory://"
    assert app.config["AUTH_FAILURE_LIMIT"] == "7 per hour"


def test_environment_is_read_at_create_app_time(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("RATELIMIT_STORAGE_URI", "memory://")  # one process, on purpose
    monkeypatch.setenv("CASINO_SIGNING_KEY", "ab" * 32)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'first.db'}")
    first = create_app("production")
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'second.db'}")
    second = create_app("production")
    assert first.config["DATABASE_URL"].endswith("first.db")
    assert second.config["DATABASE_URL"].endswith("second.db")


def test_production_requires_database_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    with pytest.raises(config.ConfigError, match="DATABASE_URL is required"):
        create_app("production")


def test_production_requires_a_checkpoint_key(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A public key at least (tests/e2e/test_production_keys.py: the public key alone); a
    private key given in a file is read too, and its public key derived."""
    monkeypatch.setenv("RATELIMIT_STORAGE_URI", "memory://")  # one process, on purpose
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'keyless.db'}")
    for name in ("CASINO_SIGNING_KEY", "CASINO_SIGNING_PUBLIC_KEY"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(f"{name}_FILE", raising=False)
    with pytest.raises(config.ConfigError, match="public key is required in production"):
        create_app("production")
    key_file = tmp_path / "signing.key"
    key_file.write_text("cd" * 32 + "\n")
    monkeypatch.setenv("CASINO_SIGNING_KEY_FILE", str(key_file))
    assert create_app("production").config["SIGNING_KEY"] == "cd" * 32


def test_development_makes_and_keeps_its_own_signing_key(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.delenv("CASINO_SIGNING_KEY", raising=False)
    monkeypatch.delenv("CASINO_SIGNING_KEY_FILE", raising=False)
    first = create_app("development").config["SIGNING_KEY"]
    assert create_app("development").config["SIGNING_KEY"] == first
    key_file = tmp_path / "instance" / "signing-key"
    assert key_file.read_text().strip() == first and key_file.stat().st_mode & 0o077 == 0


def test_production_normalises_heroku_style_postgres_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RATELIMIT_STORAGE_URI", "memory://")  # one process, on purpose
    monkeypatch.setenv("CASINO_SIGNING_KEY", "ab" * 32)
    monkeypatch.setenv("DATABASE_URL", "postgres://u:p@db.invalid:5432/casino")
    app = create_app("production")
    assert app.config["DATABASE_URL"].startswith("postgresql+psycopg://")


def test_development_defaults_to_sqlite_file_under_instance(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    app = create_app("development")
    assert app.config["DATABASE_URL"] == f"sqlite:///{tmp_path / 'instance' / 'casino.db'}"


def test_unknown_config_name_is_a_clear_error() -> None:
    with pytest.raises(config.ConfigError, match="unknown configuration 'staging'"):
        create_app("staging")


def test_wsgi_module_exposes_app(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import importlib
    import sys

    monkeypatch.setenv("CASINO_ENV", "testing")
    monkeypatch.setenv("CASINO_TEST_DATABASE_URL", f"sqlite:///{tmp_path / 'wsgi.db'}")
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2]))
    sys.modules.pop("wsgi", None)
    wsgi = importlib.import_module("wsgi")
    assert isinstance(wsgi.app, Flask)


def test_procfile_runs_migrations_on_release_and_gunicorn_on_web() -> None:
    procfile = (Path(__file__).resolve().parents[2] / "Procfile").read_text()
    lines = dict(line.split(":", 1) for line in procfile.strip().splitlines())
    assert lines["release"].strip() == "casino db-upgrade"
    web = lines["web"].strip()
    assert web == "gunicorn --config python:casino.api.gunicorn_conf wsgi:app"


def test_the_serving_settings_read_port_workers_and_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib

    from casino.api import gunicorn_conf

    monkeypatch.setenv("PORT", "5123")
    monkeypatch.setenv("WEB_CONCURRENCY", "3")
    monkeypatch.setenv("CASINO_WEB_THREADS", "4")
    monkeypatch.delenv("GUNICORN_BIND", raising=False)
    monkeypatch.delenv("GUNICORN_CONTROL_SOCKET", raising=False)
    settings = importlib.reload(gunicorn_conf)
    try:
        assert settings.bind == "0.0.0.0:5123" and settings.workers == 3
        assert settings.worker_class == "gthread" and settings.threads == 4
        assert settings.settings()["control_socket_disable"] is True
        assert "bind" not in settings.settings() and "workers" not in settings.settings()
        # The metrics of the workers add up (prometheus_client's multiprocess directory).
        assert {"child_exit", "on_exit"} <= set(settings.settings())
    finally:
        monkeypatch.undo()
        importlib.reload(gunicorn_conf)


# ---------------------------------------------------------------- health


def test_health_needs_no_token(api: Api) -> None:
    response = api.get("/api/v1/health")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok"}


def test_ready_checks_the_database(api: Api) -> None:
    response = api.get("/api/v1/ready")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ready"}


def test_ready_answers_503_when_the_database_is_unreachable(tmp_path: Path) -> None:
    # A SQLite path in a directory that does not exist cannot be opened.
    missing = tmp_path / "no" / "such" / "dir" / "casino.db"
    app = create_app(make_config(f"sqlite:///{missing}"))
    client = app.test_client()
    response = client.get("/api/v1/ready")
    body = assert_problem(response, 503, "service_unavailable")
    assert response.headers["Retry-After"].isdigit()
    assert "sqlite" not in body["detail"].lower()
    # Liveness does not depend on the database.
    assert client.get("/api/v1/health").status_code == 200
    # Neither does authentication failure handling turn into a 500.
    response = client.get(
        "/api/v1/tables", headers={"Authorization": "Bearer not-the-operator-token"}
    )
    assert_problem(response, 503, "service_unavailable")
    app.extensions[EXTENSION_KEY].engine.dispose()


# ---------------------------------------------------------------- OpenAPI and docs


def test_openapi_document(api: Api) -> None:
    response = api.get("/api/v1/openapi.json")
    assert response.status_code == 200
    spec = response.get_json()
    assert spec["openapi"].startswith("3.")
    assert spec["components"]["securitySchemes"]["bearerAuth"] == {
        "type": "http",
        "scheme": "bearer",
        "description": spec["components"]["securitySchemes"]["bearerAuth"]["description"],
    }
    expected = {
        ("/api/v1/players", "post"): "201",
        ("/api/v1/players/{player_id}", "get"): "200",
        ("/api/v1/players/{player_id}/deposits", "post"): "201",
        ("/api/v1/players/{player_id}/withdrawals", "post"): "201",
        ("/api/v1/players/{player_id}/wallets", "get"): "200",
        ("/api/v1/players/{player_id}/transactions", "get"): "200",
        ("/api/v1/players/{player_id}/seeds", "get"): "200",
        ("/api/v1/players/{player_id}/seeds/client", "put"): "200",
        ("/api/v1/players/{player_id}/seeds/rotate", "post"): "200",
        ("/api/v1/tables", "get"): "200",
        ("/api/v1/tables", "post"): "201",
        ("/api/v1/tables/{table_id}", "get"): "200",
        ("/api/v1/tables/{table_id}", "patch"): "200",
        ("/api/v1/rounds", "post"): "201",
        ("/api/v1/rounds", "get"): "200",
        ("/api/v1/rounds/{round_id}", "get"): "200",
        ("/api/v1/rounds/{round_id}/decision", "post"): "200",
        ("/api/v1/health", "get"): "200",
        ("/api/v1/ready", "get"): "200",
    }
    for (path, method), success in expected.items():
        operation = spec["paths"][path][method]
        successes = [code for code in operation["responses"] if code.startswith("2")]
        assert successes == [success], (path, method, successes)
        secured = "security" in operation
        assert secured == (not path.endswith(("/health", "/ready"))), (path, method)


def test_openapi_marks_money_moving_posts_with_idempotency_key(api: Api) -> None:
    spec = api.get("/api/v1/openapi.json").get_json()
    money = [
        ("/api/v1/players/{player_id}/deposits", "post"),
        ("/api/v1/players/{player_id}/withdrawals", "post"),
        ("/api/v1/rounds", "post"),
        ("/api/v1/rounds/{round_id}/decision", "post"),
    ]
    for path, method in money:
        params = spec["paths"][path][method].get("parameters", [])
        assert any(
            p["in"] == "header" and p["name"] == "Idempotency-Key" and p["required"] for p in params
        ), path


def test_openapi_errors_are_problem_json(api: Api) -> None:
    spec = api.get("/api/v1/openapi.json").get_json()
    responses = spec["components"]["responses"]
    assert "application/problem+json" in responses["UNAUTHORIZED"]["content"]


def test_docs_page_is_self_contained(api: Api) -> None:
    response = api.get("/api/v1/docs")
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    html = response.get_data(as_text=True)
    # The policy itself forbids any other origin for scripts, styles and fetches.
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "script-src 'self'" in csp
    urls = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert urls, html
    assert not [url for url in urls if "//" in url], urls
    spec_url = re.search(r'data-spec-url="([^"]+)"', html)
    assert spec_url is not None and spec_url.group(1) == "/api/v1/openapi.json"
    for url in urls:
        asset = api.get(url)
        assert asset.status_code == 200, url
        assert len(asset.data) > 0
    scripts = [url for url in urls if url.endswith(".js")]
    assert any("swagger-ui-bundle.js" in url for url in scripts)
    bundle = api.get(next(url for url in scripts if "swagger-ui-bundle.js" in url))
    assert b"SwaggerUIBundle" in bundle.data


def test_docs_assets_are_a_closed_list(api: Api) -> None:
    assert_problem(api.get("/api/v1/docs/assets/index.html"), 404, "not_found")
    assert_problem(api.get("/api/v1/docs/assets/../../wsgi.py"), 404, "not_found")


# ---------------------------------------------------------------- HTTP-level errors


def test_unknown_route_is_problem_404(api: Api) -> None:
    assert_problem(api.get("/api/v1/nothing-here"), 404, "not_found")


def test_malformed_uuid_in_path_is_404(api: Api) -> None:
    response = api.get("/api/v1/players/not-a-uuid", auth=api.operator_auth)
    assert_problem(response, 404, "not_found")


def test_wrong_method_is_405_with_allow(api: Api) -> None:
    response = api.client.delete("/api/v1/tables", headers=api.operator_auth)
    assert_problem(response, 405, "method_not_allowed")
    assert "GET" in response.headers["Allow"]


def test_body_over_one_mebibyte_is_413(api: Api, player: Any) -> None:
    body = '{"external_ref": "' + "x" * (1024 * 1024) + '"}'
    response = api.client.post(
        "/api/v1/players",
        data=body,
        headers={**api.operator_auth, "Content-Type": "application/json"},
    )
    assert_problem(response, 413, "payload_too_large")


def test_non_json_body_is_415(api: Api) -> None:
    response = api.client.post(
        "/api/v1/players",
        data="external_ref=x",
        headers={**api.operator_auth, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert_problem(response, 415, "unsupported_media_type")


@pytest.mark.parametrize(
    "raw",
    [
        b"{",
        b'{"external_ref": }',
        b"\xff\xfe not utf-8",
        b'{"external_ref": "a", "external_ref": "b"}',
        b'{"external_ref": NaN}',
        b"[" * 100_000 + b"]" * 100_000,
        b'{"a":' * 50 + b"1" + b"}" * 50,
        b"1" * 5000,
        b'{"external_ref": "\\ud800 lone surrogate"}',
        b'{"\\udfff": "key with a lone surrogate"}',
    ],
    ids=[
        "truncated",
        "syntax",
        "not-utf8",
        "duplicate-key",
        "nan",
        "deep",
        "nested",
        "bigint",
        "surrogate-value",
        "surrogate-key",
    ],
)
def test_malformed_json_is_400(api: Api, raw: bytes) -> None:
    response = api.client.post(
        "/api/v1/players",
        data=raw,
        headers={**api.operator_auth, "Content-Type": "application/json"},
    )
    assert_problem(response, 400, "malformed_json")


@pytest.mark.parametrize("raw", [b"[]", b'"text"', b"null", b"42", b"true", b"[{}]"])
@pytest.mark.parametrize("path", ["/api/v1/players", "/api/v1/tables", "/api/v1/free-play/games"])
def test_json_that_is_not_an_object_is_400_malformed_json(api: Api, raw: bytes, path: str) -> None:
    """Every body is an object, as docs/robustness.md says: anything else is malformed."""
    response = api.client.post(
        path, data=raw, headers={**api.operator_auth, "Content-Type": "application/json"}
    )
    assert_problem(response, 400, "malformed_json")
    assert response.get_json()["detail"] == "The request body must be a JSON object."


def test_unexpected_error_is_500_without_details(
    api: Api, app: Flask, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from casino.service import tables

    def explode(uow: Any) -> Any:
        raise RuntimeError("secret internal detail")

    monkeypatch.setattr(tables, "list_tables", explode)
    with caplog.at_level(logging.ERROR):
        response = api.get("/api/v1/tables", auth=api.operator_auth)
    body = assert_problem(response, 500, "internal_error")
    assert "secret" not in response.get_data(as_text=True)
    assert set(body) == {"type", "title", "status", "detail", "code"}
    assert any("secret internal detail" in (r.exc_text or "") for r in caplog.records) or any(
        r.exc_info for r in caplog.records
    )


def test_database_outage_during_a_request_is_503(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    from sqlalchemy.exc import OperationalError

    from casino.service import tables

    def outage(uow: Any) -> Any:
        raise OperationalError("SELECT 1", {}, Exception("server closed the connection"))

    monkeypatch.setattr(tables, "list_tables", outage)
    response = api.get("/api/v1/tables", auth=api.operator_auth)
    assert_problem(response, 503, "service_unavailable")
    assert response.headers["Retry-After"] == "1"


# ---------------------------------------------------------------- authentication


@pytest.mark.parametrize(
    "header",
    [
        None,
        "Bearer",
        "Bearer ",
        "Basic dXNlcjpwYXNz",
        "Bearer wrong-token",
        "Bearer tok\u00e9n",
        "Bearer " + "x" * 600,
    ],
    ids=["none", "empty", "blank", "basic", "wrong", "non-ascii", "huge"],
)
def test_missing_or_invalid_token_is_401(api: Api, header: str | None) -> None:
    headers = {"Authorization": header} if header is not None else {}
    response = api.client.get("/api/v1/tables", headers=headers)
    assert_problem(response, 401, "unauthenticated")
    assert response.headers["WWW-Authenticate"] == "Bearer"


def test_every_non_public_route_requires_a_token(app: Flask, api: Api) -> None:
    # The public key is public on purpose: anyone may check a checkpoint's signature. The
    # launch code exchange takes the code as its credential (tests/e2e/test_launch_codes.py).
    public = {
        "/api/v1/health",
        "/api/v1/ready",
        "/api/v1/openapi.json",
        "/api/v1/ledger/public-key",
        "/api/v1/sessions/exchange",
    }
    sample = {
        "player_id": "00000000-0000-4000-8000-000000000000",
        "round_id": "0" * 8 + "-0000-4000-8000-000000000000",
        "table_id": "classic",
        "seq": "1",
        "tx_id": "1",
        "session_id": "0" * 8 + "-0000-4000-8000-000000000000",
        "operator_id": "default",
        "index": "1",
        "transaction_id": "0" * 8 + "-0000-4000-8000-000000000000",
    }
    checked = 0
    for rule in app.url_map.iter_rules():
        path = rule.rule
        # /reports/ is a static page with no data: it asks the API with the operator's token.
        if path in public or path.startswith(("/api/v1/docs", "/api/v1/free-play", "/reports/")):
            continue
        if not path.startswith("/api/"):  # the game client's pages (casino.web)
            continue
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            url = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: sample[m.group(1)], path)
            response = api.client.open(url, method=method, json={})
            assert_problem(response, 401, "unauthenticated")
            checked += 1
    assert checked >= 17


def test_operator_token_from_config_is_accepted(api: Api) -> None:
    response = api.get("/api/v1/tables", auth={"Authorization": f"Bearer {OPERATOR_TOKEN}"})
    assert response.status_code == 200


def test_token_guessing_is_throttled(database_url: str) -> None:
    app = create_app(
        make_config(database_url, RATELIMIT_ENABLED=True, AUTH_FAILURE_LIMIT="5 per minute")
    )
    client = app.test_client()
    statuses = [
        client.get("/api/v1/tables", headers={"Authorization": f"Bearer guess-{i}"}).status_code
        for i in range(8)
    ]
    assert statuses[:5] == [401] * 5
    assert statuses[5:] == [429] * 3
    blocked = client.get("/api/v1/tables", headers={"Authorization": "Bearer guess-again"})
    assert int(blocked.headers["Retry-After"]) > 0
    # A valid token is served whatever others failed from the same address (issue 10).
    response = client.get("/api/v1/tables", headers={"Authorization": f"Bearer {OPERATOR_TOKEN}"})
    assert response.status_code == 200
    # Health stays reachable for the load balancer.
    assert client.get("/api/v1/health").status_code == 200
    # Another client address is not affected.
    other = client.get(
        "/api/v1/tables",
        headers={"Authorization": f"Bearer {OPERATOR_TOKEN}"},
        environ_base={"REMOTE_ADDR": "10.9.8.7"},
    )
    assert other.status_code == 200
    app.extensions[EXTENSION_KEY].engine.dispose()


def test_a_request_without_credentials_is_not_counted_as_a_guess(database_url: str) -> None:
    """A missing Authorization header is refused (401) but costs no lookup and guesses
    nothing: a client that forgot it does not lock its address out."""
    app = create_app(
        make_config(database_url, RATELIMIT_ENABLED=True, AUTH_FAILURE_LIMIT="3 per minute")
    )
    client = app.test_client()
    missing = [client.get("/api/v1/tables").status_code for _ in range(6)]
    assert missing == [401] * 6
    guesses = [
        client.get("/api/v1/tables", headers={"Authorization": f"Bearer guess-{i}"}).status_code
        for i in range(4)
    ]
    assert guesses == [401, 401, 401, 429]
    app.extensions[EXTENSION_KEY].engine.dispose()


def test_throttling_counts_in_memory_while_its_store_is_down(database_url: str) -> None:
    app = create_app(
        make_config(database_url, RATELIMIT_ENABLED=True, AUTH_FAILURE_LIMIT="3 per minute")
    )
    throttle = app.extensions[THROTTLE_KEY]

    class DownStore:
        def __getattr__(self, name: str) -> Any:
            raise ConnectionError("counter store unreachable")

    throttle._primary = DownStore()
    client = app.test_client()
    statuses = [
        client.get("/api/v1/tables", headers={"Authorization": f"Bearer guess-{i}"}).status_code
        for i in range(5)
    ]
    assert statuses == [401, 401, 401, 429, 429]
    app.extensions[EXTENSION_KEY].engine.dispose()


def test_successful_requests_are_not_throttled(database_url: str) -> None:
    app = create_app(
        make_config(database_url, RATELIMIT_ENABLED=True, AUTH_FAILURE_LIMIT="3 per minute")
    )
    client = app.test_client()
    auth = {"Authorization": f"Bearer {OPERATOR_TOKEN}"}
    assert all(client.get("/api/v1/tables", headers=auth).status_code == 200 for _ in range(10))
    app.extensions[EXTENSION_KEY].engine.dispose()


# ---------------------------------------------------------------- logging


def test_tokens_and_seeds_never_reach_the_logs(api: Api, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    api.create_table("classic")
    someone = api.create_player()
    api.deposit(someone, 10_000)
    api.get("/api/v1/tables", auth={"Authorization": "Bearer wrong-guess-token-123"})
    api.bet(someone, ante=100)
    rotation = api.post(f"/api/v1/players/{someone.id}/seeds/rotate", auth=someone.auth)
    logging.getLogger("casino.test").info("header was Authorization: Bearer %s", someone.token)
    try:
        raise RuntimeError(f"a traceback quoting Bearer {someone.token}")
    except RuntimeError:
        logging.getLogger("casino.test").exception("with a traceback")
    handler = logging.StreamHandler()
    text = "\n".join(handler.format(record) for record in caplog.records)
    assert "with a traceback" in text and "Bearer [redacted]" in text
    assert someone.token not in text
    assert OPERATOR_TOKEN not in text
    assert "wrong-guess-token-123" not in text
    if rotation.status_code == 200:
        revealed = rotation.get_json()["revealed"]["server_seed"]
        assert revealed not in text


def test_idempotency_key_header_without_auth_is_still_401(api: Api) -> None:
    response = api.post("/api/v1/rounds", {"table_id": "classic", "ante": 100}, key=new_key())
    assert_problem(response, 401, "unauthenticated")
