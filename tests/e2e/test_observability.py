"""Request ids, the JSON request log, /metrics and its counts, through the Flask test client.

One process here, so the metrics are this process's (prometheus_client's default registry);
every check compares a scrape before and after the requests it makes. The multiprocess mode
of gunicorn workers is tested on real gunicorn in tests/system/test_metrics.py.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy.exc import OperationalError

import config
from casino import create_app
from casino.api import gunicorn_hooks, metrics
from casino.api.observability import route_label

from .helpers import (
    OPERATOR_TOKEN,
    Api,
    Player,
    assert_problem,
    is_tie,
    make_config,
    new_key,
    steer_next_deal,
)

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(api: Api, auth: dict[str, str] | None = None) -> Samples:
    reply = api.get("/metrics", auth=api.operator_auth if auth is None else auth)
    assert reply.status_code == 200, reply.get_data(as_text=True)
    assert reply.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    samples: Samples = {}
    for family in text_string_to_metric_families(reply.get_data(as_text=True)):
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def log_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.startswith('{"ts":')]


# ---------------------------------------------------------------- request ids and the log


@pytest.mark.parametrize(
    "given",
    ["abc-123", "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0", "trace:span/1+x=@y", "a" * 128],
)
def test_a_sane_request_id_is_kept_and_returned(api: Api, given: str) -> None:
    reply = api.get("/api/v1/health", headers={"X-Request-Id": given})
    assert reply.headers["X-Request-Id"] == given


@pytest.mark.parametrize(
    "given",
    [None, "", "has space", "a" * 129, "-leading-dash", "caf\u00e9", "x;y", "pl_" + "A" * 43],
)
def test_otherwise_a_request_id_is_made(api: Api, given: str | None) -> None:
    headers = {} if given is None else {"X-Request-Id": given}
    reply = api.get("/api/v1/health", headers=headers)
    assert re.fullmatch(r"[0-9a-f]{32}", reply.headers["X-Request-Id"])
    other = api.get("/api/v1/health", headers=headers).headers["X-Request-Id"]
    assert other != reply.headers["X-Request-Id"]


def test_a_request_id_equal_to_the_callers_token_is_not_taken(api: Api, player: Player) -> None:
    reply = api.get("/api/v1/tables", auth=player.auth, headers={"X-Request-Id": player.token})
    assert reply.headers["X-Request-Id"] != player.token
    reply = api.get("/api/v1/health", headers={"X-Request-Id": OPERATOR_TOKEN})
    assert reply.headers["X-Request-Id"] != OPERATOR_TOKEN


def test_one_json_line_per_request_with_its_fields(
    api: Api, funded: Player, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    bet = api.bet(funded, ante=100)
    assert bet.status_code == 201
    refused = api.bet(funded, ante=150)  # not a multiple of the increment
    assert_problem(refused, 422, "ante_not_multiple_of_increment")
    api.get("/api/v1/tables", auth=api.operator_auth, headers={"X-Request-Id": "req-42"})
    api.get("/nowhere")
    lines = log_lines(capsys.readouterr().err)
    assert len(lines) == 4
    first, second, third, fourth = lines
    expected_keys = {
        "ts",
        "level",
        "msg",
        "request_id",
        "method",
        "route",
        "status",
        "duration_ms",
        "player_id",
        "role",
        "code",
        "pid",
    }
    assert all(set(line) == expected_keys for line in lines)
    assert first["request_id"] == bet.headers["X-Request-Id"]
    assert (first["method"], first["route"], first["status"]) == ("POST", "/api/v1/rounds", 201)
    assert (first["player_id"], first["role"], first["code"]) == (funded.id, "player", None)
    assert first["duration_ms"] > 0 and first["pid"] == os.getpid()
    assert (second["status"], second["code"]) == (422, "ante_not_multiple_of_increment")
    assert second["request_id"] == refused.headers["X-Request-Id"]
    assert (third["request_id"], third["role"], third["player_id"]) == (
        "req-42",
        "operator",
        None,
    )
    assert (fourth["route"], fourth["status"], fourth["code"]) == ("<unmatched>", 404, "not_found")


def test_no_token_or_seed_ever_reaches_the_log(
    api: Api, funded: Player, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    token = funded.token
    api.get(f"/api/v1/players/{funded.id}/wallets", auth=funded.auth)
    api.get(f"/api/v1/tables?token={token}", auth=funded.auth)
    api.get(f"/api/v1/tables/{token}", auth=funded.auth)
    api.get(f"/{token}")
    api.get("/api/v1/tables", auth={"Authorization": f"Bearer {token}x"})  # refused
    api.get("/api/v1/tables", auth=funded.auth, headers={"X-Request-Id": token})
    api.get("/api/v1/tables", auth=api.operator_auth, headers={"X-Api-Key": OPERATOR_TOKEN})
    rotation = api.post(f"/api/v1/players/{funded.id}/seeds/rotate", auth=funded.auth)
    assert rotation.status_code == 200
    seed = rotation.get_json()["revealed"]["server_seed"]
    requests = 8
    for _ in range(2):
        round_ = api.bet(funded, ante=100).get_json()
        api.get(f"/api/v1/rounds/{round_['id']}", auth=funded.auth)
        requests += 2
        if round_["status"] == "awaiting_decision":  # a tie (1 in 13.5): finish it
            decision = {"action": "surrender"}
            path = f"/api/v1/rounds/{round_['id']}/decision"
            assert api.post(path, decision, auth=funded.auth, key=new_key()).status_code == 200
            requests += 1
    captured = capsys.readouterr()
    logged = captured.err + captured.out
    assert len(log_lines(logged)) == requests
    for secret in (token, OPERATOR_TOKEN, seed):
        assert secret not in logged


def test_the_request_log_can_be_turned_off(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    quiet = create_app(make_config(database_url, REQUEST_LOG=False))
    try:
        capsys.readouterr()
        reply = quiet.test_client().get("/api/v1/health")
        assert reply.status_code == 200 and reply.headers["X-Request-Id"]
        assert log_lines(capsys.readouterr().err) == []
    finally:
        quiet.extensions["casino.database"].engine.dispose()


def test_route_labels_are_the_url_rules() -> None:
    assert route_label("/api/v1/rounds/<uuid_str:round_id>/decision") == (
        "/api/v1/rounds/<round_id>/decision"
    )
    assert route_label("/api/v1/tables/<table_id>") == "/api/v1/tables/<table_id>"


# ---------------------------------------------------------------- /metrics


def test_metrics_are_for_operators(api: Api, player: Player) -> None:
    assert_problem(api.get("/metrics"), 401, "unauthenticated")
    assert_problem(api.get("/metrics", auth=player.auth), 403, "forbidden")
    assert scrape(api)  # the operator


def test_an_allowed_address_scrapes_without_a_token(database_url: str) -> None:
    for allowed, status in (("127.0.0.0/8", 200), ("10.0.0.0/8, ::1", 401)):
        networks = config.BaseConfig.load({"CASINO_METRICS_ALLOW": allowed})["METRICS_ALLOW"]
        app = create_app(make_config(database_url, METRICS_ALLOW=networks))
        try:
            reply = app.test_client().get("/metrics", environ_base={"REMOTE_ADDR": "127.0.0.1"})
            assert reply.status_code == status, allowed
        finally:
            app.extensions["casino.database"].engine.dispose()


def test_metrics_allow_setting_is_parsed_strictly() -> None:
    settings = config.BaseConfig.load({"CASINO_METRICS_ALLOW": "127.0.0.1, 10.0.0.0/8,::1"})
    assert [str(n) for n in settings["METRICS_ALLOW"]] == ["127.0.0.1/32", "10.0.0.0/8", "::1/128"]
    with pytest.raises(config.ConfigError):
        config.BaseConfig.load({"CASINO_METRICS_ALLOW": "127.0.0.1, intranet"})
    assert config.BaseConfig.load({"CASINO_REQUEST_LOG": "off"})["REQUEST_LOG"] is False
    assert config.BaseConfig.load({"CASINO_REQUEST_LOG": "1"})["REQUEST_LOG"] is True


def play_round(api: Api, player: Player, ante: int, tie_bet: int) -> list[dict[str, Any]]:
    """A bet, and its decision when it ties: the bodies the API answered."""
    bet = api.bet(player, ante=ante, tie_bet=tie_bet)
    assert bet.status_code == 201
    bodies = [bet.get_json()]
    if bodies[0]["status"] == "awaiting_decision":
        decided = api.post(
            f"/api/v1/rounds/{bodies[0]['id']}/decision",
            {"action": "war"},
            auth=player.auth,
            key=new_key(),
        )
        assert decided.status_code == 200
        bodies.append(decided.get_json())
    return bodies


def test_requests_rounds_and_money_are_counted(api: Api, funded: Player, database_url: str) -> None:
    before = scrape(api)
    steer_next_deal(api, database_url, funded, is_tie)
    played = [play_round(api, funded, 500, 100)]
    played += [play_round(api, funded, 200 * (1 + i % 3), 100 * (i % 2)) for i in range(9)]
    # A retry with the same key is answered again but counts nothing more.
    key = new_key()
    body = {"table_id": "classic", "ante": 100}
    first = api.post("/api/v1/rounds", body, auth=funded.auth, key=key)
    again = api.post("/api/v1/rounds", body, auth=funded.auth, key=key)
    assert again.headers.get("Idempotent-Replayed") == "true"
    extra = [first.get_json()]
    if extra[0]["status"] == "awaiting_decision":
        extra.append(
            api.post(
                f"/api/v1/rounds/{extra[0]['id']}/decision",
                {"action": "surrender"},
                auth=funded.auth,
                key=new_key(),
            ).get_json()
        )
    played.append(extra)
    assert_problem(api.bet(funded, ante=150), 422, "ante_not_multiple_of_increment")
    assert_problem(api.get("/api/v1/tables"), 401, "unauthenticated")
    after = scrape(api)

    bets = sum(1 for _ in played) + 1  # the replay is a request too
    decisions = sum(len(bodies) - 1 for bodies in played)
    assert decisions >= 1
    delta = lambda name, **labels: value(after, name, **labels) - value(before, name, **labels)  # noqa: E731
    assert (
        delta("casino_http_requests_total", method="POST", route="/api/v1/rounds", status="201")
        == bets
    )
    assert (
        delta("casino_http_requests_total", method="POST", route="/api/v1/rounds", status="422")
        == 1
    )
    assert (
        delta(
            "casino_http_requests_total",
            method="POST",
            route="/api/v1/rounds/<round_id>/decision",
            status="200",
        )
        == decisions
    )
    assert (
        delta("casino_http_request_duration_seconds_count", method="POST", route="/api/v1/rounds")
        == bets + 1
    )
    assert delta("casino_refused_requests_total", code="ante_not_multiple_of_increment") == 1
    assert delta("casino_refused_requests_total", code="unauthenticated") == 1
    finals = [bodies[-1] for bodies in played]
    assert all(final["status"] == "settled" for final in finals)
    assert delta("casino_rounds_settled_total", operator="default", currency="EUR") == len(finals)
    wagered = sum(sum(final["bets"].values()) for final in finals)
    paid = sum(sum(final["payouts"].values()) for final in finals)
    assert delta("casino_wagered_minor_units_total", operator="default", currency="EUR") == wagered
    assert delta("casino_paid_minor_units_total", operator="default", currency="EUR") == paid


def test_open_rounds_are_counted_at_scrape_time(
    api: Api, funded: Player, database_url: str
) -> None:
    assert value(scrape(api), "casino_open_rounds", operator="default", currency="EUR") == 0
    steer_next_deal(api, database_url, funded, is_tie)
    assert api.bet(funded).get_json()["status"] == "awaiting_decision"
    samples = scrape(api)
    assert value(samples, "casino_open_rounds", operator="default", currency="EUR") == 1
    assert value(samples, "casino_database_up") == 1


def test_each_operator_scrapes_its_own_money_and_the_platform_every_operators(
    api: Api, funded: Player, database_url: str
) -> None:
    """The money counters and the scrape-time gauges are labelled by operator; an operator's
    admin token sees its own series only, the platform sees both operators'."""
    made = api.post("/api/v1/operators", {"id": "twin", "name": "Twin"}, auth=api.platform_auth)
    assert made.status_code == 201, made.get_json()
    twin = Api(api.client, operator_auth={"Authorization": f"Bearer {made.get_json()['token']}"})
    twin.create_table()
    theirs = twin.create_player()
    twin.deposit(theirs, 10_000)
    before = scrape(api, api.platform_auth)
    assert twin.bet(theirs, ante=300).status_code == 201
    steer_next_deal(api, database_url, funded, is_tie)
    assert api.bet(funded, ante=200).get_json()["status"] == "awaiting_decision"

    def wagered(samples: Samples, operator: str) -> float:
        return value(
            samples, "casino_wagered_minor_units_total", operator=operator, currency="EUR"
        ) - value(before, "casino_wagered_minor_units_total", operator=operator, currency="EUR")

    everyone = scrape(api, api.platform_auth)
    assert wagered(everyone, "twin") == 300 and wagered(everyone, "default") == 200
    assert value(everyone, "casino_open_rounds", operator="default", currency="EUR") == 1
    for scraper, own, other in ((api, "default", "twin"), (twin, "twin", "default")):
        samples = scrape(scraper, scraper.operator_auth)
        seen = {dict(labels).get("operator") for _, labels in samples} - {None}
        assert seen == {own}, (own, seen)
        assert wagered(samples, own) == wagered(everyone, own)
        assert (
            value(samples, "casino_wagered_minor_units_total", operator=other, currency="EUR") == 0
        )
        # The deployment's request counters stay visible to every admin.
        assert any(name == "casino_http_requests_total" for name, _ in samples)


def test_a_scrape_survives_the_database_being_down(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    def down(_uow: Any) -> dict[str, int]:
        raise OperationalError("SELECT", {}, Exception("the server closed the connection"))

    samples = scrape(api)
    monkeypatch.setattr(metrics, "open_rounds", down)
    samples = scrape(api)
    assert value(samples, "casino_database_up") == 0
    assert not any(name == "casino_open_rounds" for name, _ in samples)
    assert value(
        samples, "casino_http_requests_total", method="GET", route="/metrics", status="200"
    )


# ---------------------------------------------------------------- the multiprocess directory


def test_the_metrics_directory_is_prepared_for_gunicorn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    given = tmp_path / "metrics"
    given.mkdir()
    (given / "counter_123.db").write_bytes(b"old run")
    (given / "keep.txt").write_text("not ours")
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(given))
    assert gunicorn_hooks.prepare_metrics_dir() == str(given)
    assert sorted(p.name for p in given.iterdir()) == ["keep.txt"]
    gunicorn_hooks.on_exit(None)
    assert given.is_dir()  # a directory we were given is not ours to remove

    monkeypatch.delenv("PROMETHEUS_MULTIPROC_DIR")
    made = Path(gunicorn_hooks.prepare_metrics_dir())
    assert made.is_dir() and os.environ["PROMETHEUS_MULTIPROC_DIR"] == str(made)
    (made / "gauge_livesum_77.db").write_bytes(b"")
    (made / "counter_77.db").write_bytes(b"")

    class Worker:
        pid = 77

    gunicorn_hooks.child_exit(None, Worker())
    assert sorted(p.name for p in made.iterdir()) == ["counter_77.db"]
    gunicorn_hooks.on_exit(None)
    assert not made.exists()


def test_the_app_can_be_built_again_in_one_process(database_url: str) -> None:
    # Metrics are module-level: a second app must not register them twice.
    again: Flask = create_app(make_config(database_url))
    again.extensions["casino.database"].engine.dispose()
