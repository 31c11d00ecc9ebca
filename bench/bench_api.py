"""Settled bets/s and latency of the API under gunicorn on PostgreSQL, beside pgbench.

Two configurations, each on a fresh database of the machine's PostgreSQL server (the one at
``CASINO_TEST_POSTGRES_URL``, else 127.0.0.1:5432), migrated like ``casino db-upgrade``:

* one gunicorn instance (``CASINO_BENCH_WORKERS`` workers, default 4) — issue 3's figure;
* two instances of 2 workers each on two loopback ports — issue 5's figure.

The servers run production's serving settings (the Procfile's gthread workers). 16 client
threads, one player each, bet the minimum ante and go to war on every tie, for
``CASINO_BENCH_SECONDS`` (default 20) after a 3 s warm-up, each on a persistent HTTP/1.1
connection per instance (issue 24: as a proxy's upstream pool or an API client's session,
and pgbench, keep theirs). A bet counts when its round is settled. Latency is per request
(bets and decisions), as the client sees it.

The kept-connection runs go in the order A B B A (the host's speed drifts, and the first run
gets the fresher machine); then each configuration once with a connection per request (the
bench's former client), beside them. ``pgbench -b tpcb-like -c 16 -j 2 -T 10`` runs on a
scratch database of the same server before, between and after the runs, each run compared with
the mean of the two pgbench runs around it. Also printed: PostgreSQL CPU per bet against a
tpcb-like transaction, and the bare Flask JSON POST of ``bench floor`` under the same serving
with a bet's gunicorn CPU against it. Targets (issue 24, kept connections): settled bets/s >=
0.4 x pgbench TPS, p99 <= 50 ms, two instances x 2 workers >= 0.95 x one x 4; ``main()``
returns False when one is missed, so ``make bench`` reports it.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.bench_floor import bare_flask_post
from harness import pg
from harness.scenario import Scenario, ScenarioResult, run_scenario

CLIENTS = 16
TARGET_RATIO = 0.4  # issue 24: >= 0.4 x (goal 0.5 x)
TARGET_P99_MS = 50.0
RESULTS_DIR = Path(__file__).resolve().parent / "results"


def _load(seconds: float, keep_alive: bool) -> dict[str, Any]:
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
        "keep_alive": keep_alive,
    }


@dataclass(frozen=True)
class Run:
    """One measured configuration: instances x workers, and how the clients connect."""

    name: str
    instances: int
    workers: int
    keep_alive: bool

    @property
    def label(self) -> str:
        connections = "keep-alive" if self.keep_alive else "conn/request"
        return f"{self.instances} x {self.workers} {connections}"


def _measure(run: Run, seconds: float) -> ScenarioResult:
    scenario = Scenario(
        name=run.name,
        instances=run.instances,
        workers=run.workers,
        load=_load(seconds, run.keep_alive),
        postgres="shared",
        warmup=3.0,
        # Production's serving settings (the Procfile's): gthread workers, which keep a
        # connection open between requests and park it on the worker's poller while idle.
        serving_config=True,
    )
    return run_scenario(scenario, log=lambda line: print(line, flush=True))


def _row(run: Run, result: ScenarioResult, tps: float) -> dict[str, Any]:
    cpu = {group: round(result.cpu_ms_per_settled(group), 2) for group in result.cpu_seconds}
    return {
        "configuration": run.label,
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


def _mean_row(rows: list[dict[str, Any]], tps: list[float]) -> dict[str, Any]:
    """One configuration's runs (early and late in the ABBA order) as one row."""
    settled = statistics.mean(row["settled_bets_per_s"] for row in rows)
    rates = [row["settled_bets_per_s"] for row in rows]
    cpu_groups = rows[0]["cpu_ms_per_settled_bet"].keys()
    return {
        "configuration": rows[0]["configuration"],
        "settled_bets_per_s": round(settled, 1),
        "p50_ms": round(statistics.mean(row["p50_ms"] for row in rows), 1),
        "p99_ms": round(max(row["p99_ms"] for row in rows), 1),
        "pgbench_tps": round(statistics.mean(tps)),
        "ratio_to_pgbench": round(settled / statistics.mean(tps), 3),
        "cpu_ms_per_settled_bet": {
            group: round(statistics.mean(row["cpu_ms_per_settled_bet"][group] for row in rows), 2)
            for group in cpu_groups
        },
        "audit_clean": all(row["audit_clean"] for row in rows),
        "failures": sum(row["failures"] for row in rows),
        "spread": round((max(rates) - min(rates)) / settled, 3),
    }


def _print_rows(labelled: list[tuple[str, dict[str, Any]]]) -> None:
    print(
        f"{'configuration':32} {'bets/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'pgbench':>8} "
        f"{'x pgbench':>10}   CPU ms per settled bet (gunicorn / postgres / client / sealer)"
    )
    for label, row in labelled:
        cpu = row["cpu_ms_per_settled_bet"]
        tps = row.get("pgbench_tps") or row["settled_bets_per_s"] / row["ratio_to_pgbench"]
        print(
            f"{label:32} {row['settled_bets_per_s']:>8} {row['p50_ms']:>8} "
            f"{row['p99_ms']:>8} {tps:>8.0f} {row['ratio_to_pgbench']:>10}   "
            f"{cpu.get('gunicorn')} / {cpu.get('postgres')} / {cpu.get('client')} / "
            f"{cpu.get('sealer')}"
        )


def main() -> bool:
    if not pg.server_available():
        print(f"PostgreSQL does not answer at {pg.admin_url()}", file=sys.stderr)
        return False
    seconds = float(os.environ.get("CASINO_BENCH_SECONDS", "20"))
    workers = int(os.environ.get("CASINO_BENCH_WORKERS", "4"))
    single = Run("bench1", 1, workers, keep_alive=True)
    double = Run("bench2", 2, 2, keep_alive=True)
    # The host's speed drifts within minutes, and whichever configuration runs first gets the
    # fresher machine: the kept-connection runs (the figures the targets judge) go in the
    # order A B B A, pgbench before, between and after every run, and each run is compared
    # with the mean of the two pgbench runs around it. A linear drift cancels out of the A/B
    # means. The connection-per-request figures (the bench's former client) follow, once each.
    single_closed = Run("bench1c", 1, workers, keep_alive=False)
    double_closed = Run("bench2c", 2, 2, keep_alive=False)
    order = [single, double, double, single, single_closed, double_closed]
    benches = [_pgbench()]
    runs: list[tuple[Run, ScenarioResult, float]] = []
    for run in order:
        result = _measure(run, seconds)
        print(result.summary(), flush=True)
        benches.append(_pgbench())
        runs.append((run, result, statistics.mean(b.tps for b in benches[-2:])))
    each = [_row(run, result, tps) for run, result, tps in runs]
    groups: dict[str, list[int]] = {}
    for index, (run, _, _) in enumerate(runs):
        groups.setdefault(run.label, []).append(index)
    means = {
        label: _mean_row([each[i] for i in indices], [runs[i][2] for i in indices])
        for label, indices in groups.items()
    }
    print()
    labelled = [(row["configuration"], row) for row in each]
    labelled += [(label + " (mean)", row) for label, row in means.items()]
    _print_rows(labelled)
    postgres_cpu = statistics.mean(b.postgres_cpu for b in benches)
    client_cpu = statistics.mean(b.client_cpu for b in benches)
    print(
        f"pgbench tpcb-like: {', '.join(f'{b.tps:.0f}' for b in benches)} TPS (16 clients, same "
        f"server; before, between and after the runs); CPU ms per transaction: postgres "
        f"{1000 * postgres_cpu:.2f}, pgbench {1000 * client_cpu:.2f}"
    )
    one, two = means[single.label], means[double.label]
    for row in (one, two):
        ratio = row["cpu_ms_per_settled_bet"]["postgres"] / (1000 * postgres_cpu)
        print(
            f"{row['configuration']}: PostgreSQL CPU per settled bet {ratio:.2f} x a tpcb-like "
            "transaction (target <= 1.2 x)"
        )
    for kept, closed in ((single, single_closed), (double, double_closed)):
        ka, cl = means[kept.label], means[closed.label]
        print(
            f"{kept.label}: {ka['settled_bets_per_s'] / cl['settled_bets_per_s']:.2f} x the "
            f"connection-per-request figure; gunicorn CPU per bet "
            f"{ka['cpu_ms_per_settled_bet']['gunicorn']} against "
            f"{cl['cpu_ms_per_settled_bet']['gunicorn']} ms"
        )
    # The floor in the same run: what a bare Flask JSON POST costs gunicorn (issue 24, item 3:
    # a settled bet's gunicorn CPU <= 2 x that).
    with pg.scratch_database("floor") as scratch:
        floors = bare_flask_post(scratch.url)
    for floor in floors:
        kept_alive = "keep" in floor.name
        bet = (one if kept_alive else means[single_closed.label])["cpu_ms_per_settled_bet"][
            "gunicorn"
        ]
        print(
            f"{floor.name}: {floor.server_ms:.2f} ms of gunicorn CPU per request; a settled bet "
            f"(1 x {workers}, {'keep-alive' if kept_alive else 'conn/request'}) costs "
            f"{bet / floor.server_ms:.1f} x that (target <= 2 x)"
        )
    scale = two["settled_bets_per_s"] / one["settled_bets_per_s"]
    spread = max(one["spread"], two["spread"])
    scales = scale >= 0.95
    print(
        f"2 x 2 workers against 1 x {workers} (keep-alive): {scale:.3f} x (target >= 0.95; the "
        f"same configuration's two runs differ by up to {100 * spread:.1f} %, target <= 5 %)"
    )
    RESULTS_DIR.mkdir(exist_ok=True)
    record = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "order": [row["configuration"] for row in each],
        "pgbench_tps": [b.tps for b in benches],
        "pgbench_cpu_ms_per_transaction": {
            "postgres": round(1000 * postgres_cpu, 2),
            "pgbench": round(1000 * client_cpu, 2),
        },
        "runs": each,
        "means": list(means.values()),
        "two_instances_against_one": round(scale, 3),
    }
    (RESULTS_DIR / "bench_api.json").write_text(json.dumps(record, indent=2) + "\n")
    judged = (one, two)
    met = all(
        row["ratio_to_pgbench"] >= TARGET_RATIO and row["p99_ms"] <= TARGET_P99_MS for row in judged
    )
    clean = all(row["audit_clean"] and row["failures"] == 0 for row in means.values())
    print(
        f"targets (>= {TARGET_RATIO} x pgbench, p99 <= {TARGET_P99_MS:.0f} ms, 2 x 2 >= 0.95 x "
        f"1 x {workers}, keep-alive): {'met' if met and scales else 'MISSED'}; audit and "
        f"invariants: {'clean' if clean else 'FAILED'}"
    )
    return met and scales and clean


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
