"""The ledger sealer beside the load: ``casino seal --every N`` in processes of its own, as a
scheduler on one or more hosts would run it (two at once must not trip over each other)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from harness.server import HARNESS_SIGNING_KEY, REPO_ROOT


def casino_command() -> list[str]:
    executable = Path(sys.executable).with_name("casino")
    if executable.exists():
        return [str(executable)]
    return [sys.executable, "-c", "from casino.cli import main; main()"]


def sealer_environment(database_url: str) -> dict[str, str]:
    return dict(
        os.environ,
        DATABASE_URL=database_url,
        CASINO_ENV="production",
        CASINO_SIGNING_KEY=HARNESS_SIGNING_KEY,
        PYTHONUNBUFFERED="1",
    )


@dataclass
class SealerProcess:
    database_url: str
    every: float = 1.0
    process: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None

    def start(self) -> None:
        handle, name = tempfile.mkstemp(prefix="casino-sealer-", suffix=".log")
        os.close(handle)
        self.log_path = Path(name)
        env = sealer_environment(self.database_url)
        with self.log_path.open("wb") as log:
            self.process = subprocess.Popen(
                [*casino_command(), "seal", "--every", str(self.every)],
                cwd=REPO_ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def stop(self) -> None:
        process = self.process
        if process is None or process.poll() is not None:
            return
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)

    def checkpoints_made(self) -> int:
        """Checkpoints this sealer reported making (its log says one line for each)."""
        if self.log_path is None or not self.log_path.exists():
            return 0
        return sum(
            1
            for line in self.log_path.read_text(errors="replace").splitlines()
            if line.startswith("checkpoint ")
        )

    def log_tail(self, lines: int = 20) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None


def seal_once(database_url: str, timeout: float = 120.0) -> str:
    """``casino seal`` once, with the harness's key; its output."""
    done = subprocess.run(
        [*casino_command(), "seal"],
        cwd=REPO_ROOT,
        env=sealer_environment(database_url),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    return done.stdout
