"""Issue 24, item 3: the hot path (casino.api.hot_path) answers a bet and a decision exactly
as Flask's own dispatch does.

One matrix of requests, each sent twice on a fresh, identical world (a new player with the
same server seed, client seed and funds at the same tables): once with ``HOT_PATH`` on and
once off. The status, every header (in order; the request id and the length aside, the length
checked against the body) and the body (ids, times and transaction numbers aside) must be
the same, and a success must really have been finished by the hot path (a refusal is always
finished by Flask, in both). SQLite and PostgreSQL, as every e2e test.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import create_engine, text

import config
from casino import create_app
from casino.api import hot_path
from casino.api.database import EXTENSION_KEY
from casino.engine.casino_war import HandBet, TableRound, deal_casino_war
from casino.engine.fairness import commitment

from .helpers import Api, Player, make_config, new_key
from .test_table_rounds import EVO, EVO_RULES

SERVER_SEED = bytes(range(32))
CLASSIC_DECKS = 6
MULTI_HANDS = [{"ante": 1000, "tie_bet": 100}, {"ante": 500}, {"ante": 200}]
#: Headers whose values differ between any two requests.
VOLATILE_HEADERS = frozenset({"X-Request-Id", "Content-Length", "Date"})
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:\+00:00|Z)")


def _client_seed(wanted: Callable[[str], bool]) -> str:
    for attempt in range(200_000):
        seed = f"hot-{attempt}"
        if wanted(seed):
            return seed
    raise AssertionError("no client seed deals the wanted round")


#: Client seeds giving, at nonce 0 with SERVER_SEED: a settled one-hand round, a tie, and
#: three hands of which the first and the third tie.
SETTLES = _client_seed(lambda cs: not deal_casino_war(SERVER_SEED, cs, 0, CLASSIC_DECKS).is_tie)
TIES = _client_seed(lambda cs: deal_casino_war(SERVER_SEED, cs, 0, CLASSIC_DECKS).is_tie)
TWO_TIES = _client_seed(
    lambda cs: (
        TableRound.deal(
            EVO_RULES,
            SERVER_SEED,
            cs,
            0,
            [HandBet(h["ante"], h.get("tie_bet", 0)) for h in MULTI_HANDS],
        ).awaiting
        == (0, 2)
    )
)


@dataclass
class World:
    api: Api
    player: Player
    url: str

    def bet(self, body: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("auth", self.player.auth)
        kwargs.setdefault("key", new_key())
        return self.api.post("/api/v1/rounds", body, **kwargs)

    def decide(self, round_id: str, body: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("auth", self.player.auth)
        kwargs.setdefault("key", new_key())
        return self.api.post(f"/api/v1/rounds/{round_id}/decision", body, **kwargs)

    def opened(self, body: dict[str, Any]) -> str:
        """A round awaiting a decision (the client seed must deal a tie)."""
        response = self.bet(body)
        assert response.status_code == 201, response.get_json()
        assert response.get_json()["status"] == "awaiting_decision"
        return str(response.get_json()["id"])


def _fix_seeds(url: str, player_id: str, client_seed: str) -> None:
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(
                text(
                    "UPDATE server_seeds SET seed = :seed, seed_hash = :hash, client_seed = :cs "
                    "WHERE player_id = :player AND active = :active"
                ),
                {
                    "seed": SERVER_SEED,
                    "hash": commitment(SERVER_SEED),
                    "cs": client_seed,
                    "player": player_id,
                    "active": True,
                },
            )
    finally:
        engine.dispose()


Case = Callable[[World], Any]
CASES: dict[str, tuple[str, int, Case]] = {}


def case(name: str, client_seed: str = SETTLES, funds: int = 1_000_000) -> Callable[[Case], Case]:
    def register(func: Case) -> Case:
        CASES[name] = (client_seed, funds, func)
        return func

    return register


# ---------------------------------------------------------------- bets

case("one hand")(lambda w: w.bet({"table_id": "classic", "ante": 100}))
case("one hand and a tie bet")(
    lambda w: w.bet({"table_id": "classic", "ante": 100, "tie_bet": 100})
)
case("one hand, a tie", TIES)(lambda w: w.bet({"table_id": "classic", "ante": 100}))
case("three hands, two ties", TWO_TIES)(lambda w: w.bet({"table_id": "evo", "hands": MULTI_HANDS}))
case("three hands, settled")(
    lambda w: w.bet({"table_id": "evo", "hands": [{"ante": 100}, {"ante": 0, "tie_bet": 200}]})
)
case("the tie bet only")(
    lambda w: w.bet({"table_id": "evo", "hands": [{"ante": 0, "tie_bet": 200}]})
)
case("a client seed in the body")(
    lambda w: w.bet({"table_id": "classic", "ante": 100, "client_seed": "mine"})
)
case("Accept-Language pt")(
    lambda w: w.bet({"table_id": "classic", "ante": 100}, headers={"Accept-Language": "pt"})
)
case("not JSON")(lambda w: w.bet(None, data='{"table_id": ', content_type="application/json"))
case("a JSON array")(lambda w: w.bet([1, 2]))
case("duplicate keys")(
    lambda w: w.bet(None, data='{"ante": 100, "ante": 200}', content_type="application/json")
)
case("another content type")(
    lambda w: w.bet(None, data="table_id=classic&ante=100", content_type="text/plain")
)
case("a form")(lambda w: w.bet(None, data={"table_id": "classic", "ante": "100"}))
case("JSON with a charset")(
    lambda w: w.bet(
        None,
        data='{"table_id": "classic", "ante": 100}',
        content_type="application/json; charset=utf-8",
    )
)
case("no body")(lambda w: w.bet(None))
case("a wrong type")(lambda w: w.bet({"table_id": "classic", "ante": "lots"}))
case("a missing field")(lambda w: w.bet({"ante": 100}))
case("an unknown field")(lambda w: w.bet({"table_id": "classic", "ante": 100, "odd": 1}))
case("ante and hands")(
    lambda w: w.bet({"table_id": "classic", "ante": 100, "hands": [{"ante": 100}]})
)
case("not a multiple")(lambda w: w.bet({"table_id": "classic", "ante": 150}))
case("too many hands")(
    lambda w: w.bet({"table_id": "classic", "hands": [{"ante": 100}, {"ante": 100}]})
)
case("an unknown table")(lambda w: w.bet({"table_id": "nowhere", "ante": 100}))
case("an unknown table, in Greek")(
    lambda w: w.bet({"table_id": "nowhere", "ante": 100}, headers={"Accept-Language": "el"})
)
case("an unknown table, Accept-Language nl;q=0.5, *")(
    lambda w: w.bet(
        {"table_id": "nowhere", "ante": 100}, headers={"Accept-Language": "nl;q=0.5, *"}
    )
)
case("no token")(lambda w: w.bet({"table_id": "classic", "ante": 100}, auth={}))
case("a bad token")(
    lambda w: w.bet({"table_id": "classic", "ante": 100}, auth={"Authorization": "Bearer nope"})
)
case("not bearer")(
    lambda w: w.bet({"table_id": "classic", "ante": 100}, auth={"Authorization": "Basic eA=="})
)
case("an operator token")(
    lambda w: w.bet({"table_id": "classic", "ante": 100}, auth=w.api.operator_auth)
)
case("a platform token")(
    lambda w: w.bet({"table_id": "classic", "ante": 100}, auth=w.api.platform_auth)
)
case("no idempotency key")(
    lambda w: w.api.post("/api/v1/rounds", {"table_id": "classic", "ante": 100}, auth=w.player.auth)
)
case("a bad idempotency key")(
    lambda w: w.bet({"table_id": "classic", "ante": 100}, key="not\ta key")
)
case("insufficient funds", funds=50_000)(lambda w: w.bet({"table_id": "classic", "ante": 100_000}))
case("no money at all", funds=0)(lambda w: w.bet({"table_id": "classic", "ante": 100}))


@case("a replay")
def _replay(w: World) -> Any:
    key = new_key()
    first = w.bet({"table_id": "classic", "ante": 100}, key=key)
    assert first.status_code == 201
    return w.bet({"table_id": "classic", "ante": 100}, key=key)


@case("a replay of a tie", TIES)
def _replay_tie(w: World) -> Any:
    key = new_key()
    assert w.bet({"table_id": "classic", "ante": 100}, key=key).status_code == 201
    return w.bet({"table_id": "classic", "ante": 100}, key=key)


@case("a key reused with another body")
def _reused(w: World) -> Any:
    key = new_key()
    assert w.bet({"table_id": "classic", "ante": 100}, key=key).status_code == 201
    return w.bet({"table_id": "classic", "ante": 200}, key=key)


@case("a round in progress", TIES)
def _in_progress(w: World) -> Any:
    w.opened({"table_id": "classic", "ante": 100})
    return w.bet({"table_id": "classic", "ante": 100})


@case("self-excluded")
def _excluded(w: World) -> Any:
    excluded = w.api.post(
        f"/api/v1/players/{w.player.id}/exclusions",
        {"kind": "self_exclusion", "months": 6},
        auth=w.player.auth,
    )
    assert excluded.status_code in (200, 201), excluded.get_json()
    return w.bet({"table_id": "classic", "ante": 100})


def _session_token(w: World, table: str) -> dict[str, str]:
    launched = w.api.post(
        f"/api/v1/players/{w.player.id}/sessions", {"table_id": table}, auth=w.api.operator_auth
    )
    assert launched.status_code == 201, launched.get_json()
    code = launched.get_json()["launch_code"]
    exchanged = w.api.post("/api/v1/sessions/exchange", {"code": code})
    assert exchanged.status_code == 200, exchanged.get_json()
    return {"Authorization": f"Bearer {exchanged.get_json()['token']}"}


case("a game session's token")(
    lambda w: w.bet({"table_id": "classic", "ante": 100}, auth=_session_token(w, "classic"))
)
case("a game session's token at another table")(
    lambda w: w.bet(
        {"table_id": "evo", "hands": [{"ante": 100}]}, auth=_session_token(w, "classic")
    )
)

# ---------------------------------------------------------------- decisions


def _decision(client_seed: str, bet: dict[str, Any], decision: Any) -> Case:
    def run(w: World) -> Any:
        return w.decide(w.opened(bet), decision)

    return case(f"decide {decision!r}", client_seed)(run)


ONE = {"table_id": "classic", "ante": 100}
_decision(TIES, ONE, {"action": "war"})
_decision(TIES, ONE, {"action": "surrender"})
_decision(TIES, ONE, {"action": "war", "war_tie_bet": 100})
_decision(TIES, ONE, {"action": "fold"})
_decision(TIES, ONE, {})
_decision(
    TWO_TIES, {"table_id": "evo", "hands": MULTI_HANDS}, {"hands": {"0": "war", "2": "surrender"}}
)
_decision(
    TWO_TIES,
    {"table_id": "evo", "hands": MULTI_HANDS},
    {"hands": {"0": "war", "2": "war"}, "war_tie_bets": {"0": 100}},
)
_decision(TWO_TIES, {"table_id": "evo", "hands": MULTI_HANDS}, {"hands": {"0": "war"}})
_decision(TWO_TIES, {"table_id": "evo", "hands": MULTI_HANDS}, {"action": "war"})


@case("decide a settled round")
def _settled(w: World) -> Any:
    played = w.bet(ONE)
    assert played.get_json()["status"] == "settled"
    return w.decide(played.get_json()["id"], {"action": "war"})


case("decide an unknown round")(
    lambda w: w.decide("00000000-0000-4000-8000-000000000000", {"action": "war"})
)
case("decide a malformed id")(lambda w: w.decide("not-a-round", {"action": "war"}))


@case("decide another player's round", TIES)
def _others(w: World) -> Any:
    round_id = w.opened(ONE)
    stranger = w.api.create_player()
    return w.decide(round_id, {"action": "war"}, auth=stranger.auth)


@case("decide with an operator token", TIES)
def _operator_decides(w: World) -> Any:
    return w.decide(w.opened(ONE), {"action": "war"}, auth=w.api.operator_auth)


@case("decide without a key", TIES)
def _keyless(w: World) -> Any:
    round_id = w.opened(ONE)
    return w.api.post(f"/api/v1/rounds/{round_id}/decision", {"action": "war"}, auth=w.player.auth)


@case("a decision replayed", TIES)
def _decision_replayed(w: World) -> Any:
    round_id, key = w.opened(ONE), new_key()
    assert w.decide(round_id, {"action": "surrender"}, key=key).status_code == 200
    return w.decide(round_id, {"action": "surrender"}, key=key)


# ---------------------------------------------------------------- the comparison


@pytest.fixture
def hot_finishes(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The request ids of the responses the hot path finished itself."""
    finished: list[str] = []
    original = hot_path.HotPath._finish

    def noting(self: hot_path.HotPath, ctx: Any, response: Any) -> Any:
        status, headers, body = original(self, ctx, response)
        finished.append(dict(headers)["X-Request-Id"])
        return status, headers, body

    monkeypatch.setattr(hot_path.HotPath, "_finish", noting)
    yield finished


@pytest.fixture
def tables(app: Flask) -> Api:
    api = Api(app.test_client())
    api.create_table("classic")
    api.create_table("evo", **EVO)
    return api


def _run(app: Flask, api: Api, url: str, name: str, hot: bool) -> Any:
    client_seed, funds, send = CASES[name]
    app.config["HOT_PATH"] = hot
    try:
        player = api.create_player()
        if funds:
            api.deposit(player, funds)
        _fix_seeds(url, player.id, client_seed)
        return send(World(api, player, url))
    finally:
        app.config["HOT_PATH"] = True


def _masked(value: Any, key: str = "") -> Any:
    if isinstance(value, dict):
        return {k: _masked(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(item, key) for item in value]
    if key in ("transaction_ids", "transaction_id", "balance_after"):
        return "<varies>" if key != "balance_after" else value
    if isinstance(value, str):
        return _TIME.sub("<time>", _UUID.sub("<uuid>", value))
    return value


def _headers(response: Any) -> list[tuple[str, str]]:
    assert response.headers["Content-Length"] == str(len(response.get_data()))
    return [
        (name, "<varies>" if name in VOLATILE_HEADERS else value)
        for name, value in response.headers.items()
    ]


def _body(response: Any) -> Any:
    if response.mimetype in ("application/json", "application/problem+json"):
        return _masked(response.get_json())
    return response.get_data()


@pytest.mark.parametrize("name", list(CASES))
def test_the_hot_path_answers_as_flask_does(
    app: Flask, database_url: str, tables: Api, hot_finishes: list[str], name: str
) -> None:
    hot = _run(app, tables, database_url, name, hot=True)
    finished = len(hot_finishes)
    cold = _run(app, tables, database_url, name, hot=False)
    assert len(hot_finishes) == finished, "the hot path answered with HOT_PATH off"
    assert (hot.status_code, _headers(hot), _body(hot)) == (
        cold.status_code,
        _headers(cold),
        _body(cold),
    )
    # A plain success was the hot path's own finish; anything else Flask's.
    plain = hot.status_code in (200, 201) and hot.mimetype == "application/json"
    assert (hot.headers["X-Request-Id"] in hot_finishes) == plain


CORS_ORIGIN = "http://games.example:8080"


@pytest.fixture
def cors_tables(database_url: str) -> Iterator[tuple[Flask, Api]]:
    """An app with CORS configured (flask-cors' after-request function), its client sending
    an allowed ``Origin`` on every request."""
    application = create_app(make_config(database_url, CASINO_CORS_ORIGINS=[CORS_ORIGIN]))
    client = application.test_client()
    client.environ_base["HTTP_ORIGIN"] = CORS_ORIGIN
    api = Api(client)
    api.create_table("classic")
    api.create_table("evo", **EVO)
    yield application, api
    application.extensions[EXTENSION_KEY].engine.dispose()


@pytest.mark.parametrize(
    "name", ["one hand", "a replay", "an unknown table", "decide {'action': 'war'}"]
)
def test_with_cors_flask_finishes_every_answer(
    database_url: str, cors_tables: tuple[Flask, Api], hot_finishes: list[str], name: str
) -> None:
    """Other after-request functions than the four the hot path knows (here flask-cors'):
    the hot path still dispatches, and Flask finishes every answer, CORS headers included."""
    application, api = cors_tables
    hot = _run(application, api, database_url, name, hot=True)
    cold = _run(application, api, database_url, name, hot=False)
    assert hot_finishes == []
    assert hot.headers["Access-Control-Allow-Origin"] == CORS_ORIGIN
    assert "Origin" in hot.headers["Vary"]
    assert (hot.status_code, _headers(hot), _body(hot)) == (
        cold.status_code,
        _headers(cold),
        _body(cold),
    )


def test_the_switch_is_read_from_the_environment() -> None:
    assert config.BaseConfig.HOT_PATH is True
    assert config.BaseConfig.load({"CASINO_HOT_PATH": "0"})["HOT_PATH"] is False
    assert config.BaseConfig.load({"CASINO_HOT_PATH": "off"})["HOT_PATH"] is False
    assert config.BaseConfig.load({"CASINO_HOT_PATH": "1"})["HOT_PATH"] is True
    assert "HOT_PATH" not in config.BaseConfig.load({})
