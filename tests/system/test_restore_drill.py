"""The restore drill (issue 15): a base backup plus the WAL archive bring the ledger back to
a chosen moment, exactly.

A private PostgreSQL server archives its WAL (``archive_command``) while clients play through
gunicorn. The drill takes a base backup with ``casino backup base``, lets play go on, notes a
time T while no request is in flight, lets play go on again, then restores a new server to T
with ``casino backup restore`` and starts it. The restored ledger must pass the audit and hold
exactly what was committed at T: the same ledger transactions (ids and hashes), rounds (with
their state at T), balances and chain head; none of what came after. The figures (rows
restored, rows after T left out, backup and recovery times) are printed and quoted in
docs/operations.md.
"""

from __future__ import annotations

import subprocess
import time
from contextlib import ExitStack
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
from click.testing import CliRunner

from casino.cli import main as casino
from config.token_policy import random_token
from harness import pg
from harness.invariants import run_audit
from harness.load import LoadConfig, LoadRun
from harness.sealer import seal_once
from harness.server import GunicornInstance

pytestmark = [pytest.mark.postgres, pytest.mark.slow]

PLAY_SECONDS = 3.0
# Production refuses guessable operator tokens (config/token_policy.py): a random one.
OPERATOR_TOKEN = random_token("op_")


def snapshot(url: str) -> dict[str, Any]:
    """What a restore must bring back, read in one transaction."""
    with psycopg.connect(pg.libpq_url(url)) as conn:
        return {
            "transactions": conn.execute(
                "SELECT id, hash FROM ledger_transactions ORDER BY id"
            ).fetchall(),
            "rounds": conn.execute("SELECT id, status, net FROM rounds ORDER BY id").fetchall(),
            "balances": conn.execute("SELECT id, balance FROM accounts ORDER BY id").fetchall(),
            "postings": conn.execute("SELECT count(*), sum(abs(amount)) FROM postings").fetchall(),
            "wallet_heads": conn.execute(
                "SELECT id, chain_length, chain_hash FROM accounts ORDER BY id"
            ).fetchall(),
            "checkpoints": conn.execute(
                "SELECT seq, hash, signature FROM ledger_checkpoints ORDER BY seq"
            ).fetchall(),
            "idempotency_records": conn.execute(
                "SELECT count(*) FROM idempotency_records"
            ).fetchall(),
        }


def server_time(url: str) -> datetime:
    with psycopg.connect(pg.libpq_url(url), autocommit=True) as conn:
        row = conn.execute("SELECT clock_timestamp()").fetchone()
    assert row is not None
    moment = row[0]
    assert isinstance(moment, datetime)
    return moment


def archive_current_wal(url: str, archive: Path, timeout: float = 60.0) -> str:
    """Close the current WAL segment and wait until archive_command has copied it."""
    with psycopg.connect(pg.libpq_url(url), autocommit=True) as conn:
        row = conn.execute("SELECT pg_walfile_name(pg_switch_wal())").fetchone()
    assert row is not None
    segment = str(row[0])
    deadline = time.monotonic() + timeout
    while not (archive / segment).exists():
        if time.monotonic() > deadline:
            raise AssertionError(f"WAL segment {segment} not archived within {timeout:.0f}s")
        time.sleep(0.1)
    return segment


def wait_promoted(url: str, timeout: float = 120.0) -> float:
    """Seconds until the restored server has finished recovery and takes writes."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        try:
            with psycopg.connect(pg.libpq_url(url), connect_timeout=3, autocommit=True) as conn:
                row = conn.execute("SELECT pg_is_in_recovery()").fetchone()
            if row is not None and row[0] is False:
                return time.monotonic() - started
        except psycopg.OperationalError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"the restored server was still recovering after {timeout:.0f}s")


def cli(*args: str) -> str:
    result = CliRunner().invoke(casino, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_point_in_time_restore_holds_exactly_what_was_committed_before_the_target(
    tmp_path: Path,
) -> None:
    if not pg.can_run_private_cluster():
        pytest.fail("PostgreSQL server binaries (initdb, pg_ctl) are needed for the drill")
    with ExitStack() as stack:
        source = pg.PrivateCluster()
        archive = source.directory / "wal-archive"
        archive.mkdir()
        source.hand_over(archive)
        # The archive_command the docs give: never overwrite a segment already archived.
        source.settings.update(
            archive_mode="on",
            archive_command=f"'test ! -f {archive}/%f && cp %p {archive}/%f'",
        )
        stack.enter_context(source)
        db = stack.enter_context(pg.scratch_database("drill", source.admin_url))
        pg.migrate(db.url)
        instance = GunicornInstance(db.url, [OPERATOR_TOKEN], workers=2)
        stack.callback(instance.stop)
        instance.start()
        run = LoadRun(
            LoadConfig(
                base_urls=[instance.base_url],
                operator_token=OPERATOR_TOKEN,
                players=12,
                threads=6,
                shared_players=3,
                duration=PLAY_SECONDS,
            )
        )
        run.setup()
        run.run()
        record = tmp_path / "sealer-state.json"  # the sealer's own, on its host
        seal_once(db.url, record)  # a checkpoint in the base backup

        backup_dir = tmp_path / "base-backup"
        backup_output = cli("backup", "base", "--to", str(backup_dir), "--database-url", db.url)
        assert (backup_dir / "backup_manifest").exists()
        at_backup = snapshot(db.url)

        run.run()  # play on
        seal_once(db.url, record)  # a checkpoint replayed from the archive
        # No request is in flight between the two runs: T splits the commits cleanly.
        at_target = snapshot(db.url)
        target = server_time(db.url)
        run.run()  # play on after T
        seal_once(db.url, record)  # a checkpoint the restore must leave out
        at_end = snapshot(db.url)
        archive_current_wal(db.url, archive)

        restored = pg.PrivateCluster()  # a new server, its data directory the restored copy
        stack.callback(restored.stop)
        restore_output = cli(
            "backup", "restore",
            "--from", str(backup_dir),
            "--wal-archive", str(archive),
            "--pgdata", str(restored.data),
            "--target-time", target.isoformat(),
        )  # fmt: skip
        restored.hand_over(restored.data)
        started = time.monotonic()
        restored.serve()
        restored_url = pg.with_database(restored.admin_url, db.name)
        recovery_seconds = (time.monotonic() - started) + wait_promoted(restored_url)
        in_restore = snapshot(restored_url)
        # The sealer that signed the checkpoint after T refuses the rewound ledger: its
        # record is ahead of it (a new record, --init, is the operator's decision).
        with pytest.raises(subprocess.CalledProcessError) as rewound:
            seal_once(restored_url, record)
        assert "checkpoints were deleted, or the database was rolled back" in str(
            rewound.value.stderr
        )
        # The audit verifies every restored checkpoint's signature and that the restored
        # ledger still matches each (it seals what was left unsealed at T first).
        audit = run_audit(restored_url)

    def new_since(before: dict[str, Any], after: dict[str, Any]) -> set[Any]:
        return set(after["transactions"]) - set(before["transactions"])

    played_before_target = len(new_since(at_backup, at_target))
    after_target = new_since(at_target, at_end)
    summary = (
        f"[restore drill] {backup_output.strip()}\n"
        f"  ledger transactions: {len(at_backup['transactions'])} at the backup, "
        f"+{played_before_target} replayed from the WAL archive up to T, "
        f"+{len(after_target)} after T left out\n"
        f"  restored to T = {target.isoformat()}: {len(in_restore['transactions'])} ledger "
        f"transactions, {len(in_restore['rounds'])} rounds, {len(in_restore['balances'])} "
        f"accounts; server open for writes {recovery_seconds:.1f}s after start\n"
        f"  casino audit on the restored ledger: {'clean' if audit.ok else 'FAILED'}"
    )
    print(summary)
    print(restore_output)
    # The drill means something only if both sides of T had commits the restore had to
    # replay from the archive (after the backup) or leave out (after T).
    assert played_before_target > 0, summary
    assert after_target, summary
    assert audit.ok, audit.output
    assert in_restore == at_target, summary
    # The last checkpoint sealed before T came back, signed; the one after T did not.
    assert len(at_target["checkpoints"]) == 2 < len(at_end["checkpoints"]), summary
