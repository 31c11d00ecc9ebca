"""Faults injected during a load run: ``kill -9`` of gunicorn workers, a PostgreSQL restart.

The schedule runs on the caller's thread while the client threads play; each fault is
recorded with when it happened and how long the service took to be whole again (workers
respawned by the master, every instance's ``/ready`` answering 200) without any restart of
the app.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from harness import pg
from harness.load import http_ready
from harness.server import GunicornInstance


@dataclass
class FaultEvent:
    kind: str
    at: float  # seconds after the load started
    detail: str
    recovered_after: float | None = None


@dataclass
class FaultPlan:
    """Fractions of the run's duration at which each fault fires."""

    instances: list[GunicornInstance]
    duration: float
    kill_worker_at: list[float] = field(default_factory=list)
    restart_postgres_at: float | None = None
    restart: Callable[[], float] = pg.restart_server
    events: list[FaultEvent] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def __call__(self, deadline: float) -> None:
        start = deadline - self.duration
        plan: list[tuple[float, str, int]] = [
            (f, "kill", i % len(self.instances)) for i, f in enumerate(self.kill_worker_at)
        ]
        if self.restart_postgres_at is not None:
            plan.append((self.restart_postgres_at, "restart", 0))
        for fraction, kind, index in sorted(plan):
            wait = start + fraction * self.duration - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            try:
                if kind == "kill":
                    self._kill(self.instances[index], time.monotonic() - start)
                else:
                    self._restart(time.monotonic() - start)
            except Exception as err:  # recorded: a fault that could not be injected fails the run
                self.errors.append(f"{kind}: {type(err).__name__}: {err}")

    def _kill(self, instance: GunicornInstance, at: float) -> None:
        before = instance.worker_pids()
        pid = instance.kill_worker()
        began = time.monotonic()
        event = FaultEvent("kill -9 worker", at, f"pid {pid} of port {instance.port}")
        self.events.append(event)
        while time.monotonic() - began < 60:
            now = instance.worker_pids()
            if pid not in now and len(now) >= len(before):
                event.recovered_after = time.monotonic() - began
                return
            time.sleep(0.1)
        self.errors.append(f"worker {pid} was not replaced within 60 s")

    def _restart(self, at: float) -> None:
        took = self.restart()
        event = FaultEvent("restart PostgreSQL", at, f"server back after {took:.1f}s")
        self.events.append(event)
        event.recovered_after = took + http_ready([i.base_url for i in self.instances], 60)

    @property
    def injected(self) -> int:
        return len(self.events)
