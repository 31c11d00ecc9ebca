"""Concurrent requests through the HTTP layer: no overdraft, no double charge."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import create_engine, func, select

from casino.ledger.audit import format_report
from casino.store.models import LedgerTransaction

from .helpers import Api, Player, audit_database, new_key


def run_threads(count: int, work: Callable[[int], Any]) -> list[Any]:
    """Run ``work(i)`` in ``count`` threads released together; re-raise the first error."""
    barrier = threading.Barrier(count)
    results: list[Any] = [None] * count
    errors: list[BaseException] = []

    def target(index: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[index] = work(index)
        except BaseException as error:  # reported in the main thread
            errors.append(error)

    threads = [threading.Thread(target=target, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a request thread hung"
    if errors:
        raise errors[0]
    return results


def audit_ok(database_url: str) -> None:
    report = audit_database(database_url)
    assert report.ok, format_report(report)


def ledger_count(database_url: str, kind: str) -> int:
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            return int(
                connection.execute(
                    select(func.count())
                    .select_from(LedgerTransaction)
                    .where(LedgerTransaction.kind == kind)
                ).scalar_one()
            )
    finally:
        engine.dispose()


def test_concurrent_duplicates_with_one_key_charge_once(
    app: Flask, api: Api, player: Player, database_url: str
) -> None:
    key = new_key()
    body = {"currency": "EUR", "amount": 2500, "reference": "same-request"}

    def send(_: int) -> tuple[int, str | None, dict[str, Any]]:
        client = app.test_client()
        response = client.post(
            f"/api/v1/players/{player.id}/deposits",
            json=body,
            headers={**api.operator_auth, "Idempotency-Key": key},
        )
        return response.status_code, response.headers.get("Idempotent-Replayed"), response.json

    results = run_threads(8, send)
    statuses = Counter(status for status, _, _ in results)
    assert set(statuses) <= {201, 409}, results
    fresh = [r for r in results if r[0] == 201 and r[1] is None]
    replays = [r for r in results if r[0] == 201 and r[1] == "true"]
    assert len(fresh) == 1, results
    assert all(r[2] == fresh[0][2] for r in replays)
    assert all(r[2]["code"] == "request_in_progress" for r in results if r[0] == 409)
    assert api.balance(player) == 2500
    assert ledger_count(database_url, "deposit") == 1
    # After the dust settles, the key replays.
    again = api.post(f"/api/v1/players/{player.id}/deposits", body, auth=api.operator_auth, key=key)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"


def test_concurrent_duplicate_bets_with_one_key_start_one_round(
    app: Flask, api: Api, funded: Player
) -> None:
    key = new_key()

    def send(_: int) -> tuple[int, Any]:
        response = app.test_client().post(
            "/api/v1/rounds",
            json={"table_id": "classic", "ante": 500},
            headers={**funded.auth, "Idempotency-Key": key},
        )
        return response.status_code, response.json

    results = run_threads(6, send)
    assert {status for status, _ in results} <= {201, 409}, results
    round_ids = {body["id"] for status, body in results if status == 201}
    assert len(round_ids) == 1
    listing = api.get("/api/v1/rounds", auth=funded.auth).get_json()
    assert len(listing["items"]) == 1


@pytest.mark.postgres
def test_twenty_threads_betting_on_one_wallet_never_overdraw(postgres_app: Flask) -> None:
    app = postgres_app
    database_url = app.config["DATABASE_URL"]
    api = Api(app.test_client())
    api.create_table("classic")
    gambler = api.create_player()
    deposit = 5_000  # five antes of 1000: far fewer than the 200 bets attempted
    api.deposit(gambler, deposit)

    def bettor(_: int) -> Counter[int]:
        client = app.test_client()
        seen: Counter[int] = Counter()
        for _ in range(10):
            response = client.post(
                "/api/v1/rounds",
                json={"table_id": "classic", "ante": 1000},
                headers={**gambler.auth, "Idempotency-Key": new_key()},
            )
            seen[response.status_code] += 1
            assert response.status_code in (201, 409), response.json
            body = response.json
            if response.status_code == 201 and body["status"] == "awaiting_decision":
                decided = client.post(
                    f"/api/v1/rounds/{body['id']}/decision",
                    json={"action": "surrender"},
                    headers={**gambler.auth, "Idempotency-Key": new_key()},
                )
                assert decided.status_code == 200, decided.json
            elif response.status_code == 409:
                assert body["code"] in {"insufficient_funds", "round_in_progress"}, body
        return seen

    totals = sum(run_threads(20, bettor), Counter())
    assert sum(totals.values()) == 200
    balance = api.balance(gambler)
    assert balance >= 0
    rounds: list[dict[str, Any]] = []
    cursor = None
    while True:
        query = f"?limit=200&cursor={cursor}" if cursor else "?limit=200"
        page = api.get(f"/api/v1/rounds{query}", auth=gambler.auth).get_json()
        rounds.extend(page["items"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
    # Every accepted bet is a round in the ledger, and the wallet is exactly what they left.
    assert len(rounds) == totals[201] > 0
    assert all(r["status"] == "settled" for r in rounds)
    assert balance == deposit + sum(r["net"] for r in rounds)
    # One transaction opens each round: a bet settled at once, or the stake of a tie.
    opened = ledger_count(database_url, "bet") + ledger_count(database_url, "stake")
    assert opened == totals[201]
    audit_ok(database_url)
