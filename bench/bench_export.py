"""The ledger export and its offline verifier at 100,000 transactions (issue 13).

A scratch database (PostgreSQL when a server answers, else SQLite; ``BENCH_EXPORT_BACKEND``
forces one) is filled with ``BENCH_EXPORT_TRANSACTIONS`` (100,000) transactions: Casino War
rounds dealt by the engine and linked into their wallets' chains by the ledger's functions
(harness/ledger_fill.py), half of the seeds revealed, sealed into signed checkpoints. Then:

- ``casino export`` writes the whole ledger to a file, in a process of its own: seconds,
  transactions/s, MB/s and its peak resident memory;
- the standalone verifier (casino/audit_export/casino_audit_export.py) checks the file, from
  this process: rounds/s over the whole check (reading, hashing, chains, Merkle roots,
  signatures, re-deals and payouts), best of ``BENCH_EXPORT_REPEATS`` runs, with its default
  ``--jobs`` (worker processes reading the lines; ``BENCH_EXPORT_JOBS`` overrides it) and,
  in turn with those runs, sequentially (``--jobs 1``): the machine is shared, so the ratio of
  the two, measured side by side, is the honest figure. Target: >= 20,000 rounds/s. Beside
  it: the time to merely read, parse and hash the same lines in one process (the floor for a
  sequential verifier of this format in CPython), and the engine's own deal rate.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from casino.audit_export import casino_audit_export as verifier
from casino.engine.casino_war import deal_casino_war
from casino.ledger.checkpoints import SigningKey
from casino.store.migrate import upgrade
from casino.store.session import make_engine
from harness import pg
from harness.ledger_fill import fill, seal

TARGET_ROUNDS_PER_SECOND = 20_000
TRANSACTIONS = int(os.environ.get("BENCH_EXPORT_TRANSACTIONS", "100000"))
REPEATS = int(os.environ.get("BENCH_EXPORT_REPEATS", "3"))
JOBS = int(os.environ.get("BENCH_EXPORT_JOBS", "0")) or verifier.default_jobs()
KEY = SigningKey.parse(hashlib.sha256(b"bench-export").hexdigest())


@contextmanager
def database() -> Iterator[tuple[str, str]]:
    backend = os.environ.get("BENCH_EXPORT_BACKEND") or (
        "postgresql" if pg.server_available() else "sqlite"
    )
    if backend == "postgresql":
        with pg.scratch_database("export") as db:
            yield backend, db.url
        return
    with tempfile.TemporaryDirectory(prefix="casino-bench-export-") as directory:
        yield backend, f"sqlite:///{directory}/casino.db"


def export_file(url: str, path: Path) -> tuple[float, int]:
    """``casino export`` in a child process: its seconds and peak resident memory (bytes)."""
    command = [sys.executable, "-c", "from casino.cli import main; main()", "export"]
    command += ["--database-url", url, "--output", str(path)]
    env = {**os.environ, "CASINO_SIGNING_KEY": KEY.private_hex()}
    started = time.perf_counter()
    child = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    if status != 0:
        raise RuntimeError(f"casino export failed ({status})")
    return seconds, usage.ru_maxrss * 1024


def verify_file(path: Path, jobs: int) -> tuple[float, dict]:
    verifier._keyed.clear()  # no HMAC state carried over from a previous run
    started = time.perf_counter()
    with path.open("rb") as export:
        summary = verifier.verify(export, [KEY.verifying.raw], jobs=jobs)
    return time.perf_counter() - started, summary


def parse_floor(path: Path) -> float:
    """Seconds to read, JSON-parse and SHA-256 every line, and nothing else: what any
    verifier of this format pays in CPython before it checks anything."""
    decode = json.JSONDecoder().raw_decode
    started = time.perf_counter()
    with path.open("rb") as lines:
        for raw in lines:
            decode(raw[:-1].decode("ascii"))
            hashlib.sha256(raw[:-1]).hexdigest()
    return time.perf_counter() - started


def engine_deals_per_second(rounds: int = 20_000) -> float:
    seed = hashlib.sha256(b"bench-export-reference").digest()
    best = float("inf")
    for attempt in range(3):
        started = time.perf_counter()
        for nonce in range(attempt * rounds, (attempt + 1) * rounds):
            deal_casino_war(seed, "reference", nonce, 6)
        best = min(best, time.perf_counter() - started)
    return rounds / best


def main() -> bool:
    with database() as (backend, url), tempfile.TemporaryDirectory() as directory:
        upgrade(url)
        engine = make_engine(url)
        try:
            started = time.perf_counter()
            filled = fill(engine, transactions=TRANSACTIONS, players=500)
            checkpoints = seal(engine, KEY)
            print(
                f"{backend}: filled {filled.transactions:,} transactions, {filled.rounds:,} "
                f"rounds, {checkpoints} checkpoints in {time.perf_counter() - started:.0f} s"
            )
        finally:
            engine.dispose()
        path = Path(directory) / "export.ndjson"
        seconds, peak = export_file(url, path)
        size = path.stat().st_size
        print(
            f"export:   {seconds:6.1f} s  {filled.transactions / seconds:>9,.0f} transactions/s"
            f"  {size / seconds / 1e6:5.1f} MB/s  ({size / 1e6:.0f} MB, peak RSS "
            f"{peak / 2**20:.0f} MiB)"
        )
        # In turn, so that both see the same moments of a shared machine.
        parallel, sequential = [], []
        for _ in range(REPEATS):
            parallel.append(verify_file(path, JOBS))
            sequential.append(verify_file(path, 1))
        best, summary = min(parallel, key=lambda run: run[0])
        alone, alone_summary = min(sequential, key=lambda run: run[0])
        if not summary["ok"]:
            failed = [check["name"] for check in summary["checks"] if not check["ok"]]
            raise RuntimeError(f"the verifier refused the export: {failed}")
        timing = ("seconds", "rounds_per_second")
        if {k: v for k, v in summary.items() if k not in timing} != {
            k: v for k, v in alone_summary.items() if k not in timing
        }:
            raise RuntimeError("--jobs 1 and --jobs N disagree")
        rounds = summary["rounds"]["total"]
        rate = rounds / best
        floor = min(parse_floor(path) for _ in range(REPEATS))
        reference = engine_deals_per_second()
        print(
            f"verify:   {best:6.1f} s  {rate:>9,.0f} rounds/s  ({rounds:,} rounds, "
            f"{summary['rounds']['redealt']:,} re-dealt, {summary['counts']['transaction']:,} "
            f"transactions; --jobs {JOBS}, best of {REPEATS})"
        )
        print(
            f"          {alone:6.1f} s  {rounds / alone:>9,.0f} rounds/s  sequentially "
            f"(--jobs 1, in turn with those runs): --jobs {JOBS} is {alone / best:.2f} x that"
        )
        print(
            f"reading, parsing and hashing the lines alone: {floor:.1f} s, "
            f"{rounds / floor:,.0f} rounds/s (the sequential verifier spends "
            f"{alone / floor:.1f} x that)"
        )
        print(f"engine deal alone, same moment: {reference:,.0f} deals/s")
    met = rate >= TARGET_ROUNDS_PER_SECOND
    print(f"target {TARGET_ROUNDS_PER_SECOND:,} rounds/s: {'meets' if met else 'MISSES'}")
    return met


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
