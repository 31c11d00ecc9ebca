"""Base backups and point-in-time restores of the service's database.

PostgreSQL: a base backup is ``pg_basebackup`` in plain format with the WAL it needs
(``-X stream``) and a SHA-256 manifest, checked by ``pg_verifybackup`` right away. With WAL
archiving on (``archive_command``, see docs/operations.md) a base backup plus the archive
restore the database to any moment after the backup: ``prepare_restore`` turns a copy of the
backup into a data directory that replays the archive up to that moment and then opens for
writes (``recovery_target_action = promote``). Archiving is off in the restored copy, so it
never writes into the archive of the server it came from.

SQLite: a base backup is a consistent copy made with SQLite's online backup API; there is no
WAL archive, so a SQLite database comes back as it was at the backup.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from psycopg.conninfo import make_conninfo
from sqlalchemy.dialects.postgresql.psycopg import PGDialect_psycopg
from sqlalchemy.engine import make_url

SQLITE_FILE = "casino.sqlite"
_START = re.compile(r"^START WAL LOCATION: (\S+)", re.MULTILINE)


class BackupError(Exception):
    """A backup or restore step failed; the message says which and why."""


@dataclass(frozen=True)
class BaseBackup:
    path: Path
    backend: str  # "postgresql" or "sqlite"
    label: str
    start_lsn: str | None
    size_bytes: int
    seconds: float


def libpq_conninfo(url: str) -> tuple[str, str | None]:
    """The libpq connection string of a SQLAlchemy PostgreSQL URL (multi-host URLs too), and
    its password apart: a command line is visible to every user of the machine."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "postgresql":
        raise BackupError(f"not a PostgreSQL URL: {parsed.render_as_string(hide_password=True)}")
    # The psycopg dialect's own reading of the URL: hosts, ports and query options alike.
    _, params = PGDialect_psycopg().create_connect_args(parsed.set(drivername="postgresql"))
    password = params.pop("password", None)
    return make_conninfo(**{k: v for k, v in params.items() if k != "context"}), password


def postgres_tool(name: str) -> str:
    """A PostgreSQL client program: from PATH, else the newest /usr/lib/postgresql/*/bin."""
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(
        Path("/usr/lib/postgresql").glob(f"*/bin/{name}"),
        key=lambda p: int(p.parts[-3]) if p.parts[-3].isdigit() else 0,
    )
    if not candidates:
        raise BackupError(f"{name} not found (install the PostgreSQL client programs)")
    return str(candidates[-1])


def _run(command: list[str], what: str, timeout: float, password: str | None = None) -> str:
    env = dict(os.environ)
    if password is not None:
        env["PGPASSWORD"] = password
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        raise BackupError(f"{what} took longer than {timeout:.0f}s") from None
    if done.returncode != 0:
        raise BackupError(f"{what} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return done.stdout


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _empty_target(target: Path) -> None:
    if target.exists() and any(target.iterdir()):
        raise BackupError(f"{target} is not empty")


def base_backup(url: str, target: Path, label: str, timeout: float = 3600.0) -> BaseBackup:
    """Take a base backup of the database at ``url`` into the new directory ``target``."""
    _empty_target(target)
    started = time.monotonic()
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        if not parsed.database or parsed.database == ":memory:":
            raise BackupError("an in-memory SQLite database cannot be backed up")
        target.mkdir(parents=True, exist_ok=True)
        source = sqlite3.connect(f"file:{parsed.database}?mode=ro", uri=True)
        copy = sqlite3.connect(target / SQLITE_FILE)
        try:
            with copy:
                source.backup(copy)
        finally:
            copy.close()
            source.close()
        return BaseBackup(target, backend, label, None, _size(target), time.monotonic() - started)
    if backend != "postgresql":
        raise BackupError(f"no backup method for {backend}")
    conninfo, password = libpq_conninfo(url)
    command = [
        postgres_tool("pg_basebackup"),
        "--dbname", conninfo,
        "--pgdata", str(target),
        "--format", "plain",
        "--wal-method", "stream",
        "--checkpoint", "fast",
        "--label", label,
        "--manifest-checksums", "SHA256",
        "--no-password",
    ]  # fmt: skip
    _run(command, "pg_basebackup", timeout, password)
    _run([postgres_tool("pg_verifybackup"), "--quiet", str(target)], "pg_verifybackup", timeout)
    found = _START.search((target / "backup_label").read_text())
    return BaseBackup(
        target,
        backend,
        label,
        found.group(1) if found else None,
        _size(target),
        time.monotonic() - started,
    )


def parse_target_time(text: str) -> datetime:
    """An ISO 8601 moment with its time zone (a restore must not guess the server's zone)."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise BackupError(f"not an ISO 8601 time: {text!r}") from None
    if moment.tzinfo is None:
        raise BackupError(f"{text!r} has no time zone; add one, e.g. +00:00")
    return moment


def _conf_string(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def prepare_restore(
    backup: Path, pgdata: Path, wal_archive: Path, target_time: datetime | None = None
) -> Path:
    """Make ``pgdata`` (new) a copy of a PostgreSQL base backup that, when started, replays
    ``wal_archive`` up to ``target_time`` (every transaction committed at or before it, none
    after) or, without a time, to the end of the archive, and then opens for writes."""
    if not (backup / "backup_label").exists():
        raise BackupError(f"{backup} is not a PostgreSQL base backup (no backup_label)")
    if not wal_archive.is_dir():
        raise BackupError(f"WAL archive {wal_archive} is not a directory")
    _empty_target(pgdata)
    if pgdata.exists():
        pgdata.rmdir()
    shutil.copytree(backup, pgdata, symlinks=True)
    pgdata.chmod(0o700)  # the server refuses a data directory others can read
    archive = shlex.quote(str(wal_archive.resolve()))
    settings = {
        "restore_command": _conf_string(f"cp {archive}/%f %p"),
        "recovery_target_action": "'promote'",
        # The restored copy must not write into the archive of the server it came from.
        "archive_mode": "'off'",
    }
    if target_time is not None:
        settings["recovery_target_time"] = _conf_string(target_time.isoformat(sep=" "))
        settings["recovery_target_inclusive"] = "on"
    lines = "".join(f"{name} = {value}\n" for name, value in settings.items())
    with (pgdata / "postgresql.auto.conf").open("a") as conf:
        conf.write("# point-in-time restore (casino backup restore)\n" + lines)
    (pgdata / "recovery.signal").touch()
    return pgdata
