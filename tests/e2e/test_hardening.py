"""Issue 10, through HTTP (Flask's test client, SQLite and PostgreSQL): what a hostile review
found in paths, headers, idempotency fingerprints and concurrent seed changes."""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import threading
import time
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from .helpers import Api, Player, assert_problem, new_key

# ---------------------------------------------------------------- 3: concurrent seed changes


def _server_seeds(database_url: str, player_id: str) -> tuple[int, int]:
    """The player's server seed rows in the database: (active ones, all)."""
    from sqlalchemy import create_engine, func, select

    from casino.store.models import ServerSeed

    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                select(ServerSeed.active, func.count())
                .where(ServerSeed.player_id == player_id)
                .group_by(ServerSeed.active)
            ).all()
    finally:
        engine.dispose()
    counts = {bool(active): int(n) for active, n in rows}
    return counts.get(True, 0), sum(counts.values())


@pytest.mark.postgres
def test_concurrent_rotations_and_client_seed_updates_never_fail_on_postgres(
    postgres_app: Flask,
) -> None:
    """10 threads x 40 rotations on one player, half the threads also changing the client
    seed after each rotation: each answers 200 or 409 seed_rotation_in_progress, never a
    5xx; afterwards the player has exactly one active server seed and one revealed seed per
    rotation that succeeded."""
    api = Api(postgres_app.test_client())
    player = api.create_player()
    api.get(f"/api/v1/players/{player.id}/seeds", auth=player.auth)  # the first pair
    statuses: Counter[int] = Counter()
    rotated = [0]  # rotations that answered 200
    failures: list[Any] = []
    lock = threading.Lock()
    barrier = threading.Barrier(10)

    def note(kind: str, response: Any) -> None:
        with lock:
            statuses[response.status_code] += 1
            busy = response.status_code == 409
            if busy and response.get_json()["code"] == "seed_rotation_in_progress":
                return
            if response.status_code != 200:
                failures.append((kind, response.status_code, response.get_json()))
            elif kind == "rotate":
                rotated[0] += 1

    def work(thread: int) -> None:
        client = postgres_app.test_client()
        barrier.wait(timeout=30)
        for i in range(40):
            note(
                "rotate",
                client.post(f"/api/v1/players/{player.id}/seeds/rotate", headers=player.auth),
            )
            if thread % 2:
                note(
                    "client",
                    client.put(
                        f"/api/v1/players/{player.id}/seeds/client",
                        json={"client_seed": f"t{thread}-{i}"},
                        headers=player.auth,
                    ),
                )

    threads = [threading.Thread(target=work, args=(t,)) for t in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a request hung"
    assert failures == [], (statuses, failures[:3])
    assert not any(status >= 500 for status in statuses), statuses
    assert sum(statuses.values()) == 10 * 40 + 5 * 40 and rotated[0] > 0, statuses
    active, every = _server_seeds(postgres_app.config["DATABASE_URL"], player.id)
    assert active == 1
    assert every == 1 + rotated[0]  # the first pair, then one revealed seed per rotation
    seeds = api.get(f"/api/v1/players/{player.id}/seeds", auth=player.auth)
    assert seeds.status_code == 200, seeds.get_json()


# ---------------------------------------------------------------- 4: control bytes in paths


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/tables/classic%00",
        "/api/v1/tables/%00",
        "/api/v1/tables/clas%01sic",
        "/api/v1/tables/classic%7F",
    ],
)
def test_a_control_byte_in_a_path_segment_is_404(api: Api, path: str) -> None:
    api.create_table("classic")
    assert_problem(api.get(path, auth=api.operator_auth), 404, "not_found")
    patched = api.patch(path, {"active": False}, auth=api.operator_auth)
    assert_problem(patched, 404, "not_found")
    assert api.get("/api/v1/tables/classic", auth=api.operator_auth).get_json()["active"]


# ---------------------------------------------------------------- 6: response headers


def _assert_safe_headers(response: Any) -> None:
    headers = response.headers
    assert headers["Cache-Control"] == "no-store", (response.status_code, dict(headers))
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
    assert headers["Referrer-Policy"] == "no-referrer"


def test_every_answer_carries_no_store_and_the_json_api_headers(api: Api) -> None:
    api.create_table("classic")
    created = api.post("/api/v1/players", {"external_ref": "headers"}, auth=api.operator_auth)
    assert created.status_code == 201 and created.get_json()["token"]  # a token in the body
    player = Player(created.get_json()["id"], created.get_json()["token"], "headers")
    deposit = api.post(
        f"/api/v1/players/{player.id}/deposits",
        {"currency": "EUR", "amount": 5000},
        auth=api.operator_auth,
        key=new_key(),
    )
    answers = [
        created,
        deposit,
        api.get(f"/api/v1/players/{player.id}/wallets", auth=player.auth),
        api.bet(player),
        api.get("/api/v1/tables", auth=player.auth),
        api.get("/api/v1/health"),
        api.get("/api/v1/ready"),
        api.get("/api/v1/openapi.json"),
        api.get("/api/v1/tables"),  # 401
        api.get("/api/v1/nowhere"),  # 404 from routing
        api.post("/api/v1/free-play/games", {"variant": "classic"}),
    ]
    for response in answers:
        _assert_safe_headers(response)
    # The docs page keeps its own policy (it runs Swagger UI's scripts) and the frame ban.
    page = api.get("/api/v1/docs")
    assert page.headers["X-Content-Type-Options"] == "nosniff"
    assert "script-src 'self'" in page.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]


def test_hsts_only_over_https(api: Api) -> None:
    assert "Strict-Transport-Security" not in api.get("/api/v1/health").headers
    secure = api.client.get("/api/v1/health", base_url="https://localhost")
    assert secure.headers["Strict-Transport-Security"].startswith("max-age=")


# ---------------------------------------------------------------- 8: resolved fingerprints


def test_a_retry_spelling_the_uuid_in_upper_case_is_the_same_request(api: Api) -> None:
    player = api.create_player()
    key = new_key()
    body = {"currency": "EUR", "amount": 700, "reference": "case"}
    first = api.post(f"/api/v1/players/{player.id}/deposits", body, api.operator_auth, key)
    assert first.status_code == 201, first.get_json()
    upper = player.id.upper()
    retry = api.post(f"/api/v1/players/{upper}/deposits", body, api.operator_auth, key)
    assert retry.status_code == 201, retry.get_json()
    assert retry.headers["Idempotent-Replayed"] == "true"
    assert retry.get_json() == first.get_json()
    assert api.balance(player) == 700  # booked once
    # Another resource under the same key is still another request.
    other = api.create_player()
    elsewhere = api.post(f"/api/v1/players/{other.id}/deposits", body, api.operator_auth, key)
    assert_problem(elsewhere, 422, "idempotency_key_reused")


def test_a_decision_retried_with_an_upper_case_round_id_replays(
    api: Api, funded: Player, database_url: str
) -> None:
    from .helpers import is_tie, steer_next_deal

    steer_next_deal(api, database_url, funded, is_tie)
    bet = api.bet(funded)
    assert bet.status_code == 201 and bet.get_json()["status"] == "awaiting_decision"
    round_id = bet.get_json()["id"]
    key = new_key()
    decision = {"action": "surrender"}
    first = api.post(f"/api/v1/rounds/{round_id}/decision", decision, funded.auth, key)
    assert first.status_code == 200, first.get_json()
    again = api.post(f"/api/v1/rounds/{round_id.upper()}/decision", decision, funded.auth, key)
    assert again.status_code == 200, again.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"


# ---------------------------------------------------------------- 7 and 10: operator tokens


def _cli(*args: str) -> str:
    from click.testing import CliRunner

    from casino.cli import main as cli

    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def _token_id(database_url: str, name: str) -> int:
    listed = _cli("list-operator-tokens", "--database-url", database_url)
    row = next(line for line in listed.splitlines() if f"\t{name}\t" in line)
    return int(row.split("\t")[0])


def test_a_new_operator_token_never_inherits_a_revoked_ones_requests(
    api: Api, database_url: str
) -> None:
    """SQLite gave a new token the id of the revoked last one, and with it the revoked
    token's idempotency records: its deposit was answered from them and never booked."""
    player = api.create_player()
    body = {"currency": "EUR", "amount": 1_000, "reference": "same body"}
    key = new_key()
    first = _cli("create-operator-token", "--name", "first", "--database-url", database_url)
    auth = {"Authorization": f"Bearer {first.strip()}"}
    deposit = api.post(f"/api/v1/players/{player.id}/deposits", body, auth, key)
    assert deposit.status_code == 201, deposit.get_json()
    first_id = _token_id(database_url, "first")
    _cli("revoke-operator-token", str(first_id), "--database-url", database_url)
    assert api.get("/api/v1/tables", auth=auth).status_code == 401

    second = _cli("create-operator-token", "--name", "second", "--database-url", database_url)
    assert _token_id(database_url, "second") > first_id
    # Another payment (a reference is used once); had the second token inherited the first
    # one's records, the key would answer 422 idempotency_key_reused for the new body.
    again = api.post(
        f"/api/v1/players/{player.id}/deposits",
        {**body, "reference": "another payment"},
        {"Authorization": f"Bearer {second.strip()}"},
        key,
    )
    assert again.status_code == 201, again.get_json()
    assert "Idempotent-Replayed" not in again.headers
    assert again.get_json()["id"] != deposit.get_json()["id"]
    assert api.balance(player) == 2_000


def test_cli_operator_tokens_can_expire(api: Api, database_url: str) -> None:
    from sqlalchemy import create_engine, update

    from casino.store.models import OperatorToken, utcnow

    token = _cli(
        "create-operator-token",
        "--name",
        "temp",
        "--expires-in",
        "1h",
        "--database-url",
        database_url,
    ).strip()
    auth = {"Authorization": f"Bearer {token}"}
    assert api.get("/api/v1/tables", auth=auth).status_code == 200
    listed = _cli("list-operator-tokens", "--database-url", database_url)
    assert re.search(r"\ttemp\t\S+\texpires 20\d\d-", listed), listed
    forever = _cli("create-operator-token", "--name", "forever", "--database-url", database_url)
    assert "\tforever\t" in _cli("list-operator-tokens", "--database-url", database_url)
    assert "expires never" in _cli("list-operator-tokens", "--database-url", database_url)

    # An hour later (moved in the database, not waited for): refused like any bad token.
    engine = create_engine(database_url)
    try:
        with engine.begin() as connection:
            connection.execute(
                update(OperatorToken)
                .where(OperatorToken.name == "temp")
                .values(expires_at=utcnow() - timedelta(seconds=1))
            )
    finally:
        engine.dispose()
    assert_problem(api.get("/api/v1/tables", auth=auth), 401, "unauthenticated")
    other = {"Authorization": f"Bearer {forever.strip()}"}
    assert api.get("/api/v1/tables", auth=other).status_code == 200


@pytest.mark.parametrize("lifetime", ["0", "0s", "soon"])
def test_an_expiry_must_be_a_positive_duration(database_url: str, lifetime: str) -> None:
    from click.testing import CliRunner

    from casino.cli import main as cli

    result = CliRunner().invoke(
        cli,
        ["create-operator-token", "--expires-in", lifetime, "--database-url", database_url],
    )
    assert result.exit_code != 0 and "--expires-in" in result.output


@pytest.mark.parametrize(
    ("tokens", "reason"),
    [
        ("short-but-random-Xq9", "shorter than 32"),
        ("x" * 40, "distinct characters"),
        ("changeme-changeme-changeme-changeme-42", "placeholder word 'changeme'"),
        ("prod-operator-token-of-the-casino-2026", "placeholder word 'token'"),
        ("K7qLm2Vx9Rt4Wz0Pb8Nc6Hd3Jf1Gs5Ya-0123456789", "run '012345'"),
        ("Xq4mP9vL2kR7tW1zN8bC5hJ3dF6gS0aY,weak", "token 2 is guessable"),
    ],
)
def test_production_refuses_guessable_operator_tokens(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, tokens: str, reason: str
) -> None:
    import config
    from casino import create_app

    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'prod.db'}")
    monkeypatch.setenv("CASINO_SIGNING_KEY", "ab" * 32)
    monkeypatch.setenv("CASINO_OPERATOR_TOKENS", tokens)
    with pytest.raises(config.ConfigError, match="guessable") as refused:
        create_app("production")
    assert reason in str(refused.value)
    for token in tokens.split(","):
        assert token not in str(refused.value)  # never echoed


def test_production_accepts_random_operator_tokens(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from casino import create_app
    from casino.api.database import EXTENSION_KEY

    good = [secrets.token_urlsafe(32), secrets.token_hex(32), "op_" + secrets.token_urlsafe(32)]
    monkeypatch.setenv("RATELIMIT_STORAGE_URI", "memory://")
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'prod.db'}")
    monkeypatch.setenv("CASINO_SIGNING_KEY", "ab" * 32)
    monkeypatch.setenv("CASINO_OPERATOR_TOKENS", ",".join(good))
    app = create_app("production")
    assert app.config["CASINO_OPERATOR_TOKENS"] == good
    app.extensions[EXTENSION_KEY].engine.dispose()


# ---------------------------------------------------------------- 9: shared auth counters


def _production_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'prod.db'}")
    monkeypatch.setenv("CASINO_SIGNING_KEY", "ab" * 32)
    monkeypatch.setenv("CASINO_OPERATOR_TOKENS", secrets.token_urlsafe(32))
    monkeypatch.delenv("RATELIMIT_STORAGE_URI", raising=False)
    monkeypatch.delenv("REDIS_URL", raising=False)


def test_production_refuses_to_count_failed_authentications_per_process_by_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import config
    from casino import create_app

    _production_env(monkeypatch, tmp_path)
    with pytest.raises(config.ConfigError, match="RATELIMIT_STORAGE_URI") as refused:
        create_app("production")
    assert "REDIS_URL" in str(refused.value) and "memory://" in str(refused.value)
    # Commands that build no app (the sealer, resolve-stale) still read the settings.
    settings = config.settings({**os.environ, "CASINO_ENV": "production"})
    assert settings["RATELIMIT_STORAGE_URI"] is None


@pytest.mark.parametrize(
    ("variable", "uri"),
    [
        ("RATELIMIT_STORAGE_URI", "redis://127.0.0.1:6379/0"),
        ("REDIS_URL", "redis://127.0.0.1:6379/1"),
    ],
)
def test_production_starts_with_a_shared_counter_store(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, variable: str, uri: str
) -> None:
    from casino import create_app
    from casino.api.database import EXTENSION_KEY

    _production_env(monkeypatch, tmp_path)
    monkeypatch.setenv(variable, uri)
    app = create_app("production")  # naming the store connects to nothing yet
    assert app.config["RATELIMIT_STORAGE_URI"] == uri
    app.extensions[EXTENSION_KEY].engine.dispose()


def test_production_counts_per_process_only_when_told_to(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    from casino import create_app
    from casino.api.database import EXTENSION_KEY

    _production_env(monkeypatch, tmp_path)
    monkeypatch.setenv("RATELIMIT_STORAGE_URI", "memory://")
    with caplog.at_level("WARNING", logger="casino.api.throttling"):
        app = create_app("production")
    assert app.config["RATELIMIT_STORAGE_URI"] == "memory://"
    assert "per worker process" in caplog.text
    app.extensions[EXTENSION_KEY].engine.dispose()


# ---------------------------------------------------------------- 12: seed-demo twice

_CURL = re.compile(
    r"curl -s (?P<post>-X POST )?http://127\.0\.0\.1:8000(?P<path>/api/v1/\S+)"
    r" -H 'Authorization: Bearer (?P<token>\S+)'(?P<rest>.*)"
)


def _replay_curl_examples(api: Api, output: str) -> list[int]:
    """Send each curl example ``seed-demo`` printed, as printed, through the app."""
    statuses = []
    for match in _CURL.finditer(output):
        auth = {"Authorization": f"Bearer {match['token']}"}
        if match["post"]:
            body = json.loads(re.search(r"-d '(.*)'", match["rest"])[1])  # type: ignore[index]
            response = api.post(match["path"], body, auth=auth, key=new_key())
        else:
            response = api.get(match["path"], auth=auth)
        statuses.append(response.status_code)
    return statuses


def _worked(statuses: list[int]) -> bool:
    """Tables and wallets read; the bet placed (or refused as a tie awaits a decision:
    the demo player's deals are random) - never refused for its token."""
    return len(statuses) == 3 and statuses[0] == statuses[2] == 200 and statuses[1] in (201, 409)


def _stored_demo_operator_tokens(database_url: str) -> int:
    from sqlalchemy import create_engine, func, select

    from casino.store.models import OperatorToken

    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            return int(
                connection.execute(
                    select(func.count())
                    .select_from(OperatorToken)
                    .where(OperatorToken.name == "demo operator")
                ).scalar_one()
            )
    finally:
        engine.dispose()


def test_seed_demo_twice_keeps_the_printed_examples_working(
    api: Api, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # as `make run` does it, from the checkout
    credentials = tmp_path / "instance" / "demo-credentials.json"
    seed = ("seed-demo", "--database-url", database_url)
    first = _cli(*seed)
    assert _worked(_replay_curl_examples(api, first))
    second = _cli(*seed)
    tokens = re.compile(r"(operator|player) token:\s+(\S+)")
    assert tokens.findall(second) == tokens.findall(first)
    # The first run's examples, sent after the second run, still work.
    assert _worked(_replay_curl_examples(api, first))
    assert _stored_demo_operator_tokens(database_url) == 1
    assert oct(credentials.stat().st_mode & 0o777) == "0o600"

    # Without the file the tokens cannot be shown again: new ones replace the old ones.
    credentials.unlink()
    third = _cli(*seed)
    assert tokens.findall(third) != tokens.findall(first)
    assert _worked(_replay_curl_examples(api, third))
    assert _stored_demo_operator_tokens(database_url) == 1
    old_operator = dict(tokens.findall(first))["operator"]
    assert (
        api.get("/api/v1/tables", auth={"Authorization": f"Bearer {old_operator}"}).status_code
        == 401
    )


# ---------------------------------------------------------------- 16: bounded database waits


@contextlib.contextmanager
def _write_lock_held(database_url: str, at_most: float = 15.0) -> Iterator[None]:
    """Another session holds what every bet needs: SQLite's write lock, PostgreSQL's
    ``accounts`` table in ACCESS EXCLUSIVE mode. Released after ``at_most`` seconds whatever
    happens, so an unbounded wait shows up as a slow answer rather than a hung test."""
    from sqlalchemy import create_engine, text

    engine = create_engine(
        database_url,
        isolation_level="AUTOCOMMIT",
        connect_args={"check_same_thread": False} if database_url.startswith("sqlite") else {},
    )
    released = threading.Lock()

    def release(connection: Any) -> None:
        with released:
            if connection.in_transaction() or engine.dialect.name == "sqlite":
                with contextlib.suppress(Exception):
                    connection.exec_driver_sql("ROLLBACK")

    try:
        with engine.connect() as connection:
            if engine.dialect.name == "sqlite":
                connection.exec_driver_sql("BEGIN IMMEDIATE")
            else:
                connection.execute(text("BEGIN"))
                connection.execute(text("LOCK TABLE accounts IN ACCESS EXCLUSIVE MODE"))
            valve = threading.Timer(at_most, release, args=(connection,))
            valve.start()
            try:
                yield
            finally:
                valve.cancel()
                release(connection)
    finally:
        engine.dispose()


def test_a_held_lock_costs_a_bet_the_lock_timeout_and_a_503(database_url: str) -> None:
    from casino import create_app
    from casino.api.database import EXTENSION_KEY

    from .helpers import make_config

    app = create_app(make_config(database_url, DATABASE_LOCK_TIMEOUT=1.0))
    try:
        api = Api(app.test_client())
        api.create_table("classic")
        player = api.create_player()
        api.deposit(player, 100_000)
        key = new_key()
        body = {"table_id": "classic", "ante": 100}
        with _write_lock_held(database_url):
            started = time.monotonic()
            refused = api.post("/api/v1/rounds", body, auth=player.auth, key=key)
            assert time.monotonic() - started < 3.0
            assert_problem(refused, 503, "service_unavailable")
            assert int(refused.headers["Retry-After"]) >= 1
            assert api.get("/api/v1/health").status_code == 200
        played = api.post("/api/v1/rounds", body, auth=player.auth, key=key)
        assert played.status_code == 201, played.get_json()
        replayed = api.post("/api/v1/rounds", body, auth=player.auth, key=key)
        assert replayed.headers["Idempotent-Replayed"] == "true"
        rounds = api.get("/api/v1/rounds", auth=player.auth).get_json()
        assert [r["id"] for r in rounds["items"]] == [played.get_json()["id"]]
    finally:
        app.extensions[EXTENSION_KEY].engine.dispose()


@pytest.mark.postgres
def test_ready_waits_on_the_tables_a_bet_needs_not_just_select_1(postgres_app: Flask) -> None:
    """A table locked for a migration: SELECT 1 still answers, bets do not, so neither does
    readiness (within the lock timeout)."""
    from casino import create_app
    from casino.api.database import EXTENSION_KEY

    from .helpers import make_config

    url = postgres_app.config["DATABASE_URL"]
    app = create_app(make_config(url, DATABASE_LOCK_TIMEOUT=1.0))
    try:
        client = app.test_client()
        assert client.get("/api/v1/ready").status_code == 200
        with _write_lock_held(url):
            started = time.monotonic()
            assert_problem(client.get("/api/v1/ready"), 503, "service_unavailable")
            assert time.monotonic() - started < 3.0
        assert client.get("/api/v1/ready").status_code == 200
    finally:
        app.extensions[EXTENSION_KEY].engine.dispose()


def test_generated_tokens_are_never_refused_as_guessable() -> None:
    """A random draw may spell a placeholder word ("test", "demo"): the generator draws again."""
    from config.token_policy import random_token, weakness

    drawn = [random_token("op_") for _ in range(5000)]
    assert all(weakness(token) is None for token in drawn)
    assert all(token.startswith("op_") for token in drawn) and len(set(drawn)) == len(drawn)
