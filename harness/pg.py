"""PostgreSQL for the harness: scratch databases, migrations, one restart, pgbench.

The server is the machine's shared one (127.0.0.1:5432 unless ``CASINO_TEST_POSTGRES_URL``
names another); every run makes uniquely named databases and drops them afterwards.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg

from harness.cpu import CpuMeter, pids_running, process_seconds

DEFAULT_ADMIN_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"


def admin_url() -> str:
    """SQLAlchemy URL of a maintenance database on the server the harness may use."""
    return os.environ.get("CASINO_TEST_POSTGRES_URL") or DEFAULT_ADMIN_URL


def libpq_url(url: str) -> str:
    """The same URL without SQLAlchemy's ``+driver`` suffix, for psycopg and the pg tools.

    SQLAlchemy's multi-host form (``?host=a:p&host=b:q``) becomes libpq's
    (``?host=a,b&port=p,q``): libpq would take ``a:p`` for a host name.
    """
    plain = re.sub(r"^postgresql\+\w+://", "postgresql://", url)
    parts = urlsplit(plain)
    query = parse_qsl(parts.query, keep_blank_values=True)
    hosts = [value for name, value in query if name == "host"]
    if len(hosts) < 2:
        return plain
    names, ports = zip(*(h.rsplit(":", 1) if ":" in h else (h, "") for h in hosts), strict=True)
    rest = [(name, value) for name, value in query if name != "host"]
    rest += [("host", ",".join(names)), ("port", ",".join(ports))]
    return urlunsplit(parts._replace(query=urlencode(rest, safe=",")))


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


def server_available(url: str | None = None) -> bool:
    try:
        with psycopg.connect(libpq_url(url or admin_url()), connect_timeout=3):
            return True
    except psycopg.Error:
        return False


def _admin_execute(sql: str, admin: str | None = None) -> None:
    target = libpq_url(admin or admin_url())
    with psycopg.connect(target, autocommit=True, connect_timeout=10) as conn:
        conn.execute(sql)


@dataclass(frozen=True)
class ScratchDatabase:
    name: str
    url: str  # SQLAlchemy form, what DATABASE_URL gets

    @property
    def libpq_url(self) -> str:
        return libpq_url(self.url)


def create_database(purpose: str, admin: str | None = None) -> ScratchDatabase:
    name = f"casino_{purpose}_{secrets.token_hex(4)}"
    _admin_execute(f'CREATE DATABASE "{name}"', admin)
    return ScratchDatabase(name, with_database(admin or admin_url(), name))


def drop_database(db: ScratchDatabase) -> None:
    admin = with_database(db.url, "postgres")
    # FORCE ends connections that a killed worker or a client left behind.
    for attempt in range(5):
        try:
            _admin_execute(f'DROP DATABASE IF EXISTS "{db.name}" WITH (FORCE)', admin)
            return
        except psycopg.OperationalError:
            if attempt == 4:
                raise
            time.sleep(1)


@contextmanager
def scratch_database(purpose: str, admin: str | None = None) -> Iterator[ScratchDatabase]:
    db = create_database(purpose, admin)
    try:
        yield db
    finally:
        drop_database(db)


def migrate(url: str) -> None:
    """Bring a fresh database to the head revision, as ``casino db-upgrade`` does."""
    from casino.store.migrate import upgrade

    upgrade(url)


def postgres_bindir() -> Path:
    return Path("/usr/lib/postgresql") / cluster_version() / "bin"


class PrivateCluster:
    """A throw-away PostgreSQL server in a temporary directory, on its own loopback port.

    The fault runs restart this one instead of the machine's shared server, so the tests of
    everyone else using port 5432 at the same moment never see the restart.
    """

    def __init__(self, settings: dict[str, str] | None = None) -> None:
        from harness.server import free_port

        #: Server settings written to postgresql.auto.conf before the first start.
        self.settings = dict(settings or {})
        self.port = free_port()
        self.directory = Path(tempfile.mkdtemp(prefix="casino-pg-"))
        self.data = self.directory / "data"
        self.log = self.directory / "server.log"
        self._user: list[str] = []
        if os.geteuid() == 0:
            # The server refuses to run as root: hand the directory to the postgres account.
            shutil.chown(self.directory, "postgres", "postgres")
            self._user = ["runuser", "-u", "postgres", "--"]

    @property
    def admin_url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _ctl(self, *args: str, timeout: float = 120.0) -> None:
        # The server's own output goes to its log file: a pipe here would be inherited by the
        # postmaster and never reach end-of-file.
        subprocess.run(
            [
                *self._user,
                str(postgres_bindir() / "pg_ctl"),
                "-D",
                str(self.data),
                "-l",
                str(self.log),
                *args,
            ],
            check=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=timeout,
        )

    def start(self) -> None:
        subprocess.run(
            [
                *self._user,
                str(postgres_bindir() / "initdb"),
                "-D",
                str(self.data),
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        if self.settings:
            lines = "".join(f"{name} = {value}\n" for name, value in self.settings.items())
            with (self.data / "postgresql.auto.conf").open("a") as conf:
                conf.write(lines)
        self.serve()

    def serve(self) -> None:
        """Start the server on ``self.data`` (made by ``start``, or put there by a restore)."""
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1"
            f" -c unix_socket_directories={self.directory} -c fsync=off -c max_connections=200"
        )
        self._ctl("-o", options, "-w", "start")

    def hand_over(self, path: Path) -> None:
        """Give ``path`` (recursively) to the account the server runs as."""
        if self._user:
            for item in [path, *path.rglob("*")]:
                shutil.chown(item, "postgres", "postgres")

    def restart(self, timeout: float = 60.0) -> float:
        """Fast restart (clients are disconnected); seconds until it answers again."""
        started = time.monotonic()
        self._ctl("-m", "fast", "-w", "restart", timeout=timeout)
        while time.monotonic() - started < timeout:
            if server_available(self.admin_url):
                return time.monotonic() - started
            time.sleep(0.1)
        raise RuntimeError("private PostgreSQL did not come back after the restart")

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._ctl("-m", "immediate", "-w", "stop")
        shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> PrivateCluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def can_run_private_cluster() -> bool:
    try:
        return (postgres_bindir() / "initdb").exists()
    except (OSError, RuntimeError):
        return False


def cluster_version() -> str:
    versions = sorted(p.name for p in Path("/etc/postgresql").iterdir() if p.is_dir())
    if not versions:
        raise RuntimeError("no PostgreSQL cluster under /etc/postgresql")
    return versions[-1]


def restart_server(timeout: float = 60.0) -> float:
    """Restart the machine's shared cluster (a fault on purpose); seconds until it answers.

    Everyone's connections to port 5432 drop for about a second, so callers do it at most
    once per run, and only when asked to (``PrivateCluster.restart`` is the default).
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


@dataclass(frozen=True)
class PgbenchResult:
    tps: float
    #: CPU seconds per transaction: every PostgreSQL process, and pgbench itself.
    postgres_cpu: float
    client_cpu: float


def pgbench(
    clients: int = 16, threads: int = 2, seconds: int = 10, scale: int = 1
) -> PgbenchResult:
    """``pgbench -b tpcb-like`` on a scratch database of the same server: TPS and CPU cost."""
    with scratch_database("pgbench") as db:
        target = db.libpq_url
        subprocess.run(
            ["pgbench", "-i", "-q", "-s", str(scale), target],
            check=True,
            capture_output=True,
            timeout=300,
        )
        command = ["pgbench", "-b", "tpcb-like", "-c", str(clients), "-j", str(threads)]
        command += ["-T", str(seconds), target]
        process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        meter = CpuMeter({"postgres": lambda: pids_running("postgres")})
        meter.start()
        client_before = process_seconds(process.pid)
        # pgbench's own CPU is read just before it exits; the server's over the same span.
        time.sleep(max(0.0, seconds - 0.5))
        client = process_seconds(process.pid) - client_before
        used = meter.stop()
        out, err = process.communicate(timeout=120)
        if process.returncode != 0:
            raise RuntimeError(f"pgbench failed ({process.returncode}):\n{out}\n{err}")
    match = _TPS.search(out)
    if not match:
        raise RuntimeError(f"pgbench printed no TPS:\n{out}\n{err}")
    tps = float(match.group(1))
    span = max(0.5, seconds - 0.5)
    return PgbenchResult(tps, used["postgres"] / (tps * span), client / (tps * span))


def pgbench_tps(clients: int = 16, threads: int = 2, seconds: int = 10, scale: int = 1) -> float:
    """``pgbench -b tpcb-like`` TPS on a scratch database of the same server."""
    return pgbench(clients, threads, seconds, scale).tps
