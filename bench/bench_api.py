"""Settled bets/s and latency of the API under gunicorn on PostgreSQL, beside pgbench.

Two configurations, each on a fresh database of the machine's PostgreSQL server (the one at
``CASINO_TEST_POSTGRES_URL``, else 127.0.0.1:5432), migrated like ``casino db-upgrade``:

* one gunicorn instance (``CASINO_BENCH_WORKERS`` workers, default 4) — issue 3's figure;
* two instances of 2 workers each on two loopback ports — issue 5's figure.

16 client threads, one player each, bet the minimum ante and go to war on every tie, for
``CASINO_BENCH_SECONDS`` (default 20) after a 3 s warm-up. A bet counts when its round is
settled. Latency is per request (bets and decisions), as the client sees it.

``pgbench -b tpcb-like -c 16 -j 2 -T 10`` runs on a scratch database of the same server in
the same run: before, between and after the two configurations (the host's speed drifts), each
configuration compared with the mean of the two runs around it. Targets (issue 3): settled
bets/s >= 0.5 x pgbench TPS and p99 <= 50 ms; ``main()`` returns False when one is missed, so
``make bench`` reports it.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from harness import pg
from harness.scenario import Scenario, ScenarioResult, run_scenario

CLIENTS = 16
TARGET_RATIO = 0.5
TARGET_P99_MS = 50.0
RESULTS_DIR = Path(__file__).resolve().parent / "results"


def _load(seconds: float) -> dict[str, Any]:
    return {
        "duration": seconds,
        "threads": CLIENTS,
        "players": CLIENTS,
        "shared_players": 0,
        "low_funds_players": 0,
        "initial_funds": 10**11,
        "replay_share": 0.0,
        "reuse_share": 0.0,
        "duplicate_share": 0.0,
        "operator_share": 0.0,
        "read_share": 0.0,
        "war_share": 1.0,
        "abandon_share": 0.0,
    }


def _measure(name: str, instances: int, workers: int, seconds: float) -> ScenarioResult:
    scenario = Scenario(
        name=name,
        instances=instances,
        workers=workers,
        load=_load(seconds),
        postgres="shared",
        warmup=3.0,
    )
    return run_scenario(scenario, log=lambda line: print(line, flush=True))


def _row(result: ScenarioResult, tps: float) -> dict[str, Any]:
    cpu = {group: round(result.cpu_ms_per_settled(group), 2) for group in result.cpu_seconds}
    return {
        "configuration": f"{result.scenario.instances} x {result.scenario.workers} workers",
        "settled_bets_per_s": round(result.settled_per_second, 1),
        "p50_ms": round(result.latency_ms(50, "bet", "decision"), 1),
        "p99_ms": round(result.latency_ms(99, "bet", "decision"), 1),
        "requests": result.run.stats.requests,
        "errors": sum(result.run.stats.errors_by_kind().values()),
        "ratio_to_pgbench": round(result.settled_per_second / tps, 3) if tps else None,
        "cpu_ms_per_settled_bet": cpu,
        "audit_clean": bool(result.report and result.report.audit and result.report.audit.ok),
        "failures": len(result.failures),
    }


def _pgbench() -> pg.PgbenchResult:
    print(f"pgbench -b tpcb-like -c {CLIENTS} -j 2 -T 10 on a scratch database ...", flush=True)
    bench = pg.pgbench(clients=CLIENTS, threads=2, seconds=10)
    print(
        f"pgbench: {bench.tps:.0f} TPS; CPU per transaction: postgres "
        f"{1000 * bench.postgres_cpu:.2f} ms, pgbench {1000 * bench.client_cpu:.2f} ms",
        flush=True,
    )
    return bench


def main() -> bool:
    if not pg.server_available():
        print(f"PostgreSQL does not answer at {pg.admin_url()}", file=sys.stderr)
        return False
    seconds = float(os.environ.get("CASINO_BENCH_SECONDS", "20"))
    workers = int(os.environ.get("CASINO_BENCH_WORKERS", "4"))
    # The host's speed drifts within minutes: pgbench runs before, between and after the two
    # configurations, and each is compared with the mean of the two runs around it.
    benches = [_pgbench()]
    single = _measure("bench1", 1, workers, seconds)
    print(single.summary(), flush=True)
    benches.append(_pgbench())
    double = _measure("bench2", 2, 2, seconds)
    print(double.summary(), flush=True)
    benches.append(_pgbench())
    around = [statistics.mean(b.tps for b in benches[i : i + 2]) for i in range(2)]
    rows = [_row(single, around[0]), _row(double, around[1])]
    print()
    print(
        f"{'configuration':20} {'bets/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'pgbench':>8} "
        f"{'x pgbench':>10}   CPU ms per settled bet (gunicorn / postgres / client)"
    )
    for row, tps in zip(rows, around, strict=True):
        cpu = row["cpu_ms_per_settled_bet"]
        print(
            f"{row['configuration']:20} {row['settled_bets_per_s']:>8} {row['p50_ms']:>8} "
            f"{row['p99_ms']:>8} {tps:>8.0f} {row['ratio_to_pgbench']:>10}   "
            f"{cpu.get('gunicorn')} / {cpu.get('postgres')} / {cpu.get('client')}"
        )
    postgres_cpu = statistics.mean(b.postgres_cpu for b in benches)
    client_cpu = statistics.mean(b.client_cpu for b in benches)
    print(
        f"pgbench tpcb-like: {', '.join(f'{b.tps:.0f}' for b in benches)} TPS (16 clients, same "
        f"server; before, between, after); CPU ms per transaction: postgres "
        f"{1000 * postgres_cpu:.2f}, pgbench {1000 * client_cpu:.2f}"
    )
    RESULTS_DIR.mkdir(exist_ok=True)
    record = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "pgbench_tps": [b.tps for b in benches],
        "pgbench_cpu_ms_per_transaction": {
            "postgres": round(1000 * postgres_cpu, 2),
            "pgbench": round(1000 * client_cpu, 2),
        },
        "runs": rows,
    }
    (RESULTS_DIR / "bench_api.json").write_text(json.dumps(record, indent=2) + "\n")
    met = all(
        row["ratio_to_pgbench"] is not None
        and row["ratio_to_pgbench"] >= TARGET_RATIO
        and row["p99_ms"] <= TARGET_P99_MS
        for row in rows
    )
    clean = all(row["audit_clean"] and row["failures"] == 0 for row in rows)
    print(
        f"targets (>= {TARGET_RATIO} x pgbench, p99 <= {TARGET_P99_MS:.0f} ms): "
        f"{'met' if met else 'MISSED'}; audit and invariants: {'clean' if clean else 'FAILED'}"
    )
    return met and clean


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
