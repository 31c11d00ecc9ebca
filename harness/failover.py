"""A throw-away pg_auto_failover formation on loopback ports: a monitor, a primary and a
synchronous standby, each run by its own ``pg_autoctl run`` as production runs them.

Everything lives in one temporary directory: data directories, pg_autoctl's configuration,
state and pid files (``XDG_*`` point into it) and the logs. pg_autoctl and PostgreSQL refuse to
run as root, so when the harness is root (CI, containers) every formation process runs as the
``postgres`` account, which owns that directory; otherwise they run as the current user (who
then needs write access to the server's default socket directory, /var/run/postgresql).

The faults are the ones a formation meets in production: a planned switchover
(``pg_autoctl perform failover``), ``kill -9`` of the primary's postmaster (its keeper starts it
again in place), ``kill -9`` of the primary's keeper (its supervisor starts it again), and
``kill -9`` of the whole primary node, keeper and postmaster at once (the monitor promotes the
standby; the node rejoins as a standby when started again).

``stop`` tears everything down whatever state the formation is in: supervisors are asked to
stop, then anything left of them (and their postmasters) is killed, and the System V
semaphores of supervisors that were killed are removed (pg_autoctl 2.0 does not reclaim them).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg

from harness.pg import postgres_bindir
from harness.server import HOST, free_port

#: Monitor settings that make an unplanned failover take seconds instead of the defaults'
#: ~50 s (health checks every 5 s, unhealthy after 20 s, 30 s demote timeout). A production
#: formation keeps slower values; docs/operations.md says which and why.
FAST_MONITOR = {
    "pgautofailover.health_check_period": "1000",
    "pgautofailover.health_check_timeout": "1000",
    "pgautofailover.health_check_max_retries": "1",
    "pgautofailover.health_check_retry_delay": "500",
    "pgautofailover.node_considered_unhealthy_timeout": "3000",
    "pgautofailover.primary_demote_timeout": "5000",
}

#: pg_autoctl sizes memory for a dedicated machine (gigabytes of shared_buffers); three servers
#: share a small test host here. fsync is off: a test kills processes, never the machine, and
#: the page cache survives a process.
SMALL_SERVER = {
    "shared_buffers": "'48MB'",
    "work_mem": "'4MB'",
    "maintenance_work_mem": "'32MB'",
    "effective_cache_size": "'256MB'",
    "fsync": "off",
}


#: A standby's WAL receiver retries a lost primary every ``wal_retrieve_retry_interval``
#: (5 s by default), and until it is back a synchronous primary holds every commit: after a
#: primary's restart in place that was a 5 s window. docs/operations.md recommends 1 s.
FAST_RECONNECT = {"wal_retrieve_retry_interval": "'1s'"}


def pg_autoctl_available() -> bool:
    return shutil.which("pg_autoctl") is not None and _extension_installed()


def _extension_installed() -> bool:
    try:
        return (postgres_bindir().parent / "lib" / "pgautofailover.so").exists()
    except (OSError, RuntimeError):
        return False


def _parent_and_name(pid: int) -> tuple[int, str] | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2 :].split()
    if fields[0] == "Z":
        return None
    return int(fields[1]), cmdline.replace(b"\0", b" ").decode(errors="replace").strip()


def children(pid: int) -> dict[int, str]:
    """Live children of ``pid`` with their command lines."""
    out = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            found = _parent_and_name(int(entry.name))
            if found is not None and found[0] == pid:
                out[int(entry.name)] = found[1]
    return out


def alive(pid: int) -> bool:
    return _parent_and_name(pid) is not None


def _kill(pid: int, sig: int = signal.SIGKILL) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, sig)


@dataclass
class Node:
    """One pg_autoctl node: the monitor or a Postgres node of the formation."""

    name: str
    port: int
    pgdata: Path
    log: Path
    supervisors: list[subprocess.Popen[bytes]] = field(default_factory=list)
    semaphores_of_killed: set[int] = field(default_factory=set)

    @property
    def supervisor(self) -> subprocess.Popen[bytes] | None:
        return self.supervisors[-1] if self.supervisors else None

    def postmaster_pid(self) -> int | None:
        try:
            first = (self.pgdata / "postmaster.pid").read_text().split("\n", 1)[0]
        except OSError:
            return None
        pid = int(first) if first.strip().isdigit() else None
        return pid if pid is not None and alive(pid) else None

    def keeper_pid(self) -> int | None:
        """The ``pg_autoctl: node active`` process (the keeper proper) under the supervisor."""
        supervisor = self.supervisor
        if supervisor is None or supervisor.poll() is not None:
            return None
        for pid, command in children(supervisor.pid).items():
            if "node active" in command:
                return pid
        return None

    def libpq_url(self, dbname: str = "postgres", user: str = "postgres") -> str:
        return f"postgresql://{user}@{HOST}:{self.port}/{dbname}"


class Formation:
    """A monitor and two Postgres nodes (``node1``, ``node2``) with synchronous replication."""

    def __init__(self, monitor_settings: dict[str, str] | None = None) -> None:
        self.directory = Path(tempfile.mkdtemp(prefix="casino-ha-"))
        self.monitor_settings = dict(FAST_MONITOR if monitor_settings is None else monitor_settings)
        self.as_postgres = os.geteuid() == 0
        if self.as_postgres:
            shutil.chown(self.directory, "postgres", "postgres")
        for sub in ("config", "share", "run"):
            self._mkdir(self.directory / sub)
        self.monitor = self._node("monitor")
        self.nodes = [self._node("node1"), self._node("node2")]
        self.events: list[str] = []
        #: Postmasters killed here: their System V segment outlives them when their orphaned
        #: backends still held it as the next postmaster started.
        self.killed_postmasters: set[int] = set()

    # --- plumbing ---

    def _mkdir(self, path: Path) -> None:
        path.mkdir(mode=0o700, exist_ok=True)
        if self.as_postgres:
            shutil.chown(path, "postgres", "postgres")

    def _node(self, name: str) -> Node:
        return Node(name, free_port(), self.directory / name, self.directory / f"{name}.log")

    def environment(self) -> dict[str, str]:
        env = {
            "PATH": f"{postgres_bindir()}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(self.directory),
            "XDG_CONFIG_HOME": str(self.directory / "config"),
            "XDG_DATA_HOME": str(self.directory / "share"),
            "XDG_RUNTIME_DIR": str(self.directory / "run"),
        }
        for name in ("LANG", "LC_ALL", "TZ"):
            if name in os.environ:
                env[name] = os.environ[name]
        env.setdefault("LANG", "C.UTF-8")
        return env

    def _user(self) -> dict[str, Any]:
        if not self.as_postgres:
            return {}
        return {"user": "postgres", "group": "postgres", "extra_groups": []}

    def pg_autoctl(self, *args: str, timeout: float = 120.0) -> str:
        """Run one pg_autoctl command to completion; its output, or an error carrying it."""
        done = subprocess.run(
            ["pg_autoctl", *args],
            cwd=self.directory,
            env=self.environment(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=timeout,
            **self._user(),
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"pg_autoctl {' '.join(args)} exited {done.returncode}:\n{done.stderr[-3000:]}"
            )
        return done.stdout + done.stderr

    def _run(self, node: Node) -> None:
        """Start ``pg_autoctl run`` for a node in its own session (its supervisor)."""
        with node.log.open("ab") as log:
            process = subprocess.Popen(
                ["pg_autoctl", "run", "--pgdata", str(node.pgdata)],
                cwd=self.directory,
                env=self.environment(),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                **self._user(),
            )
        node.supervisors.append(process)

    @staticmethod
    def _append_settings(node: Node, settings: dict[str, str]) -> None:
        # postgresql.auto.conf is read last, so these win over pg_autoctl's own tuning.
        lines = "".join(f"{name} = {value}\n" for name, value in settings.items())
        with (node.pgdata / "postgresql.auto.conf").open("a") as conf:
            conf.write(lines)

    @property
    def monitor_url(self) -> str:
        return f"{self.monitor.libpq_url('pg_auto_failover', 'autoctl_node')}?sslmode=disable"

    # --- building ---

    def start(self, timeout: float = 120.0) -> None:
        started = time.monotonic()
        self.pg_autoctl(
            "create", "monitor",
            "--pgdata", str(self.monitor.pgdata),
            "--pgport", str(self.monitor.port),
            "--hostname", HOST,
            "--auth", "trust",
            "--no-ssl",
        )  # fmt: skip
        self._listen_on_loopback_only()
        self._append_settings(self.monitor, {**SMALL_SERVER, **self.monitor_settings})
        self._run(self.monitor)
        self.wait_for(lambda: self._monitor_answers(), timeout, "the monitor to accept connections")
        for index, node in enumerate(self.nodes):
            self.pg_autoctl(
                "create", "postgres",
                "--pgdata", str(node.pgdata),
                "--pgport", str(node.port),
                "--hostname", HOST,
                "--listen", HOST,
                "--name", node.name,
                "--auth", "trust",
                "--no-ssl",
                "--monitor", self.monitor_url,
            )  # fmt: skip
            if index == 0:
                # The standby is a base backup of the primary and inherits these settings.
                self._append_settings(node, {**SMALL_SERVER, **FAST_RECONNECT})
            self._run(node)
            if index == 0:
                self.wait_for(
                    lambda: self.states().get("node1") == ("single", "single"),
                    timeout - (time.monotonic() - started),
                    "node1 to run as a single primary",
                )
        self.wait_settled(max(10.0, timeout - (time.monotonic() - started)))
        self.events.append(f"formation ready in {time.monotonic() - started:.1f}s")

    def _listen_on_loopback_only(self) -> None:
        # ``create monitor`` has no --listen: its configuration says '*' until told otherwise.
        config = self.directory / "config" / "pg_autoctl"
        config = config / str(self.monitor.pgdata).lstrip("/") / "pg_autoctl.cfg"
        text = config.read_text().replace("listen_addresses = *", f"listen_addresses = {HOST}")
        config.write_text(text)

    # --- observing ---

    def _monitor_answers(self) -> bool:
        try:
            self.states()
            return True
        except psycopg.Error:
            return False

    def states(self) -> dict[str, tuple[str, str]]:
        """Each node's (reported state, goal state) as the monitor sees them."""
        with psycopg.connect(self.monitor_url, connect_timeout=3, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT nodename, reportedstate::text, goalstate::text FROM pgautofailover.node"
            ).fetchall()
        return {str(name): (str(reported), str(goal)) for name, reported, goal in rows}

    def node(self, name: str) -> Node:
        return next(n for n in self.nodes if n.name == name)

    def current_primary(self) -> Node | None:
        """The node that has reached a primary state, if one has (not during a switch)."""
        for name, (reported, goal) in self.states().items():
            if goal in ("primary", "wait_primary", "single") and reported == goal:
                return self.node(name)
        return None

    def primary(self) -> Node:
        node = self.current_primary()
        if node is None:
            raise RuntimeError(f"no primary: {self.describe()}")
        return node

    def standby(self) -> Node:
        primary = self.primary()
        return next(n for n in self.nodes if n is not primary)

    def synchronous_standby(self, node: Node) -> bool:
        """The node is primary and a standby acknowledges its commits synchronously."""
        try:
            with psycopg.connect(node.libpq_url(), connect_timeout=3, autocommit=True) as conn:
                names = conn.execute("SHOW synchronous_standby_names").fetchone()
                sync = conn.execute(
                    "SELECT count(*) FROM pg_stat_replication "
                    "WHERE sync_state IN ('sync', 'quorum') AND state = 'streaming'"
                ).fetchone()
        except psycopg.Error:
            return False
        return bool(names and names[0]) and bool(sync and sync[0])

    def settled(self) -> Node | None:
        """The primary when the formation is whole: primary + synchronous secondary."""
        try:
            states = self.states()
        except psycopg.Error:
            return None
        goals = sorted(states.values())
        if goals != [("primary", "primary"), ("secondary", "secondary")]:
            return None
        primary = next(self.node(n) for n, s in states.items() if s[0] == "primary")
        return primary if self.synchronous_standby(primary) else None

    def wait_settled(self, timeout: float = 60.0) -> Node:
        self.wait_for(lambda: self.settled() is not None, timeout, "primary + synchronous standby")
        primary = self.settled()
        assert primary is not None
        return primary

    def wait_for(self, condition: Callable[[], bool], timeout: float, what: str) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return
            time.sleep(0.2)
        raise RuntimeError(f"timed out after {timeout:.0f}s waiting for {what}: {self.describe()}")

    def describe(self) -> str:
        try:
            states = self.states()
        except psycopg.Error as err:
            return f"(monitor unreachable: {err})"
        return ", ".join(f"{n}: {r}/{g}" for n, (r, g) in sorted(states.items()))

    # --- URLs ---

    def sqlalchemy_url(self, dbname: str) -> str:
        """The app's multi-host URL: libpq tries each node in turn and keeps the one taking
        writes; ``connect_timeout`` bounds each try (a dead machine answers nothing)."""
        hosts = "&".join(f"host={HOST}:{n.port}" for n in self.nodes)
        return (
            f"postgresql+psycopg://postgres@/{dbname}?{hosts}"
            "&target_session_attrs=read-write&connect_timeout=3"
        )

    def primary_url(self, dbname: str = "postgres") -> str:
        return self.primary().libpq_url(dbname)

    # --- faults ---

    def perform_failover(self) -> None:
        """Planned switchover: the monitor drains the primary and promotes the standby."""
        self.pg_autoctl("perform", "failover", "--pgdata", str(self.monitor.pgdata), timeout=120)

    def kill_postmaster(self, node: Node) -> int:
        pid = node.postmaster_pid()
        if pid is None:
            raise RuntimeError(f"{node.name} has no running postmaster")
        _kill(pid)
        self.killed_postmasters.add(pid)
        return pid

    def kill_keeper(self, node: Node) -> int:
        pid = node.keeper_pid()
        if pid is None:
            raise RuntimeError(f"{node.name} has no running keeper")
        _kill(pid)
        return pid

    def kill_node(self, node: Node) -> list[int]:
        """``kill -9`` of the node's pg_autoctl processes and its postmaster, all at once."""
        supervisor = node.supervisor
        if supervisor is None or supervisor.poll() is not None:
            raise RuntimeError(f"{node.name} is not running")
        semaphore = self._semaphore(node)
        postmaster = node.postmaster_pid()
        pids = [supervisor.pid, *children(supervisor.pid)]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(supervisor.pid, signal.SIGKILL)  # supervisor, its services, postmaster
        if postmaster is not None:
            _kill(postmaster)
            self.killed_postmasters.add(postmaster)
        supervisor.wait(timeout=10)
        if semaphore is not None:
            node.semaphores_of_killed.add(semaphore)
        return pids

    def restart_node(self, node: Node) -> None:
        self._run(node)

    def _semaphore(self, node: Node) -> int | None:
        """The System V semaphore id that the node's pg_autoctl pid file records (line 5)."""
        for pidfile in (self.directory / "run").rglob("pg_autoctl.pid"):
            lines = pidfile.read_text().splitlines()
            if len(lines) >= 5 and lines[1] == str(node.pgdata) and lines[4].isdigit():
                return int(lines[4])
        return None

    # --- teardown ---

    def stop(self) -> None:
        for node in [*self.nodes, self.monitor]:
            self._stop_node(node)
        for node in [*self.nodes, self.monitor]:
            for semaphore in node.semaphores_of_killed:
                subprocess.run(["ipcrm", "-s", str(semaphore)], capture_output=True, check=False)
        self._remove_orphaned_segments()
        shutil.rmtree(self.directory, ignore_errors=True)

    def _stop_node(self, node: Node) -> None:
        running = [p for p in node.supervisors if p.poll() is None]
        for process in running:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGTERM)  # pg_autoctl stops postgres, then itself
        deadline = time.monotonic() + 20
        for process in running:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                semaphore = self._semaphore(node)
                if semaphore is not None:
                    node.semaphores_of_killed.add(semaphore)
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
        postmaster = node.postmaster_pid()
        if postmaster is not None:
            # A postmaster that outlived its supervisor: stop it as pg_ctl would, then for good.
            _kill(postmaster, signal.SIGQUIT)
            deadline = time.monotonic() + 10
            while alive(postmaster) and time.monotonic() < deadline:
                time.sleep(0.1)
            _kill(postmaster)
            self.killed_postmasters.add(postmaster)

    def _remove_orphaned_segments(self) -> None:
        try:
            rows = Path("/proc/sysvipc/shm").read_text().splitlines()[1:]
        except OSError:
            return
        for row in rows:
            fields = row.split()
            shmid, creator, attached = int(fields[1]), int(fields[4]), int(fields[6])
            if creator in self.killed_postmasters and attached == 0:
                subprocess.run(["ipcrm", "-m", str(shmid)], capture_output=True, check=False)

    def leftovers(self) -> list[str]:
        """Processes still running from this formation, and System V objects left by the
        processes it killed (nothing, after ``stop``)."""
        marker = str(self.directory)
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue
            if marker in cmdline:
                found.append(f"{entry.name}: {cmdline.strip()}")
        semaphores = {s for n in [*self.nodes, self.monitor] for s in n.semaphores_of_killed}
        for path, column, wanted, kind in (
            ("/proc/sysvipc/sem", 1, semaphores, "semaphore"),
            ("/proc/sysvipc/shm", 4, self.killed_postmasters, "shared memory of postmaster"),
        ):
            with contextlib.suppress(OSError):
                for row in Path(path).read_text().splitlines()[1:]:
                    if int(row.split()[column]) in wanted:
                        found.append(f"{kind} {row.split()[column]}")
        return found

    def log_tails(self, lines: int = 25) -> str:
        out = []
        for node in [self.monitor, *self.nodes]:
            try:
                text = node.log.read_text(errors="replace").splitlines()
            except OSError:
                continue
            out.append(f"--- {node.name} ---\n" + "\n".join(text[-lines:]))
        return "\n".join(out)

    def __enter__(self) -> Formation:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
