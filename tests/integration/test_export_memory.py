"""Issue 13, point 2: the export streams in constant memory.

A ledger of 100,000+ transactions (rounds dealt by the engine, linked into their wallets'
chains by the ledger's own functions, bulk-inserted by harness/ledger_fill.py) and sealed into
checkpoints is exported whole by ``casino export``, in a process of its own so that its peak
resident memory is its own (``os.wait4``): it must be no larger than when a thirtieth of the
ledger is exported. An export that held its rows, its lines or the rounds' ids would grow with
the ledger: at this size by well over a hundred megabytes (the export itself is larger).
"""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from datetime import datetime

import pytest
from sqlalchemy import Engine

from casino.audit_export import casino_audit_export as verifier
from casino.service.export import export
from casino.store.session import make_session_factory
from casino.store.uow import UnitOfWork
from harness.ledger_fill import fill, seal

from .conftest import SIGNING_KEY

TRANSACTIONS = 110_000
MIB = 1024 * 1024


@dataclass
class Measured:
    bytes: int
    transactions: int
    peak_rss: int  # bytes


def measure(database_url: str, since: datetime | None = None) -> Measured:
    """``casino export`` in a child process: what it wrote and its peak resident memory."""
    command = [sys.executable, "-c", "from casino.cli import main; main()", "export"]
    command += ["--database-url", database_url, "--output", "-"]
    if since is not None:
        command += ["--since", since.isoformat()]
    env = {**os.environ, "CASINO_SIGNING_KEY": SIGNING_KEY.private_hex()}
    child = subprocess.Popen(command, stdout=subprocess.PIPE, env=env)
    assert child.stdout is not None
    size = transactions = 0
    tail = b""
    while chunk := child.stdout.read(1 << 16):
        size += len(chunk)
        # Count whole lines only: a marker may straddle two reads.
        lines, _, tail = (tail + chunk).rpartition(b"\n")
        transactions += lines.count(b'"type":"transaction"')
    _, status, usage = os.wait4(child.pid, 0)
    assert status == 0
    return Measured(size, transactions, usage.ru_maxrss * 1024)  # Linux: kilobytes


@pytest.mark.slow
def test_the_export_of_100k_transactions_streams_in_constant_memory(
    engine: Engine, db_url: str
) -> None:
    filled = fill(engine, transactions=TRANSACTIONS, players=300)
    assert filled.transactions >= 100_000 and filled.open_rounds > 0
    assert seal(engine, SIGNING_KEY) >= 2  # at most 50,000 transactions per checkpoint
    part = measure(db_url, since=filled.time_at(29 / 30))
    whole = measure(db_url)
    assert whole.transactions == filled.transactions
    assert 2_500 < part.transactions < 5_000
    assert whole.bytes > 100 * MIB  # what an export built in memory would have held
    assert whole.peak_rss < part.peak_rss + 16 * MIB, (part, whole)


def test_a_filled_ledger_is_one_the_verifier_accepts(engine: Engine) -> None:
    """The filler's ledger is valid (so the measured export is a real one), with revealed
    seeds, open rounds, several checkpoints and both kinds of round."""
    filled = fill(engine, transactions=3_000, players=40, batch=700)
    assert seal(engine, SIGNING_KEY) >= 1
    with UnitOfWork(make_session_factory(engine), operator="default") as uow:
        data = b"".join(export(uow, since=None, until=None, keys=[SIGNING_KEY.verifying]))
    summary = verifier.verify(data.splitlines(keepends=True), [SIGNING_KEY.verifying.raw])
    assert summary["ok"], [c for c in summary["checks"] if not c["ok"]]
    assert summary["counts"]["transaction"] == filled.transactions
    assert summary["rounds"]["redealt"] > 0 and summary["unchecked_rounds"]
    assert summary["rounds"]["money_matched"] == filled.rounds
    with UnitOfWork(make_session_factory(engine), operator="default") as uow:
        since = filled.time_at(0.5)
        part = b"".join(export(uow, since=since, until=None, keys=[SIGNING_KEY.verifying]))
    assert verifier.verify(part.splitlines(keepends=True), [SIGNING_KEY.verifying.raw])["ok"]
