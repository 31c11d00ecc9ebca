"""Rows and WAL bytes a bet writes, measured on a database of a private PostgreSQL server.

Runs against whatever ``casino`` package is first on ``sys.path``, so ``bench_ledger`` can
run it on an older revision too (a git worktree on PYTHONPATH) and compare both in one run.
Prints one JSON line. Standard library + the project only; ``casino`` is imported late.
"""

from __future__ import annotations

import importlib
import inspect
import json
import sys
import time
import uuid
from typing import Any


def main(url: str, bets: int) -> None:
    from sqlalchemy import create_engine, text

    from casino.service import idempotency, players, rounds, tables, wallets
    from casino.service.demo import DEMO_TABLES

    try:  # the unit of work moved into the store with the ledger's rebuild
        unit_of_work = importlib.import_module("casino.store.uow")
    except ImportError:
        unit_of_work = importlib.import_module("casino.service.uow")
    UnitOfWork = unit_of_work.UnitOfWork
    # Revisions before tenancy take no operator.
    tenant = (
        {"operator": "default"} if "operator" in inspect.signature(UnitOfWork).parameters else {}
    )
    from casino.store.migrate import upgrade
    from casino.store.session import make_engine, make_session_factory

    upgrade(url)
    engine = make_engine(url)
    factory = make_session_factory(engine)

    def run(use_case: Any, *args: Any, **kwargs: Any) -> Any:
        with UnitOfWork(factory, **tenant) as uow:
            result = use_case(uow, *args, **kwargs)
            uow.commit()
            return result

    run(tables.create_table, "classic", "EUR", DEMO_TABLES["classic"])
    ids = []
    for n in range(16):
        view, _ = run(players.create_player, f"probe-{n}")
        run(wallets.deposit, view.id, "EUR", 10**9, "funding")
        ids.append(view.id)
    observer = create_engine(url, isolation_level="AUTOCOMMIT")

    def counters() -> tuple[dict[str, tuple[int, ...]], int]:
        with observer.connect() as conn:
            conn.execute(text("SELECT pg_stat_clear_snapshot()"))
            tables = {
                str(name): tuple(int(n) for n in counts)
                for name, *counts in conn.execute(
                    text(
                        "SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del "
                        "FROM pg_stat_user_tables"
                    )
                )
            }
            lsn = conn.execute(text("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn")).scalar_one()
        return tables, int(lsn)

    time.sleep(1.0)  # table statistics are flushed at most once a second
    rows_before, wal_before = counters()
    settled = transactions = 0
    started = time.perf_counter()
    for n in range(bets):
        player = ids[n % len(ids)]
        with UnitOfWork(factory, **tenant) as uow:
            view = rounds.place_bet(uow, player, "classic", 100)
            idempotency.complete(uow, f"player:{player}", str(uuid.uuid4()), "f", 201, {"n": n})
            uow.commit()
        transactions += len(view.transaction_ids)
        if view.status == "awaiting_decision":
            with UnitOfWork(factory, **tenant) as uow:
                view = rounds.decide(uow, view.id, "war", player_id=player)
                idempotency.complete(uow, f"player:{player}", str(uuid.uuid4()), "f", 200, {})
                uow.commit()
            transactions += 1
        settled += 1
    elapsed = time.perf_counter() - started
    time.sleep(1.5)
    rows_after, wal_after = counters()
    # Per table: inserts, updates (of them HOT: no index touched), deletes per settled bet;
    # and every index's size per settled bet (each inserted row adds an entry to each).
    per_table = {}
    for name, after in sorted(rows_after.items()):
        moved = [b - a for a, b in zip(rows_before.get(name, (0, 0, 0, 0)), after, strict=True)]
        if any(moved):
            per_table[name] = [round(n / settled, 2) for n in moved]
    with observer.connect() as conn:
        indexes = {
            f"{table}.{index}": round(int(size) / settled)
            for table, index, size in conn.execute(
                text(
                    "SELECT relname, indexrelname, pg_relation_size(indexrelid) "
                    "FROM pg_stat_user_indexes WHERE relname IN "
                    "('rounds', 'ledger_transactions', 'postings', 'idempotency_records')"
                )
            )
        }
    observer.dispose()
    engine.dispose()
    print(
        json.dumps(
            {
                "settled": settled,
                "rows_per_bet": sum(
                    ins + upd + deleted for ins, upd, _, deleted in per_table.values()
                ),
                "tables": per_table,
                "index_bytes_per_bet": indexes,
                "wal_bytes_per_bet": (wal_after - wal_before) / settled,
                "seconds": elapsed,
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
