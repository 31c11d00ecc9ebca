"""Hostile input by hand: every refusal is problem+json with a stable code, and nothing in
the database changes (row counts of every table, every account balance, every seed).

Runs through the real app factory and Flask's test client, on SQLite always and on
PostgreSQL where there is one (the ``postgres`` parameter of ``database_url``).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import create_engine, func, select, text
from sqlalchemy.engine import Engine

from harness.inprocess import OPERATOR_TOKEN, build_app, dispose

PROBLEM = "application/problem+json"
SQL_LIKE = "x'); DROP TABLE players; --"
SCRIPT_LIKE = "<script>alert(1)</script>"
UNICODE_REFS = [
    "Ünïcødé 🎰 ref",
    "\u202eRTL override",
    "zero\u200bwidth",
    "全角テスト",
    "\U0001d518\U0001d52b\U0001d526",
]  # fraktur letters


@dataclass
class World:
    app: Any
    client: Any
    engine: Engine
    a_id: str
    a_token: str
    b_id: str
    b_token: str
    a_round: str
    b_round: str

    def headers(self, who: str, key: bool = True) -> dict[str, str]:
        token = {"operator": OPERATOR_TOKEN, "a": self.a_token, "b": self.b_token}[who]
        out = {"Authorization": f"Bearer {token}"}
        if key:
            out["Idempotency-Key"] = str(uuid.uuid4())
        return out


def snapshot(engine: Engine) -> dict[str, Any]:
    """Everything a refused request must leave exactly as it was."""
    import casino.store.models  # noqa: F401  (registers the tables on Base.metadata)
    from casino.store.base import Base

    state: dict[str, Any] = {}
    with engine.connect() as conn:
        for table in Base.metadata.sorted_tables:
            state[f"rows:{table.name}"] = conn.execute(
                select(func.count()).select_from(table)
            ).scalar_one()
        state["balances"] = sorted(conn.execute(text("SELECT key, balance FROM accounts")).all())
        state["seeds"] = sorted(
            conn.execute(text("SELECT id, active, next_nonce, client_seed FROM server_seeds")).all()
        )
        state["rounds"] = sorted(conn.execute(text("SELECT id, status, net FROM rounds")).all())
        state["tables"] = sorted(
            (tid, json.dumps(rules, sort_keys=True) if not isinstance(rules, str) else rules, act)
            for tid, rules, act in conn.execute(text("SELECT id, rules, active FROM casino_tables"))
        )
    return state


def assert_problem(
    response: Any, status: int, code: str | set[str] | None = None
) -> dict[str, Any]:
    body = response.get_json(force=True, silent=True)
    assert response.status_code == status, (response.status_code, body)
    assert response.mimetype == PROBLEM, response.mimetype
    assert isinstance(body, dict)
    for member in ("type", "title", "status", "detail", "code"):
        assert member in body, (member, body)
    assert body["status"] == status
    if isinstance(code, str):
        assert body["code"] == code, body
    elif code is not None:
        assert body["code"] in code, body
    if body["code"] == "validation_failed":
        assert isinstance(body.get("errors"), dict) and body["errors"], body
    return body


def _create(client: Any, path: str, body: dict[str, Any], headers: dict[str, str]) -> Any:
    response = client.post(path, json=body, headers=headers)
    assert response.status_code in (200, 201), (path, response.status_code, response.get_json())
    return response.get_json()


@pytest.fixture(scope="module")
def world(database_url: str) -> Iterator[World]:
    app = build_app(database_url)
    client = app.test_client()
    op = {"Authorization": f"Bearer {OPERATOR_TOKEN}"}
    _create(
        client,
        "/api/v1/tables",
        {
            "id": "classic",
            "currency": "EUR",
            "rules": {
                "decks": 6,
                "min_ante": 100,
                "max_ante": 500000,
                "bet_increment": 100,
                "max_tie_bet": 100000,
                "tie_pays": 10,
                "war_tie_bonus": False,
                "surrender_allowed": True,
            },
        },
        op,
    )
    players = []
    for name in ("a", "b"):
        created = _create(
            client, "/api/v1/players", {"external_ref": f"hostile-{name}-{uuid.uuid4()}"}, op
        )
        _create(
            client,
            f"/api/v1/players/{created['id']}/deposits",
            {"currency": "EUR", "amount": 100_000, "reference": f"fund-{name}"},
            {**op, "Idempotency-Key": str(uuid.uuid4())},
        )
        auth = {"Authorization": f"Bearer {created['token']}"}
        round_ = _create(
            client,
            "/api/v1/rounds",
            {"table_id": "classic", "ante": 100},
            {**auth, "Idempotency-Key": str(uuid.uuid4())},
        )
        players.append((created["id"], created["token"], round_["id"]))
    engine = create_engine(database_url)
    (a_id, a_token, a_round), (b_id, b_token, b_round) = players
    yield World(app, client, engine, a_id, a_token, b_id, b_token, a_round, b_round)
    engine.dispose()
    dispose(app)


@pytest.fixture
def unchanged(world: World) -> Iterator[None]:
    """Fails the test if the database moved at all while it ran."""
    before = snapshot(world.engine)
    yield
    assert snapshot(world.engine) == before


# --------------------------------------------------------------------- amounts

BAD_AMOUNTS = [
    pytest.param(-1, id="negative"),
    pytest.param(-(10**12), id="very-negative"),
    pytest.param(0, id="zero"),
    pytest.param(1.5, id="float"),
    pytest.param(100.0, id="integral-float"),
    pytest.param(1e3, id="exponent-float"),
    pytest.param("100", id="string"),
    pytest.param("1e3", id="string-exponent"),
    pytest.param(True, id="boolean"),
    pytest.param(None, id="null"),
    pytest.param(10**12 + 1, id="above-limit"),
    pytest.param(10**100, id="huge"),
    pytest.param([100], id="list"),
    pytest.param({"value": 100}, id="object"),
]


@pytest.mark.parametrize("amount", BAD_AMOUNTS)
@pytest.mark.parametrize("movement", ["deposits", "withdrawals"])
def test_bad_amounts_are_refused(world: World, unchanged: None, movement: str, amount: Any) -> None:
    response = world.client.post(
        f"/api/v1/players/{world.a_id}/{movement}",
        json={"currency": "EUR", "amount": amount, "reference": "hostile"},
        headers=world.headers("operator"),
    )
    body = assert_problem(response, 422, "validation_failed")
    assert "amount" in body["errors"]


@pytest.mark.parametrize(
    "ante",
    [
        *BAD_AMOUNTS,
        pytest.param(150, id="off-increment"),
        pytest.param(500_100, id="above-table-max"),
    ],
)
def test_bad_antes_are_refused(world: World, unchanged: None, ante: Any) -> None:
    response = world.client.post(
        "/api/v1/rounds", json={"table_id": "classic", "ante": ante}, headers=world.headers("b")
    )
    # A well-typed stake the table does not take is a domain refusal (invalid_bet codes);
    # everything else is a validation failure. B has a round open, so a valid-typed ante
    # may also meet round_in_progress first: either way nothing may move.
    assert response.status_code in (409, 422), response.get_json()
    assert_problem(response, response.status_code)


@pytest.mark.parametrize("tie_bet", [-1, 1.5, "100", True, 10**12 + 1])
def test_bad_tie_bets_are_refused(world: World, unchanged: None, tie_bet: Any) -> None:
    response = world.client.post(
        "/api/v1/rounds",
        json={"table_id": "classic", "ante": 100, "tie_bet": tie_bet},
        headers=world.headers("a"),
    )
    body = assert_problem(response, 422, "validation_failed")
    assert "tie_bet" in body["errors"]


@pytest.mark.parametrize("currency", ["eur", "EURO", "", "E1R", 978, None, "€"])
def test_bad_currencies_are_refused(world: World, unchanged: None, currency: Any) -> None:
    response = world.client.post(
        f"/api/v1/players/{world.a_id}/deposits",
        json={"currency": currency, "amount": 100, "reference": "hostile"},
        headers=world.headers("operator"),
    )
    body = assert_problem(response, 422, "validation_failed")
    assert "currency" in body["errors"]


def test_withdrawal_beyond_balance_is_refused(world: World, unchanged: None) -> None:
    response = world.client.post(
        f"/api/v1/players/{world.a_id}/withdrawals",
        json={"currency": "EUR", "amount": 10**12, "reference": "too much"},
        headers=world.headers("operator"),
    )
    assert_problem(response, 409, "insufficient_funds")


def test_bet_beyond_balance_is_refused(world: World, unchanged: None) -> None:
    response = world.client.post(
        "/api/v1/rounds",
        json={"table_id": "classic", "ante": 500_000},
        headers=world.headers("a"),
    )
    assert_problem(response, 409, {"insufficient_funds", "round_in_progress"})


# --------------------------------------------------------------------- shape of the body


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("deposits", {"currency": "EUR", "amount": 100, "reference": "r", "bonus": 1}),
        ("deposits", {"currency": "EUR", "amount": 100, "reference": "r", "player_id": "x"}),
        ("deposits", {"currency": "EUR", "amount": 100}),
        ("deposits", {}),
        ("withdrawals", {"currency": "EUR", "amount": 100, "reference": "r", "force": True}),
    ],
    ids=["unknown-field", "smuggled-player", "missing-reference", "empty", "withdraw-extra"],
)
def test_unknown_and_missing_fields_are_refused(
    world: World, unchanged: None, path: str, body: dict[str, Any]
) -> None:
    response = world.client.post(
        f"/api/v1/players/{world.a_id}/{path}", json=body, headers=world.headers("operator")
    )
    assert_problem(response, 422, "validation_failed")


def test_unknown_bet_field_is_refused(world: World, unchanged: None) -> None:
    response = world.client.post(
        "/api/v1/rounds",
        json={"table_id": "classic", "ante": 100, "player_id": world.b_id},
        headers=world.headers("a"),
    )
    assert_problem(response, 422, "validation_failed")


@pytest.mark.parametrize(
    "content_type",
    [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/xml",
    ],
)
def test_wrong_content_type_is_refused(world: World, unchanged: None, content_type: str) -> None:
    response = world.client.post(
        f"/api/v1/players/{world.a_id}/deposits",
        data=json.dumps({"currency": "EUR", "amount": 100, "reference": "r"}),
        headers={**world.headers("operator"), "Content-Type": content_type},
    )
    assert_problem(response, 415, "unsupported_media_type")


@pytest.mark.parametrize(
    "raw",
    [
        b'{"currency": "EUR", "amount": 1',
        b'{"currency": "EUR", "amount": NaN, "reference": "r"}',
        b'{"currency": "EUR", "amount": Infinity, "reference": "r"}',
        b'{"amount": 100, "amount": 1, "currency": "EUR", "reference": "r"}',
        b"\xff\xfe{}",
        b"[" * 100_000,
        b"{'currency': 'EUR'}",
    ],
    ids=["truncated", "nan", "infinity", "duplicate-key", "not-utf8", "deep-nesting", "quotes"],
)
def test_malformed_json_is_refused(world: World, unchanged: None, raw: bytes) -> None:
    response = world.client.post(
        f"/api/v1/players/{world.a_id}/deposits",
        data=raw,
        headers={**world.headers("operator"), "Content-Type": "application/json"},
    )
    assert_problem(response, 400, "malformed_json")


@pytest.mark.parametrize("raw", [b"[1, 2]", b'"deposit"', b"null", b"100"])
def test_json_that_is_not_an_object_is_refused(world: World, unchanged: None, raw: bytes) -> None:
    response = world.client.post(
        f"/api/v1/players/{world.a_id}/deposits",
        data=raw,
        headers={**world.headers("operator"), "Content-Type": "application/json"},
    )
    assert_problem(response, 400, "malformed_json")


def test_one_megabyte_body_is_refused_with_413(world: World, unchanged: None) -> None:
    padding = "x" * (1024 * 1024)
    response = world.client.post(
        f"/api/v1/players/{world.a_id}/deposits",
        data=json.dumps({"currency": "EUR", "amount": 100, "reference": padding}),
        headers={**world.headers("operator"), "Content-Type": "application/json"},
    )
    assert_problem(response, 413, "payload_too_large")


@pytest.mark.parametrize(
    "key",
    ["", "   ", "k" * 256, "tab\tkey", "ключ", "a\x00b"],
    ids=["empty", "blank", "too-long", "control", "non-ascii", "nul"],
)
def test_bad_idempotency_keys_are_refused(world: World, unchanged: None, key: str) -> None:
    headers = {**world.headers("operator", key=False), "Idempotency-Key": key}
    try:
        response = world.client.post(
            f"/api/v1/players/{world.a_id}/deposits",
            json={"currency": "EUR", "amount": 100, "reference": "r"},
            headers=headers,
        )
    except ValueError:
        # werkzeug itself will not put some bytes in a header; no request, nothing changed.
        return
    assert_problem(response, 400, {"idempotency_key_required", "idempotency_key_invalid"})


def test_missing_idempotency_key_is_refused(world: World, unchanged: None) -> None:
    for path, who, body in [
        (
            f"/api/v1/players/{world.a_id}/deposits",
            "operator",
            {"currency": "EUR", "amount": 100, "reference": "r"},
        ),
        (
            f"/api/v1/players/{world.a_id}/withdrawals",
            "operator",
            {"currency": "EUR", "amount": 100, "reference": "r"},
        ),
        ("/api/v1/rounds", "a", {"table_id": "classic", "ante": 100}),
        (f"/api/v1/rounds/{world.b_round}/decision", "b", {"action": "war"}),
    ]:
        response = world.client.post(path, json=body, headers=world.headers(who, key=False))
        assert_problem(response, 400, "idempotency_key_required")


@pytest.mark.parametrize("action", ["WAR", "fold", "", None, 1, ["war"]])
def test_bad_decisions_are_refused(world: World, unchanged: None, action: Any) -> None:
    response = world.client.post(
        f"/api/v1/rounds/{world.b_round}/decision",
        json={"action": action},
        headers=world.headers("b"),
    )
    assert_problem(response, 422, "validation_failed")


# --------------------------------------------------------------------- strings


@pytest.mark.parametrize(
    "reference",
    [SQL_LIKE, SCRIPT_LIKE, "' OR '1'='1", "%s%s%s%n", "${jndi:ldap://127.0.0.1/a}", *UNICODE_REFS],
)
def test_hostile_strings_are_stored_verbatim(world: World, reference: str) -> None:
    """Valid input that looks like code is data: stored and returned byte for byte."""
    before = snapshot(world.engine)
    response = world.client.post(
        f"/api/v1/players/{world.a_id}/deposits",
        json={"currency": "EUR", "amount": 1, "reference": reference},
        headers=world.headers("operator"),
    )
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["reference"] == reference
    after = snapshot(world.engine)
    # Exactly one deposit: one transaction with its postings, two balances moved by 1.
    assert after["rows:players"] == before["rows:players"]
    assert after["rows:ledger_transactions"] == before["rows:ledger_transactions"] + 1
    listed = world.client.get(
        f"/api/v1/players/{world.a_id}/transactions?limit=1",
        headers=world.headers("a", key=False),
    ).get_json()
    assert listed["items"][0]["reference"] == reference


@pytest.mark.parametrize(
    "reference",
    ["nul\x00byte", "bell\x07", "line\nbreak", "", "r" * 201, "\ud800lone surrogate"],
    ids=["nul", "control", "newline", "empty", "too-long", "lone-surrogate"],
)
def test_unstorable_strings_are_refused(world: World, unchanged: None, reference: str) -> None:
    response = world.client.post(
        f"/api/v1/players/{world.a_id}/deposits",
        data=json.dumps({"currency": "EUR", "amount": 100, "reference": reference}),
        headers={**world.headers("operator"), "Content-Type": "application/json"},
    )
    assert response.status_code in (400, 422), (response.status_code, response.get_json())
    assert_problem(response, response.status_code)


@pytest.mark.parametrize("table_id", [SQL_LIKE, SCRIPT_LIKE, "CLASSIC", "classic ", "🎰"])
def test_hostile_table_ids_are_refused(world: World, unchanged: None, table_id: str) -> None:
    response = world.client.post(
        "/api/v1/rounds", json={"table_id": table_id, "ante": 100}, headers=world.headers("a")
    )
    assert_problem(response, 422, "validation_failed")


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/players/' OR 1=1 --",
        "/api/v1/players/%27%20OR%201%3D1",
        "/api/v1/rounds/..%2F..%2Fetc%2Fpasswd",
        "/api/v1/tables/%3Cscript%3E",
        "/api/v1/players/00000000-0000-0000-0000-000000000000",
    ],
)
def test_hostile_paths_are_not_found(world: World, unchanged: None, path: str) -> None:
    response = world.client.get(path, headers=world.headers("operator", key=False))
    assert_problem(response, 404)


# --------------------------------------------------------------------- other players


def test_player_cannot_see_another_players_resources(world: World, unchanged: None) -> None:
    b = world.b_id
    for path in [
        f"/api/v1/players/{b}",
        f"/api/v1/players/{b}/wallets",
        f"/api/v1/players/{b}/transactions",
        f"/api/v1/players/{b}/seeds",
        f"/api/v1/rounds/{world.b_round}",
        f"/api/v1/rounds?player_id={b}",
    ]:
        response = world.client.get(path, headers=world.headers("a", key=False))
        assert_problem(response, 404)
    # An unknown id and another player's id must look exactly alike.
    unknown = world.client.get(
        f"/api/v1/players/{uuid.uuid4()}", headers=world.headers("a", key=False)
    )
    other = world.client.get(f"/api/v1/players/{b}", headers=world.headers("a", key=False))
    assert unknown.get_json() == other.get_json()


def test_player_cannot_act_on_another_players_resources(world: World, unchanged: None) -> None:
    b = world.b_id
    attempts = [
        ("post", f"/api/v1/rounds/{world.b_round}/decision", {"action": "surrender"}),
        ("put", f"/api/v1/players/{b}/seeds/client", {"client_seed": "mine now"}),
        ("post", f"/api/v1/players/{b}/seeds/rotate", None),
    ]
    for method, path, body in attempts:
        response = getattr(world.client, method)(path, json=body, headers=world.headers("a"))
        assert_problem(response, 404)


def test_player_cannot_use_operator_endpoints(world: World, unchanged: None) -> None:
    attempts = [
        (
            "post",
            f"/api/v1/players/{world.a_id}/deposits",
            {"currency": "EUR", "amount": 100, "reference": "self-service"},
        ),
        (
            "post",
            f"/api/v1/players/{world.a_id}/withdrawals",
            {"currency": "EUR", "amount": 100, "reference": "self-service"},
        ),
        ("post", "/api/v1/players", {"external_ref": "sneaky"}),
        ("post", "/api/v1/tables", {"id": "mine", "currency": "EUR"}),
        ("patch", "/api/v1/tables/classic", {"rules": {"tie_pays": 1000}}),
    ]
    for method, path, body in attempts:
        response = getattr(world.client, method)(path, json=body, headers=world.headers("a"))
        assert_problem(response, 403, "forbidden")


def test_operator_cannot_play(world: World, unchanged: None) -> None:
    response = world.client.post(
        "/api/v1/rounds",
        json={"table_id": "classic", "ante": 100},
        headers=world.headers("operator"),
    )
    assert_problem(response, 403, "forbidden")


# --------------------------------------------------------------------- tokens


@pytest.mark.parametrize(
    "authorization",
    [
        None,
        "",
        "Bearer",
        "Bearer ",
        "Basic dXNlcjpwYXNz",
        "Bearer not-a-real-token",
        "Bearer " + "A" * 600,
        "Bearer tok\u00e9n",
        f"bearer {OPERATOR_TOKEN}x",
        f"Token {OPERATOR_TOKEN}",
    ],
    ids=[
        "none",
        "empty",
        "scheme-only",
        "scheme-space",
        "basic",
        "invalid",
        "oversized",
        "non-ascii",
        "near-miss",
        "wrong-scheme",
    ],
)
def test_invalid_tokens_are_refused(
    world: World, unchanged: None, authorization: str | None
) -> None:
    headers = {"Idempotency-Key": str(uuid.uuid4())}
    if authorization is not None:
        headers["Authorization"] = authorization
    try:
        response = world.client.post(
            f"/api/v1/players/{world.a_id}/deposits",
            json={"currency": "EUR", "amount": 100, "reference": "r"},
            headers=headers,
        )
    except (ValueError, UnicodeEncodeError):
        return  # the client library would not even send it
    body = assert_problem(response, 401, "unauthenticated")
    assert response.headers.get("WWW-Authenticate", "").startswith("Bearer")
    assert OPERATOR_TOKEN not in json.dumps(body)


def test_revoked_tokens_are_refused(database_url: str, world: World) -> None:
    """A configured operator token removed from the configuration, and an operator token
    deleted from the database, both stop working at once."""
    from casino.service.auth import create_operator_token
    from casino.store.session import make_engine, make_session_factory
    from casino.store.uow import UnitOfWork

    engine = make_engine(database_url)
    try:
        with UnitOfWork(make_session_factory(engine), operator="default") as uow:
            stored = create_operator_token(uow, "to be revoked")
            uow.commit()
    finally:
        engine.dispose()
    old = build_app(database_url, operator_tokens=("old-operator-token",))
    try:
        for token in ("old-operator-token", stored):
            ok = old.test_client().get(
                "/api/v1/tables", headers={"Authorization": f"Bearer {token}"}
            )
            assert ok.status_code == 200, ok.get_json()
    finally:
        dispose(old)
    with world.engine.begin() as conn:
        conn.execute(text("DELETE FROM operator_tokens"))
    before = snapshot(world.engine)
    rotated = build_app(database_url, operator_tokens=("new-operator-token",))
    try:
        client = rotated.test_client()
        for token in ("old-operator-token", stored):
            response = client.post(
                f"/api/v1/players/{world.a_id}/deposits",
                json={"currency": "EUR", "amount": 100, "reference": "revoked"},
                headers={"Authorization": f"Bearer {token}", "Idempotency-Key": str(uuid.uuid4())},
            )
            assert_problem(response, 401, "unauthenticated")
    finally:
        dispose(rotated)
    assert snapshot(world.engine) == before


def test_token_guessing_is_rate_limited(database_url: str, world: World) -> None:
    app = build_app(database_url, auth_failure_limit="5 per minute")
    try:
        client = app.test_client()
        before = snapshot(world.engine)
        # The player is playing from this address before the guesses start.
        playing = client.get(
            f"/api/v1/players/{world.a_id}", headers={"Authorization": f"Bearer {world.a_token}"}
        )
        assert playing.status_code == 200
        statuses = []
        for attempt in range(12):
            response = client.get(
                f"/api/v1/players/{world.a_id}",
                headers={"Authorization": f"Bearer guess-{attempt:04d}-{uuid.uuid4().hex}"},
            )
            statuses.append(response.status_code)
        assert statuses[:5] == [401] * 5
        assert 429 in statuses
        limited = response
        body = assert_problem(limited, 429, "rate_limited")
        assert limited.headers.get("Retry-After"), body
        # Only failures are refused: the token already playing here is served (issues 10
        # and 19: others wait, refused before any database work), the next guess is still
        # refused.
        served = client.get(
            f"/api/v1/players/{world.a_id}", headers={"Authorization": f"Bearer {world.a_token}"}
        )
        assert served.status_code == 200
        guess = client.get(
            f"/api/v1/players/{world.a_id}", headers={"Authorization": "Bearer guess-again"}
        )
        assert_problem(guess, 429, "rate_limited")
        assert snapshot(world.engine) == before
    finally:
        dispose(app)


@pytest.mark.parametrize(
    "body",
    [
        {"external_ref": "\ud800"},
        {"external_ref": "ok-ref", "display_name": "bad \udfff name"},
        {"external_ref": "nul\x00ref"},
        {"external_ref": ""},
        {"external_ref": "r" * 201},
        {"external_ref": 12345},
    ],
    ids=["surrogate-ref", "surrogate-name", "nul-ref", "empty-ref", "long-ref", "number-ref"],
)
def test_bad_player_fields_are_refused(world: World, unchanged: None, body: dict[str, Any]) -> None:
    response = world.client.post(
        "/api/v1/players",
        data=json.dumps(body),
        headers={**world.headers("operator", key=False), "Content-Type": "application/json"},
    )
    assert response.status_code in (400, 422), (response.status_code, response.get_json())
    assert_problem(response, response.status_code)


def test_duplicate_external_ref_is_refused(world: World, unchanged: None) -> None:
    existing = world.client.get(
        f"/api/v1/players/{world.a_id}", headers=world.headers("operator", key=False)
    ).get_json()
    response = world.client.post(
        "/api/v1/players",
        json={"external_ref": existing["external_ref"]},
        headers=world.headers("operator", key=False),
    )
    assert_problem(response, 409, "duplicate_external_ref")


@pytest.mark.parametrize(
    "rules",
    [
        {"min_ante": 500, "max_ante": 100},
        {"bet_increment": 0},
        {"decks": 0},
        {"decks": 9},
        {"tie_pays": -1},
        {"min_ante": -100},
        {"max_tie_bet": 1.5},
        {"surrender_allowed": "yes"},
        {"house_edge": 0},
    ],
    ids=[
        "min-above-max",
        "zero-increment",
        "no-decks",
        "too-many-decks",
        "negative-pays",
        "negative-ante",
        "float-limit",
        "string-bool",
        "unknown-rule",
    ],
)
def test_bad_table_rules_are_refused(world: World, unchanged: None, rules: dict[str, Any]) -> None:
    created = world.client.post(
        "/api/v1/tables",
        json={"id": "hostile-table", "currency": "EUR", "rules": rules},
        headers=world.headers("operator", key=False),
    )
    assert_problem(created, 422)
    changed = world.client.patch(
        "/api/v1/tables/classic",
        json={"rules": rules},
        headers=world.headers("operator", key=False),
    )
    assert_problem(changed, 422)


@pytest.mark.parametrize(
    "query",
    [
        "limit=0",
        "limit=-1",
        "limit=100000",
        "limit=abc",
        "limit=1.5",
        "cursor=%00",
        "cursor=' OR 1=1 --",
        "cursor=" + "z" * 600,
        "status=lost",
        "player_id=not-a-uuid",
        "sort=id",
    ],
)
def test_bad_queries_are_refused(world: World, unchanged: None, query: str) -> None:
    response = world.client.get(
        f"/api/v1/rounds?{query}", headers=world.headers("operator", key=False)
    )
    assert response.status_code in (400, 422), (query, response.status_code, response.get_json())
    assert_problem(response, response.status_code)


@pytest.mark.parametrize("client_seed", ["", "x" * 65, "tab\there", "ünïcode", "\ud800"])
def test_bad_client_seeds_are_refused(world: World, unchanged: None, client_seed: str) -> None:
    response = world.client.put(
        f"/api/v1/players/{world.a_id}/seeds/client",
        data=json.dumps({"client_seed": client_seed}),
        headers={**world.headers("a", key=False), "Content-Type": "application/json"},
    )
    assert response.status_code in (400, 422), (response.status_code, response.get_json())
    assert_problem(response, response.status_code)


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("delete", "/api/v1/players/{a}"),
        ("put", "/api/v1/rounds"),
        ("delete", "/api/v1/tables/classic"),
        ("patch", "/api/v1/players/{a}/wallets"),
    ],
)
def test_unsupported_methods_are_refused(
    world: World, unchanged: None, method: str, path: str
) -> None:
    response = getattr(world.client, method)(
        path.format(a=world.a_id), headers=world.headers("operator")
    )
    assert_problem(response, 405, "method_not_allowed")
    assert response.headers.get("Allow")
