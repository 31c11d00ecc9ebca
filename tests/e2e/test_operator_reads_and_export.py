"""Issue 13, points 1 and 2 over HTTP: operators read every player's ledger transactions and
rounds with filters, and download the export, streamed as NDJSON, which the standalone
verifier accepts. Answers are checked against the served OpenAPI document."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

import config
from casino.audit_export import casino_audit_export as verifier
from casino.ledger.checkpoints import SigningKey
from casino.service.sealing import seal_pending
from casino.store.database import Database

from .helpers import (
    Api,
    Player,
    assert_problem,
    is_tie,
    new_key,
    player_wins,
    steer_next_deal,
)
from .test_openapi_contract import Contract, served_spec

MISSING = "00000000-0000-4000-8000-000000000000"


def seal(database_url: str) -> None:
    key = SigningKey.parse(config.settings({"CASINO_ENV": "testing"})["SIGNING_KEY"])
    database = Database.open(database_url)
    try:
        with database.unit_of_work("default") as uow:
            seal_pending(uow, key)
            uow.commit()
    finally:
        database.dispose()


def when(response: Any) -> str:
    return str(response.get_json()["created_at"])


def q(moment: str) -> str:
    return quote(moment, safe="")


def later(moment: str) -> str:
    return (datetime.fromisoformat(moment) + timedelta(microseconds=1)).isoformat()


def two_players(api: Api, database_url: str) -> tuple[Player, Player, dict[str, Any]]:
    """Alice and Bob, a bet each at two tables, a withdrawal; the times in between."""
    api.create_table("classic")
    api.create_table("bonus", war_tie_bonus=True)
    alice, bob = api.create_player(), api.create_player()
    api.deposit(alice, 50_000)
    api.deposit(bob, 50_000, currency="USD")
    api.deposit(bob, 50_000)
    steer_next_deal(api, database_url, alice, player_wins)
    first = api.bet(alice)
    seal(database_url)
    steer_next_deal(api, database_url, bob, is_tie)
    tied = api.bet(bob, table="bonus", tie_bet=100)
    withdrawal = api.post(
        f"/api/v1/players/{alice.id}/withdrawals",
        {"currency": "EUR", "amount": 1_000, "reference": "cash out"},
        auth=api.operator_auth,
        key=new_key(),
    )
    assert first.status_code == tied.status_code == withdrawal.status_code == 201
    marks = {
        "alice_round": first.get_json()["id"],
        "bob_round": tied.get_json()["id"],
        "after_first": later(when(first)),
        "withdrawal": when(withdrawal),
    }
    return alice, bob, marks


# ---------------------------------------------------------------- ledger transactions


def test_operators_list_every_transaction_with_filters(api: Api, database_url: str) -> None:
    alice, bob, marks = two_players(api, database_url)
    contract = Contract(served_spec(api))

    def listed(query: str = "") -> list[dict[str, Any]]:
        response = api.get(f"/api/v1/ledger/transactions{query}", auth=api.operator_auth)
        return list(contract.check("listLedgerTransactions", response)["items"])

    everything = listed()
    assert len(everything) == 6
    assert [t["id"] for t in everything] == sorted((t["id"] for t in everything), reverse=True)
    assert {t["player_id"] for t in everything} == {alice.id, bob.id}
    assert {t["kind"] for t in everything} == {"deposit", "withdrawal", "bet", "stake"}
    for tx in everything:
        assert sum(p["amount"] for p in tx["postings"]) == 0
        assert tx["wallet_seq"] >= 1 and len(tx["hash"]) == len(tx["prev_hash"]) == 64
    assert {t["player_id"] for t in listed(f"?player_id={bob.id}")} == {bob.id}
    assert [t["kind"] for t in listed(f"?round_id={marks['bob_round']}")] == ["stake"]
    assert [t["currency"] for t in listed("?currency=USD")] == ["USD"]
    assert [t["kind"] for t in listed("?kind=withdrawal")] == ["withdrawal"]
    recent = listed(f"?since={q(marks['after_first'])}")
    assert {t["kind"] for t in recent} == {"stake", "withdrawal"}
    early = listed(f"?until={q(marks['after_first'])}")
    assert len(early) == 4 and "withdrawal" not in {t["kind"] for t in early}
    window = listed(f"?since={q(marks['after_first'])}&until={q(marks['withdrawal'])}")
    assert [t["kind"] for t in window] == ["stake"]
    assert listed(f"?player_id={MISSING}") == [] and listed(f"?round_id={MISSING}") == []
    assert listed(f"?player_id={alice.id}&currency=USD") == []


def test_ledger_transactions_page_with_a_cursor(api: Api, database_url: str) -> None:
    two_players(api, database_url)
    seen: list[int] = []
    cursor = None
    while True:
        query = "?limit=4" + (f"&cursor={cursor}" if cursor else "")
        page = api.get(f"/api/v1/ledger/transactions{query}", auth=api.operator_auth).get_json()
        seen += [t["id"] for t in page["items"]]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert len(seen) == 6 == len(set(seen)) and seen == sorted(seen, reverse=True)


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z", "invalid_range"),
        ("?since=2026-01-01T00:00:00Z&until=2026-01-01T00:00:00Z", "invalid_range"),
        ("?kind=gift", "validation_failed"),
        ("?currency=eur", "validation_failed"),
        ("?player_id=nope", "validation_failed"),
        ("?since=yesterday", "validation_failed"),
        ("?cursor=AAAA", "invalid_cursor"),
        ("?sort=asc", "validation_failed"),
    ],
)
def test_ledger_transactions_refuse_bad_queries(api: Api, query: str, code: str) -> None:
    response = api.get(f"/api/v1/ledger/transactions{query}", auth=api.operator_auth)
    assert_problem(response, 422, code)


def test_players_may_not_list_the_ledger_or_export_it(api: Api, funded: Player) -> None:
    for path in ("/api/v1/ledger/transactions", "/api/v1/ledger/export"):
        assert_problem(api.get(path, auth=funded.auth), 403, "forbidden")
        assert_problem(api.get(path), 401, "unauthenticated")


# ---------------------------------------------------------------- rounds


def test_operators_filter_rounds_by_table_status_and_time(api: Api, database_url: str) -> None:
    alice, bob, marks = two_players(api, database_url)
    contract = Contract(served_spec(api))

    def ids(query: str, auth: dict[str, str] | None = None) -> list[str]:
        response = api.get(f"/api/v1/rounds{query}", auth=auth or api.operator_auth)
        return [r["id"] for r in contract.check("listRounds", response)["items"]]

    both = {marks["alice_round"], marks["bob_round"]}
    assert set(ids("")) == both
    assert ids("?table_id=bonus") == [marks["bob_round"]]
    assert ids("?table_id=classic&status=settled") == [marks["alice_round"]]
    assert ids("?status=awaiting_decision&table_id=classic") == []
    assert ids(f"?since={q(marks['after_first'])}") == [marks["bob_round"]]
    assert ids(f"?until={q(marks['after_first'])}") == [marks["alice_round"]]
    assert ids("?table_id=nowhere") == []
    # A player's filters apply to its own rounds only.
    assert ids("", alice.auth) == [marks["alice_round"]]
    assert ids("?table_id=bonus", alice.auth) == []
    assert ids(f"?since={q(marks['after_first'])}", bob.auth) == [marks["bob_round"]]
    backwards = api.get(
        "/api/v1/rounds?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z",
        auth=api.operator_auth,
    )
    assert_problem(backwards, 422, "invalid_range")
    slug = api.get("/api/v1/rounds?table_id=Not%20A%20Slug", auth=alice.auth)
    assert_problem(slug, 422, "validation_failed")


# ---------------------------------------------------------------- the export


def _public_key(api: Api) -> bytes:
    return bytes.fromhex(api.get("/api/v1/ledger/public-key").get_json()["public_key"])


def test_the_export_streams_ndjson_the_verifier_accepts(
    api: Api, database_url: str, tmp_path: Path
) -> None:
    alice, bob, marks = two_players(api, database_url)
    response = api.get("/api/v1/ledger/export", auth=api.operator_auth)
    assert response.status_code == 200
    assert response.mimetype == "application/x-ndjson"
    assert "attachment" in response.headers["Content-Disposition"]
    assert response.is_streamed  # written as it is read, never built whole
    body = response.get_data()
    # Bob's bet and the withdrawal came after the checkpoint: not sealed, so refused unless
    # allowed; the checkpoints listed over HTTP (what an auditor saves) pin the export.
    lines = body.splitlines(keepends=True)
    strict = verifier.verify(lines, [_public_key(api)])
    assert [c["name"] for c in strict["checks"] if not c["ok"]] == ["sealed"]
    assert strict["transactions"] == {"sealed": 4, "unsealed": 2}
    listed = api.get("/api/v1/ledger/checkpoints", auth=api.operator_auth).get_json()
    saved = tmp_path / "checkpoints.json"
    saved.write_text(json.dumps(listed))
    pins = verifier.read_pins([], [str(saved)])
    summary = verifier.verify(lines, [_public_key(api)], allow_unsealed=True, pins=pins)
    assert summary["ok"], [c for c in summary["checks"] if not c["ok"]]
    assert summary["pins"] == {"1": listed[0]["hash"]}
    assert summary["counts"]["transaction"] == 6 and summary["counts"]["round"] == 2
    assert summary["counts"]["checkpoint"] == 1
    assert marks["bob_round"] in summary["unchecked_rounds"]  # its seed is still active
    partial = api.get(
        f"/api/v1/ledger/export?since={q(marks['after_first'])}", auth=api.operator_auth
    )
    assert partial.status_code == 200
    lines = partial.get_data().splitlines(keepends=True)
    summary = verifier.verify(lines, [_public_key(api)], allow_unsealed=True)
    assert summary["ok"] and summary["scope"] == "partial"
    assert summary["counts"]["transaction"] == 2 and summary["counts"]["round"] == 1
    assert alice.id and bob.id


def test_the_export_refuses_a_backwards_range(api: Api) -> None:
    response = api.get(
        "/api/v1/ledger/export?since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z",
        auth=api.operator_auth,
    )
    assert_problem(response, 422, "invalid_range")
    soon = api.get("/api/v1/ledger/export?since=soon", auth=api.operator_auth)
    assert_problem(soon, 422, "validation_failed")


def test_a_checkpoint_number_beyond_any_is_not_found(api: Api) -> None:
    """Found by fuzzing: a number past a bigint answered 500 (the database refused it)."""
    for seq in ("0", str(2**63), "9" * 30):
        response = api.get(f"/api/v1/ledger/checkpoints/{seq}", auth=api.operator_auth)
        assert_problem(response, 404, "checkpoint_not_found")
