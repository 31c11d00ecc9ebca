"""Each worker process's simulation pool: free-play simulations run in separate processes.

A simulation is pure CPU for up to its time bound. Run in a request thread it held the
worker (sync workers) or starved its other threads of the interpreter lock (threaded ones):
``/health`` answered in 9.7 s while two ran. Here a small pool of processes, started with
``spawn`` on first use (nothing of the worker is inherited: no database connection, no
lock) and at a lower CPU priority, does that work; the request thread only waits on it, a
short while. How many simulations run at once in the whole deployment is bounded by the
job slots (``casino.service.simulations``), not here.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

log = logging.getLogger(__name__)
#: Added to the pool processes' niceness: request workers win the CPU over simulations.
NICENESS = 10


class SimulationPool:
    def __init__(self, processes: int = 1) -> None:
        self.processes = max(1, processes)
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None
        self._pid: int | None = None

    def _fresh(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.processes,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=os.nice,
            initargs=(NICENESS,),
        )

    def warm_up(self) -> None:
        """Start the pool's processes now (a worker calls this once it is up): starting an
        interpreter costs CPU, better spent before the first simulation than during it."""
        for _ in range(self.processes):
            self.submit(os.getpid)

    def submit(self, function: Callable[..., Any], *args: Any) -> Future[Any]:
        with self._lock:
            # A pool belongs to the process that made it (gunicorn forks workers).
            if self._executor is None or self._pid != os.getpid():
                self._executor, self._pid = self._fresh(), os.getpid()
            try:
                return self._executor.submit(function, *args)
            except BrokenProcessPool:
                log.warning("simulation pool broken (a process died); starting a new one")
                self._executor.shutdown(wait=False, cancel_futures=True)
                self._executor = self._fresh()
                return self._executor.submit(function, *args)

    def shutdown(self) -> None:
        with self._lock:
            if self._executor is not None and self._pid == os.getpid():
                self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
