"""PostgreSQL for the harness: scratch databases, migrations, one restart, pgbench.

The server is the machine's shared one (127.0.0.1:5432 unless ``CASINO_TEST_POSTGRES_URL``
names another); every run makes uniquely named databases and drops them afterwards.
"""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

DEFAULT_ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def admin_url() -> str:
    """SQLAlchemy URL of a maintenance database on the server the harness may use."""
    return os.environ.get("CASINO_TEST_POSTGRES_URL") or DEFAULT_ADMIN_URL


def libpq_url(url: str) -> str:
    """The same URL without SQLAlchemy's ``+driver`` suffix, for psycopg and the pg tools."""
    return re.sub(r"^postgresql\+\w+://", "postgresql://", url)


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


def server_available(url: str | None = None) -> bool:
    try:
        with psycopg.connect(libpq_url(url or admin_url()), connect_timeout=3):
            return True
    except psycopg.Error:
        return False


def _admin_execute(sql: str) -> None:
    with psycopg.connect(libpq_url(admin_url()), autocommit=True, connect_timeout=10) as conn:
        conn.execute(sql)


@dataclass(frozen=True)
class ScratchDatabase:
    name: str
    url: str  # SQLAlchemy form, what DATABASE_URL gets

    @property
    def libpq_url(self) -> str:
        return libpq_url(self.url)


def create_database(purpose: str) -> ScratchDatabase:
    name = f"casino_{purpose}_{secrets.token_hex(4)}"
    _admin_execute(f'CREATE DATABASE "{name}"')
    return ScratchDatabase(name, with_database(admin_url(), name))


def drop_database(db: ScratchDatabase) -> None:
    # FORCE ends connections that a killed worker or a client left behind.
    for attempt in range(5):
        try:
            _admin_execute(f'DROP DATABASE IF EXISTS "{db.name}" WITH (FORCE)')
            return
        except psycopg.OperationalError:
            if attempt == 4:
                raise
            time.sleep(1)


@contextmanager
def scratch_database(purpose: str) -> Iterator[ScratchDatabase]:
    db = create_database(purpose)
    try:
        yield db
    finally:
        drop_database(db)


def migrate(url: str) -> None:
    """Bring a fresh database to the head revision, as ``casino db-upgrade`` does."""
    from casino.db.migrate import upgrade

    upgrade(url)


def cluster_version() -> str:
    versions = sorted(p.name for p in Path("/etc/postgresql").iterdir() if p.is_dir())
    if not versions:
        raise RuntimeError("no PostgreSQL cluster under /etc/postgresql")
    return versions[-1]


def restart_server(timeout: float = 60.0) -> float:
    """Restart the local cluster (a fault on purpose); returns seconds until it answers again.

    This is the machine's shared server, so callers do it at most once per run.
    """
    started = time.monotonic()
    subprocess.run(
        ["pg_ctlcluster", "--skip-systemctl-redirect", cluster_version(), "main", "restart"],
        check=True,
        capture_output=True,
        timeout=timeout,
    )
    while time.monotonic() - started < timeout:
        if server_available():
            return time.monotonic() - started
        time.sleep(0.2)
    raise RuntimeError("PostgreSQL did not come back after the restart")


def fetch_all(url: str, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    with psycopg.connect(libpq_url(url), connect_timeout=10) as conn:
        return list(conn.execute(sql, params).fetchall())


_TPS = re.compile(r"tps = ([0-9.]+) \(without initial connection time\)")


def pgbench_tps(clients: int = 16, threads: int = 2, seconds: int = 10, scale: int = 1) -> float:
    """``pgbench -b tpcb-like`` TPS on a scratch database of the same server."""
    with scratch_database("pgbench") as db:
        target = db.libpq_url
        subprocess.run(
            ["pgbench", "-i", "-q", "-s", str(scale), target],
            check=True,
            capture_output=True,
            timeout=300,
        )
        run = subprocess.run(
            [
                "pgbench",
                "-b",
                "tpcb-like",
                "-c",
                str(clients),
                "-j",
                str(threads),
                "-T",
                str(seconds),
                target,
            ],
            check=True,
            capture_output=True,
            text=True,
            timeout=seconds + 120,
        )
    match = _TPS.search(run.stdout)
    if not match:
        raise RuntimeError(f"pgbench printed no TPS:\n{run.stdout}\n{run.stderr}")
    return float(match.group(1))
