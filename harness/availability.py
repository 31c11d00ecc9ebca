"""What clients saw while the database switched: every answer on a timeline, the switches,
the unavailability window of each, and scheduled jobs run alongside.

The window of a switch runs from the first bet that failed after it began (its answer: a 503
or no answer at all) to the first bet answered 2xx among those *sent* after that failure: how
long a client retrying at once could not play. (A bet already in flight on a connection the
switch had not reached yet may still succeed just after the first failure; it says nothing
about whether play is back.) A switch nobody noticed has a window of 0. The span of a switch,
from its first to its last failed bet, shows how long failures went on, retries included.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from harness.http import Reply
from harness.load import Stats
from harness.sealer import new_record
from harness.server import HARNESS_SIGNING_KEY

REPO_ROOT = Path(__file__).resolve().parents[1]
#: Endpoints whose answers count as bets (a duplicate's or a retry's answer is one too).
BET_ENDPOINTS = frozenset({"bet", "decision"})


@dataclass(frozen=True)
class Answer:
    at: float  # time.monotonic() when the answer (or the error) came back
    sent: float
    endpoint: str
    status: int | None
    retry_after: bool

    @property
    def ok(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    @property
    def failed(self) -> bool:
        return self.status is None or self.status >= 500


@dataclass
class TimedStats(Stats):
    """``Stats`` that also keeps each answer's time and status, and checks every 503's
    ``Retry-After``."""

    answers: list[Answer] = field(default_factory=list)

    def record(self, endpoint: str, reply: Reply) -> None:
        super().record(endpoint, reply)
        now = time.monotonic()
        answer = Answer(
            now,
            now - reply.latency,
            endpoint,
            reply.status,
            "retry-after" in reply.headers,
        )
        with self.lock:
            self.answers.append(answer)
            if reply.status == 503 and not answer.retry_after:
                self.violations.append(f"{endpoint}: 503 without Retry-After")

    def bet_answers(self) -> list[Answer]:
        with self.lock:
            return [a for a in self.answers if a.endpoint in BET_ENDPOINTS]


@dataclass
class Switch:
    kind: str
    began: float  # monotonic time the fault was injected
    primary_before: str
    detail: str = ""
    primary_after: str = ""
    settled: float | None = None  # formation whole again (primary + synchronous standby)
    ended: float | None = None  # formation whole and a bet answered 2xx since
    failed_bets: int = 0
    first_failure: float | None = None
    last_failure: float | None = None
    first_success_after: float | None = None

    @property
    def window(self) -> float:
        """First failed bet to the first 2xx bet after it (0 when no bet failed)."""
        if self.first_failure is None:
            return 0.0
        if self.first_success_after is None:
            return float("inf")
        return self.first_success_after - self.first_failure

    @property
    def span(self) -> float:
        """First to last failed bet (0 when none failed)."""
        if self.first_failure is None or self.last_failure is None:
            return 0.0
        return self.last_failure - self.first_failure

    @property
    def to_first_success(self) -> float | None:
        """Fault injected to the first 2xx bet after the first failure (or after the fault)."""
        if self.first_success_after is None:
            return None
        return self.first_success_after - self.began


def measure(switches: list[Switch], bets: list[Answer], end: float) -> None:
    """Fill in each switch's failures and window from the answers' timeline."""
    ordered = sorted(bets, key=lambda a: a.at)
    for index, switch in enumerate(switches):
        until = switches[index + 1].began if index + 1 < len(switches) else end
        mine = [a for a in ordered if switch.began <= a.at < until]
        failed = [a for a in mine if a.failed]
        switch.failed_bets = len(failed)
        if failed:
            switch.first_failure = failed[0].at
            switch.last_failure = failed[-1].at
            after = switch.first_failure
        else:
            after = switch.began
        success = next((a for a in mine if a.sent > after and a.ok), None)
        switch.first_success_after = success.at if success else None


def window_summary(switches: list[Switch]) -> tuple[float, float]:
    """Median (p50) and max of the unavailability windows, in seconds."""
    windows = [s.window for s in switches]
    if not windows:
        return float("nan"), float("nan")
    return statistics.median(windows), max(windows)


def describe(switches: list[Switch]) -> list[str]:
    lines = []
    for s in switches:
        settled = f"{s.settled - s.began:.1f}s" if s.settled is not None else "never"
        first = s.to_first_success
        lines.append(
            f"  {s.kind}: primary {s.primary_before} -> {s.primary_after or '?'} ({s.detail}); "
            f"{s.failed_bets} bet answers failed over {s.span:.2f}s, window {s.window:.2f}s, "
            "first 2xx bet after "
            f"{'never' if first is None else f'{first:.2f}s'}, formation whole after {settled}"
        )
    return lines


# --- scheduled jobs ---


@dataclass(frozen=True)
class JobRun:
    started: float
    finished: float
    returncode: int
    output: str


@dataclass
class ScheduledJob:
    """A ``casino`` command an operator schedules (cron, a systemd timer) next to the app.

    ``check`` (optional) looks at the database and the runs afterwards and returns what is
    wrong; every job must also have succeeded at least once after each switch.
    """

    name: str
    args: list[str]
    every: float = 5.0
    check: Callable[[str, list[JobRun], list[Switch]], list[str]] | None = None
    runs: list[JobRun] = field(default_factory=list)

    def succeeded_since(self, moment: float) -> bool:
        return any(r.started >= moment and r.returncode == 0 for r in self.runs)


def casino_command() -> list[str]:
    executable = Path(sys.executable).with_name("casino")
    return [str(executable)] if executable.exists() else [sys.executable, "-m", "casino.cli"]


class JobRunner:
    """Runs each job every ``job.every`` seconds on its own thread until stopped."""

    def __init__(self, jobs: list[ScheduledJob], database_url: str) -> None:
        self.jobs = jobs
        self.env = dict(
            os.environ,
            DATABASE_URL=database_url,
            CASINO_ENV="production",
            CASINO_SIGNING_KEY=HARNESS_SIGNING_KEY,
            # The sealer's record, kept across its runs as on the host cron runs it on.
            CASINO_SEALER_STATE=str(new_record()),
        )
        self._stop = threading.Event()
        self._wake = {job.name: threading.Event() for job in jobs}
        self._threads = [
            threading.Thread(target=self._loop, args=(job,), name=f"job-{job.name}", daemon=True)
            for job in jobs
        ]

    def _loop(self, job: ScheduledJob) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                done = subprocess.run(
                    [*casino_command(), *job.args],
                    cwd=REPO_ROOT,
                    env=self.env,
                    capture_output=True,
                    text=True,
                    timeout=60,
                )
                code, output = done.returncode, (done.stdout + done.stderr)[-2000:]
            except subprocess.TimeoutExpired:
                code, output = -1, "timed out after 60 s"
            job.runs.append(JobRun(started, time.monotonic(), code, output))
            wake = self._wake[job.name]
            wake.wait(max(0.0, job.every - (time.monotonic() - started)))
            wake.clear()

    def kick(self) -> None:
        """Run every job now rather than at its next turn."""
        for wake in self._wake.values():
            wake.set()

    def wait_success_after(self, moment: float, timeout: float = 60.0) -> bool:
        """Every job has succeeded in a run started at or after ``moment``."""
        self.kick()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(job.succeeded_since(moment) for job in self.jobs):
                return True
            time.sleep(0.2)
        return False

    def start(self) -> None:
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.kick()
        for thread in self._threads:
            thread.join(timeout=90)

    def problems(self, database_url: str, switches: list[Switch]) -> list[str]:
        out = []
        for job in self.jobs:
            for switch in switches:
                after = switch.settled if switch.settled is not None else switch.began
                if not job.succeeded_since(after):
                    last = job.runs[-1].output if job.runs else "(never ran)"
                    out.append(f"job {job.name} did not succeed after {switch.kind}: {last}")
            if job.check is not None:
                out += job.check(database_url, job.runs, switches)
        return out
