from __future__ import annotations

import threading
import uuid
from datetime import timedelta

import pytest
from sqlalchemy import text, update

from casino.service import idempotency, wallets
from casino.service.errors import Conflict, Invalid
from casino.service.views import StoredResponse
from casino.store import direct
from casino.store import idempotency as store_idempotency
from casino.store.models import IdempotencyRecord, utcnow

from .conftest import Svc


def test_begin_complete_replay(svc: Svc) -> None:
    pid = svc.player()
    with svc.uow() as uow:
        assert idempotency.begin(uow, "op:1", "key-1", "fp-a") is None
        tx = wallets.deposit(uow, pid, "EUR", 500, "dep")
        idempotency.complete(uow, "op:1", "key-1", "fp-a", 201, {"id": tx.id})
        uow.commit()
    with svc.uow() as uow:
        assert idempotency.begin(uow, "op:1", "key-1", "fp-a") == StoredResponse(201, {"id": tx.id})
        with pytest.raises(Invalid) as caught:
            idempotency.begin(uow, "op:1", "key-1", "fp-b")
        assert caught.value.code == "idempotency_key_reused"
        # Keys are per caller.
        assert idempotency.begin(uow, "op:2", "key-1", "fp-b") is None
    assert svc.balance(pid) == 500


def test_refused_request_stores_nothing(svc: Svc) -> None:
    pid = svc.player()
    with svc.uow() as uow:
        assert idempotency.begin(uow, "op", "k", "fp") is None
        with pytest.raises(Conflict):
            wallets.withdraw(uow, pid, "EUR", 1, "nope")
        # the caller does not commit a refused request
    with svc.uow() as uow:
        assert idempotency.begin(uow, "op", "k", "fp") is None


@pytest.mark.parametrize("key", ["", "k" * 256])
def test_invalid_keys(svc: Svc, key: str) -> None:
    with svc.uow() as uow, pytest.raises(Invalid):
        idempotency.begin(uow, "op", key, "fp")


def test_purge_keeps_a_day(svc: Svc) -> None:
    for key in ("old", "new"):
        with svc.uow() as uow:
            idempotency.complete(uow, "op", key, "fp", 200, {})
            uow.commit()
    with svc.uow() as uow:
        uow.session.execute(
            update(IdempotencyRecord)
            .where(IdempotencyRecord.key == "old")
            .values(created_at=utcnow() - timedelta(hours=25))
        )
        uow.commit()
    # Asking for less than the retention still keeps 24 hours.
    assert svc.run(idempotency.purge_idempotency, timedelta(minutes=1)) == 1
    with svc.uow() as uow:
        assert idempotency.begin(uow, "op", "old", "fp") is None
        assert idempotency.begin(uow, "op", "new", "fp") is not None


@pytest.mark.postgres
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_concurrent_same_key_on_postgres(svc: Svc) -> None:
    """PostgreSQL refuses the second at once (advisory lock); SQLite would make it wait."""
    pid = svc.player()
    first_started = threading.Event()
    release_first = threading.Event()
    outcome: dict[str, object] = {}

    def first() -> None:
        with svc.uow() as uow:
            assert idempotency.begin(uow, "op", "same", "fp") is None
            tx = wallets.deposit(uow, pid, "EUR", 700, "once")
            first_started.set()
            release_first.wait(10)
            idempotency.complete(uow, "op", "same", "fp", 201, {"id": tx.id})
            uow.commit()
            outcome["first"] = tx.id

    thread = threading.Thread(target=first)
    thread.start()
    assert first_started.wait(10)
    with svc.uow() as uow, pytest.raises(Conflict) as caught:
        idempotency.begin(uow, "op", "same", "fp")
    assert caught.value.code == "request_in_progress"
    release_first.set()
    thread.join(10)
    with svc.uow() as uow:
        replay = idempotency.begin(uow, "op", "same", "fp")
    assert replay == StoredResponse(201, {"id": outcome["first"]})
    assert svc.balance(pid) == 700


def test_many_concurrent_duplicates_charge_once(svc: Svc) -> None:
    """Threads race one key the way the API does: begin, deposit, complete, commit."""
    pid = svc.player()
    results: list[str] = []
    lock = threading.Lock()

    def attempt() -> None:
        with svc.uow() as uow:
            try:
                stored = idempotency.begin(uow, "op", "race", "fp")
                if stored is None:
                    tx = wallets.deposit(uow, pid, "EUR", 100, "race")
                    idempotency.complete(uow, "op", "race", "fp", 201, {"id": tx.id})
                    uow.commit()
                    outcome = "charged"
                else:
                    outcome = "replayed"
            except Conflict as exc:
                outcome = exc.code
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=attempt) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert results.count("charged") == 1
    assert set(results) <= {"charged", "replayed", "request_in_progress"}
    assert svc.balance(pid) == 100


@pytest.mark.postgres
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
@pytest.mark.parametrize("records", [0, 5, 500])
def test_key_lookup_with_authentication_uses_the_whole_primary_key(svc: Svc, records: int) -> None:
    """The first statement of every bet must find the key through both primary key columns,
    whatever the table's size or statistics: a plan that matched the key alone and filtered on
    the caller read every record, once per bet (seen with 5 records and autovacuum off)."""
    pid = svc.player()
    with svc.uow() as uow:
        for n in range(records):
            idempotency.complete(uow, f"player:{uuid.uuid4()}", f"k{n}", "fp", 201, {"n": n})
        uow.commit()
    with svc.uow() as uow:
        digest = uow.session.execute(
            text("SELECT token_hash FROM players WHERE id = :id"), {"id": pid}
        ).scalar_one()
        plan = "\n".join(
            row[0]
            for row in direct.execute(
                uow.session,
                "EXPLAIN " + store_idempotency._PLAYER_AND_KEY,
                {"digest": digest, "prefix": "player:", "key": "k1"},
            )
        )
    assert "Seq Scan on idempotency_records" not in plan, plan
    lookup = plan[plan.index("on idempotency_records") :]
    condition = lookup[lookup.index("Index Cond") :].splitlines()[0]
    assert "caller" in condition and "key" in condition, plan


def test_purge_in_batches_through_the_command(svc: Svc, db_url: str) -> None:
    """``casino purge-idempotency --batch N`` deletes the expired records N per database
    transaction until none is left, and keeps the young ones (issue 24: the table holds a
    day of records however long the history)."""
    from click.testing import CliRunner

    from casino.cli import main as casino_cli

    for n in range(7):
        with svc.uow() as uow:
            idempotency.complete(uow, "op", f"old-{n}", "fp", 200, {})
            uow.commit()
    with svc.uow() as uow:
        idempotency.complete(uow, "op", "young", "fp", 200, {})
        uow.session.execute(
            update(IdempotencyRecord)
            .where(IdempotencyRecord.key.like("old-%"))
            .values(created_at=utcnow() - timedelta(days=2))
        )
        uow.commit()
    with svc.uow() as uow:  # a batch: the oldest ones, no more
        assert idempotency.purge_idempotency(uow, timedelta(hours=24), 3) == 3
        uow.commit()
    result = CliRunner().invoke(
        casino_cli, ["purge-idempotency", "--database-url", db_url, "--batch", "2"]
    )
    assert result.exit_code == 0, result.output
    assert "4 record(s) removed" in result.output
    with svc.uow() as uow:
        assert idempotency.begin(uow, "op", "young", "fp") is not None
        assert all(idempotency.begin(uow, "op", f"old-{n}", "fp") is None for n in range(7))
