"""What a bet and an audit cost once the ledger holds a long history (issue 24, items 5 and 6).

On the machine's PostgreSQL server, in one run:

1. the API bench's load (16 clients on kept connections, production's gthread serving, one
   instance x 4 workers, ``CASINO_BENCH_GROWTH_SECONDS``, default 15) on an empty database;
2. a database filled with ``CASINO_BENCH_GROWTH_ROUNDS`` (default 1,000,000) settled rounds by
   the ledger filler (harness/ledger_fill.py: dealt by the engine, chained by the ledger's
   functions, COPYed in), sealed into signed checkpoints; its full audit (``casino export``
   then the standalone verifier, saving its state with ``--state``);
3. "a day": ``CASINO_BENCH_GROWTH_DAY`` more rounds (default a fifth of the history: the
   issue's 1 M-round day on a 5 M-round ledger, scaled), sealed; then the day's incremental
   audit (``casino export --from-checkpoint N`` and the verifier continuing from the state)
   against the full audit of the whole ledger, and the two runs' saved states compared;
4. the same API load on the filled database, with the sequential scans PostgreSQL made of
   the big tables meanwhile (none may be: nothing on a bet's path may read the history), and
   the load on an empty database once more (A B A: the machine's speed drifts); the filled
   database's idempotency table holds a day of records (one per bet of the day), what the
   purger (``casino purge-idempotency --every``) leaves of it;
5. rows, heap and index bytes per round of every table that grows with the rounds.

Bets/s and p99 filled against empty are the figure (the same run); with a shared machine,
ratios within a run are what compare. ``CASINO_BENCH_GROWTH_AUDIT=0`` leaves out the audits
(steps 2 and 3's exports and verifications, which take longer than the fill at 5 M rounds):
the load and the sizes on the filled database only; ``CASINO_BENCH_GROWTH_AUDIT=day`` keeps
every audit but the last full one (step 3's whole ledger): the day's incremental audit is then
compared with the history's full audit, the same work on the history alone.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text

from casino.audit_export import casino_audit_export as verifier
from casino.ledger.checkpoints import SigningKey
from casino.store.session import make_engine
from harness import pg
from harness.ledger_fill import fill, seal
from harness.scenario import Scenario, ScenarioResult, run_scenario
from harness.server import HARNESS_SIGNING_KEY

ROUNDS = int(os.environ.get("CASINO_BENCH_GROWTH_ROUNDS", "1000000"))
DAY = int(os.environ.get("CASINO_BENCH_GROWTH_DAY", "0")) or max(1, ROUNDS // 5)
SECONDS = float(os.environ.get("CASINO_BENCH_GROWTH_SECONDS", "15"))
WORKERS = int(os.environ.get("CASINO_BENCH_WORKERS", "4"))
_AUDIT = os.environ.get("CASINO_BENCH_GROWTH_AUDIT", "1").strip().lower()
AUDIT = _AUDIT not in ("0", "no", "off")
#: ``day``: the day's incremental audit is compared with the history's full audit, and the
#: whole ledger is not audited in full a second time (at 5 M rounds that second full run is
#: the longest step of all; the history's is the same work on five sixths of the rounds).
WHOLE_AGAIN = _AUDIT != "day"
#: The harness's sealers sign with this key: the filled ledger is sealed with it too, so the
#: API runs on it continue one chain of checkpoints.
KEY = SigningKey.parse(HARNESS_SIGNING_KEY)
#: Transactions per round in the filler's mix (a tie's decision is a second one).
TX_PER_ROUND = 1.07
#: The tables that grow with the rounds played.
GROWING = ("rounds", "ledger_transactions", "postings", "idempotency_records")
RESULTS_DIR = Path(__file__).resolve().parent / "results"


@dataclass
class Api:
    label: str
    bets_per_s: float
    p50_ms: float
    p99_ms: float
    cpu: dict[str, float]
    seq_scans: dict[str, int] | None = None


def _load() -> dict[str, Any]:
    return {
        "duration": SECONDS,
        "threads": 16,
        "players": 16,
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
        "keep_alive": True,
    }


def _scans(url: str) -> dict[str, int]:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                text("SELECT relname, seq_scan FROM pg_stat_user_tables WHERE relname = ANY(:t)"),
                {"t": list(GROWING)},
            )
            return {name: int(count) for name, count in rows}
    finally:
        engine.dispose()


def api(label: str, url: str | None) -> Api:
    scenario = Scenario(
        name="growth",
        instances=1,
        workers=WORKERS,
        load=_load(),
        postgres="shared",
        warmup=3.0,
        serving_config=True,
        database_url=url,
        # A filled ledger's invariants are checked by its audit below, not after each run.
        check=url is None,
    )
    before = _scans(url) if url else None
    result: ScenarioResult = run_scenario(scenario, log=lambda line: print(line, flush=True))
    print(result.summary(), flush=True)
    if result.failures:
        raise RuntimeError(f"{label}: {result.failures[:5]}")
    scans = None
    if url and before is not None:
        # pg_stat is updated when a backend reports, at the latest when its session ends.
        time.sleep(1.0)
        after = _scans(url)
        scans = {name: after.get(name, 0) - before.get(name, 0) for name in GROWING}
    return Api(
        label,
        result.settled_per_second,
        result.latency_ms(50, "bet", "decision"),
        result.latency_ms(99, "bet", "decision"),
        {g: round(result.cpu_ms_per_settled(g), 2) for g in ("gunicorn", "postgres")},
        scans,
    )


def sizes(url: str) -> dict[str, dict[str, float]]:
    """Rows, heap and index bytes of each growing table, and per round."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            rounds = connection.execute(text("SELECT count(*) FROM rounds")).scalar_one()
            out = {}
            for table in GROWING:
                rows = connection.execute(text(f"SELECT count(*) FROM {table}")).scalar_one()
                heap, index = connection.execute(
                    text(
                        "SELECT pg_table_size(CAST(:t AS regclass)), "
                        "pg_indexes_size(CAST(:t AS regclass))"
                    ),
                    {"t": table},
                ).one()
                out[table] = {
                    "rows": int(rows),
                    "heap_bytes": int(heap),
                    "index_bytes": int(index),
                    "rows_per_round": rows / rounds if rounds else 0.0,
                    "heap_per_round": heap / rounds if rounds else 0.0,
                    "index_per_round": index / rounds if rounds else 0.0,
                }
            out["_total"] = {"rounds": int(rounds)}
            return out
    finally:
        engine.dispose()


def day_of_idempotency_records(url: str, count: int) -> None:
    """What the purger leaves: the last 24 hours of requests' records, one per bet of the
    day (a bet's response body, about the size of a real one), so the table and its
    statistics are a production's, not an empty table's."""
    body = json.dumps({"id": "0" * 36, "status": "settled", "net": 100, "payouts": {"ante": 200}})
    engine = create_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO idempotency_records (caller, key, fingerprint, status, body, "
                    "created_at) SELECT 'player:' || md5((i % 200)::text), md5(i::text), "
                    "md5((-i)::text), 201, CAST(:body AS json), "
                    "now() - (i % 86400) * interval '1 second' "
                    "FROM generate_series(1, :count) AS i"
                ),
                {"body": body, "count": count},
            )
    finally:
        engine.dispose()


def vacuum(url: str) -> None:
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.execute(text("VACUUM ANALYZE"))
    finally:
        engine.dispose()


def export(url: str, path: Path, from_checkpoint: int | None = None) -> float:
    """``casino export`` in a process of its own; its seconds."""
    command = [sys.executable, "-c", "from casino.cli import main; main()", "export"]
    command += ["--database-url", url, "--output", str(path)]
    if from_checkpoint is not None:
        command += ["--from-checkpoint", str(from_checkpoint)]
    env = {**os.environ, "CASINO_SIGNING_KEY": KEY.private_hex()}
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def verify(
    path: Path, state: dict[str, Any] | None
) -> tuple[float, dict[str, Any], dict[str, Any]]:
    verifier._keyed.clear()
    started = time.perf_counter()
    with path.open("rb") as data:
        summary, saved = verifier.verify_continuing(
            data, [KEY.verifying.raw], state, jobs=verifier.default_jobs()
        )
    seconds = time.perf_counter() - started
    if not summary["ok"] or saved is None:
        failed = [check["name"] for check in summary["checks"] if not check["ok"]]
        raise RuntimeError(f"the verifier refused {path.name}: {failed}")
    return seconds, summary, saved


def grow(url: str, rounds: int, label: str) -> float:
    engine = make_engine(url)
    started = time.perf_counter()
    try:
        filled = fill(engine, transactions=int(rounds * TX_PER_ROUND), players=200, label=label)
        checkpoints = seal(engine, KEY)
    finally:
        engine.dispose()
    seconds = time.perf_counter() - started
    print(
        f"filled {filled.rounds:,} rounds ({filled.transactions:,} transactions) and sealed "
        f"them in {checkpoints} checkpoints: {seconds:.0f} s, "
        f"{filled.transactions / seconds:,.0f} transactions/s",
        flush=True,
    )
    vacuum(url)
    return seconds


def _same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    drop = ("totals", "digest")
    return {k: v for k, v in a.items() if k not in drop} == {
        k: v for k, v in b.items() if k not in drop
    }


def main() -> bool:
    if not pg.server_available():
        print(f"PostgreSQL does not answer at {pg.admin_url()}", file=sys.stderr)
        return False
    runs = [api("empty", None)]
    with pg.scratch_database("growth") as db, tempfile.TemporaryDirectory() as directory:
        pg.migrate(db.url)
        folder = Path(directory)
        grow(db.url, ROUNDS, "history")
        history = sizes(db.url)
        audits = _audits(db.url, folder) if AUDIT else None
        if not AUDIT:
            grow(db.url, DAY, "day")
            day_of_idempotency_records(db.url, DAY)
            vacuum(db.url)
        runs.append(api(f"{history['_total']['rounds'] + DAY:,} rounds", db.url))
        grown = sizes(db.url)
    runs.append(api("empty, again", None))
    print()
    empty_rate = statistics.mean(r.bets_per_s for r in runs if r.seq_scans is None)
    empty_p99 = max(r.p99_ms for r in runs if r.seq_scans is None)
    print(f"{'database':22} {'bets/s':>8} {'p50 ms':>8} {'p99 ms':>8}   CPU ms/bet gunicorn / pg")
    for run in runs:
        print(
            f"{run.label:22} {run.bets_per_s:>8.1f} {run.p50_ms:>8.1f} {run.p99_ms:>8.1f}   "
            f"{run.cpu['gunicorn']} / {run.cpu['postgres']}"
        )
    filled_run = runs[1]
    assert filled_run.seq_scans is not None
    print(
        f"filled against empty (mean of the two empty runs): "
        f"{filled_run.bets_per_s / empty_rate:.2f} x bets/s, p99 {filled_run.p99_ms:.1f} against "
        f"{empty_p99:.1f} ms; sequential scans of the growing tables during the filled run: "
        + ", ".join(f"{k} {v}" for k, v in filled_run.seq_scans.items())
    )
    print()
    print(f"per round at {grown['_total']['rounds']:,} rounds (history {ROUNDS:,} + day {DAY:,}):")
    print(
        f"{'table':22} {'rows':>12} {'rows/round':>11} {'heap B/round':>13} {'index B/round':>14}"
    )
    for table in GROWING:
        row = grown[table]
        print(
            f"{table:22} {row['rows']:>12,} {row['rows_per_round']:>11.2f} "
            f"{row['heap_per_round']:>13.0f} {row['index_per_round']:>14.0f}"
        )
    total_heap = sum(grown[t]["heap_per_round"] for t in GROWING)
    total_index = sum(grown[t]["index_per_round"] for t in GROWING)
    print(f"{'all':22} {'':>12} {'':>11} {total_heap:>13.0f} {total_index:>14.0f}")
    record: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "history_rounds": ROUNDS,
        "day_rounds": DAY,
        "api": [run.__dict__ for run in runs],
        "sizes": grown,
        "sizes_at_history": history,
    }
    scans = sum(filled_run.seq_scans.values())
    if audits is None:
        print("\n(audits left out: CASINO_BENCH_GROWTH_AUDIT=0)")
        _save(record)
        return scans == 0
    record["audit"] = _print_audits(audits)
    _save(record)
    return bool(audits["same"]) and scans == 0


def _step(what: str, seconds: float) -> None:
    # The audits of a 5 M-round ledger run for an hour: their steps are shown as they end.
    print(f"{time.strftime('%H:%M:%S')} {what}: {seconds:.1f} s", flush=True)


def _audits(url: str, folder: Path) -> dict[str, Any]:
    """The history's full audit, a day grown on it, then that day's incremental audit and
    the whole ledger's full one (step 3)."""
    whole = folder / "history.ndjson"
    history_export = export(url, whole)
    _step("the history exported", history_export)
    history_verify, history_summary, state = verify(whole, None)
    _step("the history verified", history_verify)
    history_bytes = whole.stat().st_size
    whole.unlink()
    grow(url, DAY, "day")
    day_of_idempotency_records(url, DAY)
    vacuum(url)
    part = folder / "day.ndjson"
    day_export = export(url, part, state["checkpoint"]["seq"])
    _step("the day exported", day_export)
    day_verify, day_summary, day_state = verify(part, state)
    _step("the day verified", day_verify)
    part_bytes = part.stat().st_size
    part.unlink()
    result = {
        "history_export": history_export,
        "history_verify": history_verify,
        "history_rounds": history_summary["rounds"]["total"],
        "day_export": day_export,
        "day_verify": day_verify,
        "day_summary": day_summary,
        "part_bytes": part_bytes,
        "history_bytes": history_bytes,
    }
    if not WHOLE_AGAIN:
        return {**result, "same": True, "whole_again": False}
    whole = folder / "all.ndjson"
    full_export = export(url, whole)
    full_verify, full_summary, full_state = verify(whole, None)
    whole_bytes = whole.stat().st_size
    whole.unlink()
    return {
        **result,
        "whole_again": True,
        "full_export": full_export,
        "full_verify": full_verify,
        "full_summary": full_summary,
        "whole_bytes": whole_bytes,
        "same": _same(day_state, full_state),
    }


def _save(record: dict[str, Any]) -> None:
    RESULTS_DIR.mkdir(exist_ok=True)
    (RESULTS_DIR / "bench_growth.json").write_text(json.dumps(record, indent=2) + "\n")


def _print_audits(a: dict[str, Any]) -> dict[str, Any]:
    day_export, day_verify, part_bytes = a["day_export"], a["day_verify"], a["part_bytes"]
    history_export, history_verify = a["history_export"], a["history_verify"]
    day_rounds = a["day_summary"]["rounds"]["total"]
    if a["whole_again"]:
        label = "full"
        full_export, full_verify, whole_bytes = a["full_export"], a["full_verify"], a["whole_bytes"]
        full_rounds = a["full_summary"]["rounds"]["total"]
    else:
        label = "full (history)"
        full_export, full_verify, whole_bytes = history_export, history_verify, a["history_bytes"]
        full_rounds = a["history_rounds"]
    full_s, day_s = full_export + full_verify, day_export + day_verify
    print()
    print(f"audit of a day ({day_rounds:,} rounds) on a ledger of {full_rounds:,} rounds:")
    print(
        f"  {label}: export {full_export:6.1f} s ({whole_bytes / 1e6:,.0f} MB), verify "
        f"{full_verify:6.1f} s ({full_rounds / full_verify:,.0f} rounds/s): {full_s:6.1f} s"
    )
    print(
        f"  incremental: export {day_export:6.1f} s ({part_bytes / 1e6:,.0f} MB), verify "
        f"{day_verify:6.1f} s ({day_rounds / day_verify:,.0f} rounds/s): "
        f"{day_s:6.1f} s = {day_s / full_s:.2f} x the full audit "
        f"(rounds: {day_rounds / full_rounds:.2f} x; per round: "
        f"{(day_s / day_rounds) / (full_s / full_rounds):.2f} x)"
    )
    if a["whole_again"]:
        print(
            f"  (the history alone, {ROUNDS:,} rounds, audited in full first: export "
            f"{history_export:.1f} s, verify {history_verify:.1f} s); the state the "
            f"incremental run saved {'equals' if a['same'] else 'DIFFERS FROM'} the full run's"
        )
    else:
        print("  (the whole ledger not audited again: CASINO_BENCH_GROWTH_AUDIT=day)")
    return {
        "full": {
            "of": label,
            "rounds": full_rounds,
            "export_s": full_export,
            "verify_s": full_verify,
            "bytes": whole_bytes,
        },
        "incremental": {
            "rounds": day_rounds,
            "export_s": day_export,
            "verify_s": day_verify,
            "bytes": part_bytes,
        },
        "states_equal": a["same"] if a["whole_again"] else None,
    }


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
