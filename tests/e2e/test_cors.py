"""CORS: the allow-list of CASINO_CORS_ORIGINS, preflights and exposed headers (HTTP level;
tests/browser has a real browser on a second origin)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask

import config
from casino import create_app
from casino.api.database import EXTENSION_KEY

from .helpers import Api, make_config, new_key

ALLOWED = "http://games.example:8080"
OTHER = "http://evil.example"
CORS_HEADERS = {
    "Access-Control-Allow-Origin",
    "Access-Control-Allow-Methods",
    "Access-Control-Allow-Headers",
    "Access-Control-Expose-Headers",
    "Access-Control-Max-Age",
    "Access-Control-Allow-Credentials",
}


@pytest.fixture
def cors_app(database_url: str) -> Iterator[Flask]:
    application = create_app(
        make_config(database_url, CASINO_CORS_ORIGINS=[ALLOWED, "https://other.example"])
    )
    yield application
    application.extensions[EXTENSION_KEY].engine.dispose()


def preflight(client: Any, origin: str, method: str = "POST", headers: str = "") -> Any:
    request_headers = {"Origin": origin, "Access-Control-Request-Method": method}
    if headers:
        request_headers["Access-Control-Request-Headers"] = headers
    return client.options("/api/v1/rounds", headers=request_headers)


def cors_headers(response: Any) -> set[str]:
    return {name for name in CORS_HEADERS if name in response.headers}


def _listed(value: str) -> set[str]:
    return {item.strip().lower() for item in value.split(",")}


def test_preflight_from_an_allowed_origin(cors_app: Flask) -> None:
    response = preflight(
        cors_app.test_client(), ALLOWED, headers="Authorization, Content-Type, Idempotency-Key"
    )
    assert response.status_code == 200
    assert response.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert _listed(response.headers["Access-Control-Allow-Headers"]) == {
        "authorization",
        "content-type",
        "idempotency-key",
    }
    assert {"get", "post", "put", "patch", "delete"} <= _listed(
        response.headers["Access-Control-Allow-Methods"]
    )
    assert "Access-Control-Allow-Credentials" not in response.headers
    assert "Origin" in response.headers.get("Vary", "")


def test_other_headers_are_not_allowed(cors_app: Flask) -> None:
    response = preflight(cors_app.test_client(), ALLOWED, headers="X-Custom, Authorization")
    assert _listed(response.headers["Access-Control-Allow-Headers"]) == {"authorization"}


def test_other_origins_get_no_cors_headers(cors_app: Flask) -> None:
    client = cors_app.test_client()
    for origin in (OTHER, ALLOWED + ".evil.example", "null", ALLOWED.replace("8080", "8081")):
        assert cors_headers(preflight(client, origin, headers="Authorization")) == set()
        assert cors_headers(client.get("/api/v1/tables", headers={"Origin": origin})) == set()


def test_responses_expose_the_headers_clients_need(cors_app: Flask) -> None:
    api = Api(cors_app.test_client())
    api.create_table("classic")
    player = api.create_player()
    api.deposit(player, 10_000)
    key = new_key()
    headers = {"Origin": ALLOWED, **player.auth}
    body = {"table_id": "classic", "ante": 100}
    api.post("/api/v1/rounds", body, key=key, headers=headers)
    replay = api.post("/api/v1/rounds", body, key=key, headers=headers)
    assert replay.headers["Idempotent-Replayed"] == "true"
    assert replay.headers["Access-Control-Allow-Origin"] == ALLOWED
    assert _listed(replay.headers["Access-Control-Expose-Headers"]) == {
        "idempotent-replayed",
        "retry-after",
        "location",
    }
    # Errors too: a page must be able to read the problem document.
    refused = api.get("/api/v1/tables", headers={"Origin": ALLOWED})
    assert refused.status_code == 401
    assert refused.headers["Access-Control-Allow-Origin"] == ALLOWED


def test_no_cors_without_an_allow_list(api: Api) -> None:
    assert cors_headers(preflight(api.client, ALLOWED, headers="Authorization")) == set()
    assert cors_headers(api.get("/api/v1/tables", headers={"Origin": ALLOWED})) == set()


def test_the_allow_list_is_read_from_the_environment() -> None:
    env = {"CASINO_CORS_ORIGINS": " https://Games.Example , http://127.0.0.1:8001/ "}
    settings = config.TestingConfig.load(env)
    assert settings["CASINO_CORS_ORIGINS"] == ["https://games.example", "http://127.0.0.1:8001"]
    assert config.TestingConfig.load({}).get("CASINO_CORS_ORIGINS") is None
    assert config.BaseConfig.CASINO_CORS_ORIGINS == []


@pytest.mark.parametrize(
    "value",
    ["*", "games.example", "https://games.example/play", "https://*.example", "null", "ftp://x"],
)
def test_anything_but_origins_stops_the_app(value: str) -> None:
    with pytest.raises(config.ConfigError, match="CASINO_CORS_ORIGINS"):
        config.TestingConfig.load({"CASINO_CORS_ORIGINS": value})


# ---------------------------------------------------------------- exact matching (issue 19)

CONFIGURED = (
    "http://[2001:db8::1], http://[::1]:8080, https://games.example, http://127.0.0.1:8001, "
    "https://[2001:DB8:0:0::2]:443"
)
#: Requesting origin -> allowed. flask-cors took an origin with a regex character (the
#: brackets of IPv6, the dots) as a pattern matched at the start only.
ORIGINS = {
    "http://[2001:db8::1]": True,
    "http://d.attacker.example": False,  # [2001:db8::1] read as a character class
    "http://1.attacker.example": False,
    "http://[2001:db8::1]:8080": False,
    "http://[2001:db8::1].attacker.example": False,
    "http://[::1]:8080": True,  # did not match itself
    "http://[::1]": False,
    "http://[::1]:80801": False,
    "https://games.example": True,
    "HTTPS://GAMES.EXAMPLE": True,  # scheme and host are case-insensitive
    "https://gamesXexample": False,  # the dot is a dot
    "https://games.example.attacker.example": False,
    "https://games.example:444": False,
    "http://games.example": False,
    "http://127.0.0.1:8001": True,
    "http://127.0.0.1:80011": False,
    "http://127.0.0.1": False,
    "http://127.0.0.1:8001.attacker.example": False,
    "https://[2001:db8::2]": True,  # configured in another spelling, default port
    "null": False,
}


@pytest.fixture
def ipv6_app(database_url: str) -> Iterator[Flask]:
    origins = config.parse_origins(CONFIGURED)
    application = create_app(make_config(database_url, CASINO_CORS_ORIGINS=origins))
    yield application
    application.extensions[EXTENSION_KEY].engine.dispose()


@pytest.mark.parametrize(("origin", "allowed"), ORIGINS.items(), ids=list(ORIGINS))
def test_origins_are_matched_exactly(ipv6_app: Flask, origin: str, allowed: bool) -> None:
    client = ipv6_app.test_client()
    answer = preflight(client, origin, headers="Authorization")
    assert answer.headers.get("Access-Control-Allow-Origin") == (origin if allowed else None)
    plain = client.get("/api/v1/health", headers={"Origin": origin})
    assert plain.headers.get("Access-Control-Allow-Origin") == (origin if allowed else None)


def test_configured_origins_are_spelled_as_browsers_send_them() -> None:
    assert config.parse_origins(CONFIGURED) == [
        "http://[2001:db8::1]",
        "http://[::1]:8080",
        "https://games.example",
        "http://127.0.0.1:8001",
        "https://[2001:db8::2]",
    ]
    for bad in ("http://[2001:db8::zz]", "http://[::1", "http://host:99999"):
        with pytest.raises(config.ConfigError, match="CASINO_CORS_ORIGINS"):
            config.parse_origins(bad)
