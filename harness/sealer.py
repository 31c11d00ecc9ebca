"""The ledger sealer beside the load: ``casino seal --every N`` in processes of its own, as a
scheduler on one or more hosts would run it (two at once must not trip over each other).

Each keeps its record of the last checkpoint it signed (``CASINO_SEALER_STATE``, required in
production): the sealers of one run share one record file, as sealers on one host may."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from harness.server import HARNESS_SIGNING_KEY, REPO_ROOT


def casino_command() -> list[str]:
    executable = Path(sys.executable).with_name("casino")
    if executable.exists():
        return [str(executable)]
    return [sys.executable, "-c", "from casino.cli import main; main()"]


def sealer_environment(database_url: str, state: str | Path) -> dict[str, str]:
    """A sealer's environment: production's, with the harness's key and ``state`` for its
    record."""
    return dict(
        os.environ,
        DATABASE_URL=database_url,
        CASINO_ENV="production",
        CASINO_SIGNING_KEY=HARNESS_SIGNING_KEY,
        CASINO_SEALER_STATE=str(state),
        PYTHONUNBUFFERED="1",
    )


def new_record() -> Path:
    """A record file of its own (none yet) in a fresh directory."""
    return Path(tempfile.mkdtemp(prefix="casino-sealer-state-")) / "sealer-state.json"


@dataclass
class SealerProcess:
    database_url: str
    every: float = 1.0
    #: Its record (CASINO_SEALER_STATE); sealers given the same one share it.
    state: Path = field(default_factory=new_record)
    process: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None

    def start(self) -> None:
        handle, name = tempfile.mkstemp(prefix="casino-sealer-", suffix=".log")
        os.close(handle)
        self.log_path = Path(name)
        env = sealer_environment(self.database_url, self.state)
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


def seal_once(
    database_url: str,
    state: Path | None = None,
    timeout: float = 120.0,
    *,
    init: bool | None = None,
) -> str:
    """``casino seal`` once, with the harness's key; its output. Without ``state`` (or with
    ``init``), as a new sealer host: the ledger's checkpoints trusted on first use
    (``--init``, after checking their chain and signatures), in a record of its own."""
    first_use = state is None if init is None else init
    done = subprocess.run(
        [*casino_command(), "seal", *(["--init"] if first_use else [])],
        cwd=REPO_ROOT,
        env=sealer_environment(database_url, new_record() if state is None else state),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=True,
    )
    return done.stdout
