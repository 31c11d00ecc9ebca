"""gunicorn instances of the app on loopback ports, as production runs them.

Each instance is a real ``gunicorn wsgi:app`` process tree started from the repository root
with ``CASINO_ENV=production`` (what wsgi.py defaults to anyway), its own ``DATABASE_URL``,
the operator tokens in ``CASINO_OPERATOR_TOKENS`` and the checkpoints' public key only. Its
output goes to a log file that a failing run prints.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def gunicorn_executable() -> str:
    candidate = Path(sys.executable).with_name("gunicorn")
    return str(candidate) if candidate.exists() else "gunicorn"


def _children(pid: int) -> list[int]:
    """PIDs whose parent is ``pid`` (gunicorn workers are the master's children)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name may hold spaces and parentheses: the fields start after the last ')'.
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append(int(entry.name))
    return sorted(found)


def http_status(url: str, timeout: float = 2.0) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return int(response.status)
    except urllib.error.HTTPError as err:
        return int(err.code)
    except (OSError, ValueError):
        return None


#: The checkpoint signing key of the harness's sealers (any 32 bytes are an Ed25519 key);
#: its servers are given only the public key, as production's web tier.
HARNESS_SIGNING_KEY = "5e" * 32


def harness_public_key() -> str:
    from casino.ledger.checkpoints import SigningKey

    return SigningKey.parse(HARNESS_SIGNING_KEY).verifying.hex


@dataclass
class GunicornInstance:
    database_url: str
    operator_tokens: list[str]
    workers: int = 2
    threads: int = 1
    port: int = field(default_factory=free_port)
    log_path: Path | None = None
    extra_env: dict[str, str] = field(default_factory=dict)
    access_log: bool = False
    process: subprocess.Popen[bytes] | None = None
    app: str = "wsgi:app"  # another WSGI app (a bench's floor) must answer GET ready_path
    ready_path: str = "/api/v1/ready"
    #: Serve with production's own settings (``casino.api.gunicorn_conf``, what the Procfile
    #: runs: threaded workers, its timeouts) instead of this harness's sync-worker flags.
    serving_config: bool = False

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            DATABASE_URL=self.database_url,
            CASINO_ENV="production",
            CASINO_OPERATOR_TOKENS=",".join(self.operator_tokens),
            WEB_CONCURRENCY=str(self.workers),
            PYTHONUNBUFFERED="1",
        )
        # Production refuses to start without the checkpoints' public key (the web tier
        # needs no more: the private key is the sealer's), and without a counter store for
        # failed authentications: per process here unless the caller (or the environment)
        # names a shared one.
        if not env.get("CASINO_SIGNING_KEY") and not env.get("CASINO_SIGNING_KEY_FILE"):
            env.setdefault("CASINO_SIGNING_PUBLIC_KEY", harness_public_key())
        if not env.get("RATELIMIT_STORAGE_URI") and not env.get("REDIS_URL"):
            env["RATELIMIT_STORAGE_URI"] = "memory://"
        env.update(self.extra_env)
        return env

    def start(self, timeout: float = 60.0) -> None:
        if self.log_path is None:
            handle, name = tempfile.mkstemp(prefix=f"casino-gunicorn-{self.port}-", suffix=".log")
            os.close(handle)
            self.log_path = Path(name)
        log = self.log_path.open("wb")
        command = self._serving_command() if self.serving_config else self._harness_command()
        self.process = subprocess.Popen(
            command,
            cwd=REPO_ROOT,
            env=self.environment(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        log.close()
        self.wait_ready(timeout)

    def _serving_command(self) -> list[str]:
        return [
            gunicorn_executable(),
            "--config",
            "python:casino.api.gunicorn_conf",
            "--bind",
            f"{HOST}:{self.port}",
            "--workers",
            str(self.workers),
            *(["--access-logfile", "-"] if self.access_log else []),
            self.app,
        ]

    def _harness_command(self) -> list[str]:
        return [
            gunicorn_executable(),
            "--bind",
            f"{HOST}:{self.port}",
            "--workers",
            str(self.workers),
            "--threads",
            str(self.threads),
            "--timeout",
            "30",
            "--no-control-socket",
            # Workers forked from an app imported once: a replacement for a killed worker
            # starts in milliseconds and runs the same code as the one it replaces.
            "--preload",
            "--graceful-timeout",
            "5",
            *(["--access-logfile", "-"] if self.access_log else []),
            self.app,
        ]

    def wait_ready(self, timeout: float = 60.0) -> float:
        """Seconds until ``ready_path`` answers 200 and every worker is up."""
        started = time.monotonic()
        while time.monotonic() - started < timeout:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(
                    f"gunicorn exited with {self.process.returncode}:\n{self.log_tail()}"
                )
            if (
                http_status(self.base_url + self.ready_path) == 200
                and len(self.worker_pids()) >= self.workers
            ):
                return time.monotonic() - started
            time.sleep(0.2)
        raise RuntimeError(
            f"gunicorn on port {self.port} not ready in {timeout}s:\n{self.log_tail()}"
        )

    def worker_pids(self) -> list[int]:
        return _children(self.process.pid) if self.process else []

    def pids(self) -> list[int]:
        """The master and its workers."""
        return [self.process.pid, *self.worker_pids()] if self.process else []

    def kill_worker(self) -> int:
        """``kill -9`` one worker; the master forks a replacement. Returns the killed PID."""
        pids = self.worker_pids()
        if not pids:
            raise RuntimeError("no worker to kill")
        os.kill(pids[0], signal.SIGKILL)
        return pids[0]

    def stop(self) -> None:
        try:
            self._stop_process()
        finally:
            # What a run needs from the log it takes before stopping (ScenarioResult).
            if self.log_path is not None:
                self.log_path.unlink(missing_ok=True)

    def _stop_process(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            # The whole session: a stuck worker must not outlive the run.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def log_tail(self, lines: int = 60) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        text = self.log_path.read_text(errors="replace").splitlines()
        return "\n".join(text[-lines:])

    def log_text(self) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")

    def __enter__(self) -> GunicornInstance:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
