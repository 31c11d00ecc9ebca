"""The ledger's own figures (issue 9): what a bet writes, and how fast the audit replays.

* Rows (inserts + updates) and WAL bytes per settled bet, on a private PostgreSQL server
  (nothing else writes there), for this checkout and for an earlier revision
  (``CASINO_BENCH_LEDGER_BEFORE``, default the last commit before per-wallet chains), each
  through its own service layer: 1,000 minimum bets over 16 players, war on every tie, with
  the idempotency record a request stores.
* ``casino audit`` over a ledger of 30,000 rounds written in bulk (harness.books): rounds
  replayed per second (target >= 20k/s), and the whole audit's time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import pg
from harness.books import fill

REPO = Path(__file__).resolve().parents[1]
BEFORE = os.environ.get("CASINO_BENCH_LEDGER_BEFORE", "d85f7c7")
BETS = int(os.environ.get("CASINO_BENCH_LEDGER_BETS", "1000"))
ROUNDS = int(os.environ.get("CASINO_BENCH_AUDIT_ROUNDS", "30000"))
TARGET_REPLAY = 20_000


def _probe(cluster: pg.PrivateCluster, source: Path, label: str) -> dict[str, Any]:
    db = pg.create_database(f"probe_{label}", cluster.admin_url)
    try:
        env = dict(os.environ, PYTHONPATH=f"{source}{os.pathsep}{REPO / 'bench'}")
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                "import ledger_probe, sys; ledger_probe.main(*sys.argv[1:2], int(sys.argv[2]))",
                db.url,
                str(BETS),
            ],
            cwd=source,
            env=env,
            capture_output=True,
            text=True,
            timeout=1800,
            check=True,
        )
    finally:
        pg.drop_database(db)
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def writes_per_bet() -> None:
    with tempfile.TemporaryDirectory() as tmp, pg.PrivateCluster() as cluster:
        old = Path(tmp) / "before"
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(old), BEFORE],
            cwd=REPO, check=True, capture_output=True,
        )  # fmt: skip
        try:
            before = _probe(cluster, old, "before")
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(old)], cwd=REPO, capture_output=True
            )
        now = _probe(cluster, REPO, "now")
    print(f"{'per settled bet':24} {'rows':>8} {'WAL bytes':>10} {'s / 1000 bets':>14}")
    for label, figures in ((f"before ({BEFORE})", before), ("now", now)):
        print(
            f"{label:24} {figures['rows_per_bet']:>8.2f} {figures['wal_bytes_per_bet']:>10.0f} "
            f"{1000 * figures['seconds'] / figures['settled']:>14.2f}"
        )
    print("now, per settled bet and table: inserts, updates (HOT), deletes")
    for table, (ins, upd, hot, deleted) in now.get("tables", {}).items():
        print(f"  {table:24} {ins:>6.2f} {upd:>6.2f} ({hot:.2f}) {deleted:>6.2f}")
    print("now, index bytes per settled bet (the hot tables)")
    for index, size in sorted(now.get("index_bytes_per_bet", {}).items()):
        print(f"  {index:68} {size:>5}")


def audit_speed() -> bool:
    from casino.ledger.audit import audit_books, replay_mismatch
    from casino.ledger.checkpoints import SigningKey
    from casino.service.sealing import seal_pending
    from casino.store.books import read_books
    from casino.store.database import Database

    players = 100
    with pg.scratch_database("audit_bench") as db:
        pg.migrate(db.url)
        database = Database.open(db.url)
        try:
            started = time.perf_counter()
            filled = fill(database.engine, players=players, rounds_per_player=ROUNDS // players)
            print(
                f"wrote {filled.rounds} rounds, {filled.transactions} transactions in "
                f"{time.perf_counter() - started:.1f}s"
            )
            key = SigningKey.generate()
            with database.unit_of_work("default") as uow:
                seal_pending(uow, key)
                uow.commit()
            with database.unit_of_work() as uow:
                started = time.perf_counter()
                books = read_books(uow.session, "default")
                rounds = list(books.rounds)
                read = time.perf_counter() - started
                started = time.perf_counter()
                bad = sum(1 for row in rounds if replay_mismatch(row) is not None)
                replay = time.perf_counter() - started
                books.rounds = rounds
                started = time.perf_counter()
                report = audit_books(books, [key.verifying])
                checks = time.perf_counter() - started
        finally:
            database.dispose()
    rate = len(rounds) / replay
    print(
        f"audit of {len(rounds)} rounds / {filled.transactions} transactions: read "
        f"{read:.2f}s, every check {checks:.2f}s ({'clean' if report.ok else 'FAILED'}); "
        f"replay alone {rate:,.0f} rounds/s (target {TARGET_REPLAY:,}), whole audit "
        f"{len(rounds) / (read + checks):,.0f} rounds/s"
    )
    return report.ok and bad == 0 and rate >= TARGET_REPLAY


def main() -> bool:
    if not pg.can_run_private_cluster() or not pg.server_available():
        print("needs PostgreSQL (a server at 127.0.0.1:5432 and its binaries)", file=sys.stderr)
        return False
    writes_per_bet()
    return audit_speed()


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
