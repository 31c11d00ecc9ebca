"""``casino backup``: a SQLite base backup that audits clean, what restore refuses, and how a
PostgreSQL URL becomes pg_basebackup's connection string. The PostgreSQL backup and the
point-in-time restore themselves are exercised by the restore drill
(tests/system/test_restore_drill.py)."""

from __future__ import annotations

import shlex
import sqlite3
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from casino.cli import main as cli
from casino.store.backup import (
    SQLITE_FILE,
    BackupError,
    libpq_conninfo,
    parse_target_time,
    prepare_restore,
)


def invoke(*args: str) -> click.testing.Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _counts(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as conn:
        return {
            table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("players", "ledger_transactions", "postings", "accounts")
        }


def test_sqlite_base_backup_is_a_consistent_copy_that_audits_clean(tmp_path: Path) -> None:
    source = tmp_path / "casino.store"
    url = f"sqlite:///{source}"
    assert invoke("db-upgrade", "--database-url", url).exit_code == 0
    assert invoke("seed-demo", "--database-url", url).exit_code == 0

    result = invoke("backup", "base", "--database-url", url, "--to", str(tmp_path / "bk"))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("sqlite base backup casino-")
    copy = tmp_path / "bk" / SQLITE_FILE
    assert _counts(copy) == _counts(source)
    assert _counts(copy)["ledger_transactions"] >= 1  # the demo player's deposit
    audit = invoke("audit", "--database-url", f"sqlite:///{copy}")
    assert audit.exit_code == 0 and "all checks passed" in audit.output

    again = CliRunner().invoke(
        cli, ["backup", "base", "--database-url", url, "--to", str(tmp_path / "bk")]
    )
    assert again.exit_code == 1
    assert "is not empty" in again.output  # a backup never overwrites another


def test_restore_refuses_what_is_not_a_postgresql_base_backup(tmp_path: Path) -> None:
    not_a_backup = tmp_path / "nothing"
    not_a_backup.mkdir()
    archive = tmp_path / "archive"
    archive.mkdir()
    result = CliRunner().invoke(
        cli,
        [
            "backup", "restore",
            "--from", str(not_a_backup),
            "--wal-archive", str(archive),
            "--pgdata", str(tmp_path / "new"),
        ],
    )  # fmt: skip
    assert result.exit_code == 1
    assert "no backup_label" in result.output
    assert not (tmp_path / "new").exists()


def test_restore_writes_recovery_settings_that_stop_at_the_target(tmp_path: Path) -> None:
    backup = tmp_path / "backup"
    backup.mkdir()
    (backup / "backup_label").write_text("START WAL LOCATION: 0/2000028 (file x)\n")
    (backup / "postgresql.auto.conf").write_text("archive_mode = 'on'\n")
    archive = tmp_path / "wal archive"  # a space: the restore_command must quote it
    archive.mkdir()
    moment = parse_target_time("2026-12-01 09:30:00+01:00")

    pgdata = prepare_restore(backup, tmp_path / "pgdata", archive, moment)

    assert (pgdata / "recovery.signal").exists()
    assert pgdata.stat().st_mode & 0o077 == 0
    conf = (pgdata / "postgresql.auto.conf").read_text()
    shell_path = shlex.quote(str(archive.resolve()))  # '/…/wal archive'
    assert f"restore_command = 'cp {shell_path.replace(chr(39), chr(39) * 2)}/%f %p'" in conf
    assert "recovery_target_time = '2026-12-01 09:30:00+01:00'" in conf
    assert "recovery_target_action = 'promote'" in conf
    # Archiving off in the copy comes after the backup's own setting, so it wins.
    assert conf.index("archive_mode = 'off'") > conf.index("archive_mode = 'on'")
    with pytest.raises(BackupError, match="not empty"):
        prepare_restore(backup, pgdata, archive, moment)


def test_target_time_needs_a_time_zone() -> None:
    assert parse_target_time("2026-12-01T08:30:00Z") == datetime(2026, 12, 1, 8, 30, tzinfo=UTC)
    assert parse_target_time("2026-12-01 09:30:00+01:00").utcoffset() == timedelta(hours=1)
    assert parse_target_time("2026-12-01 09:30:00+01:00").tzinfo == timezone(timedelta(hours=1))
    with pytest.raises(BackupError, match="no time zone"):
        parse_target_time("2026-12-01 09:30:00")
    with pytest.raises(BackupError, match="not an ISO 8601 time"):
        parse_target_time("yesterday")


def test_libpq_conninfo_keeps_every_host_and_keeps_the_password_off_the_command_line() -> None:
    conninfo, password = libpq_conninfo(
        "postgresql+psycopg://app:s3cr%40t@/casino"
        "?host=10.0.0.1:5432&host=10.0.0.2:5433&target_session_attrs=read-write"
    )
    assert password == "s3cr@t"
    assert "s3cr" not in conninfo
    fields = dict(item.split("=", 1) for item in conninfo.split())
    assert fields["host"] == "10.0.0.1,10.0.0.2"
    assert fields["port"] == "5432,5433"
    assert fields["dbname"] == "casino"
    assert fields["target_session_attrs"] == "read-write"
    with pytest.raises(BackupError, match="not a PostgreSQL URL"):
        libpq_conninfo("sqlite:///x.db")
