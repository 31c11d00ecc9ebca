"""CPU time used by groups of processes over an interval, from /proc (Linux).

The bench shares two cores between the client, gunicorn and PostgreSQL; CPU milliseconds per
settled bet, split by who spent them, say where the time goes and what bounds throughput.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

_TICK = os.sysconf("SC_CLK_TCK")


def process_seconds(pid: int) -> float:
    """User + system CPU seconds of one process (0 once it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def pids_running(name: str) -> list[int]:
    """PIDs whose command line mentions ``name`` (e.g. every PostgreSQL server process)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if name.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@dataclass
class CpuMeter:
    """Named groups of PIDs, each found again at the end (workers, backends come and go)."""

    groups: dict[str, Callable[[], Iterable[int]]]
    _start: dict[str, dict[int, float]] = field(default_factory=dict)

    def start(self) -> None:
        self._start = {
            name: {pid: process_seconds(pid) for pid in find()}
            for name, find in self.groups.items()
        }

    def stop(self) -> dict[str, float]:
        """CPU seconds per group since ``start`` (processes that exited meanwhile count 0)."""
        used = {}
        for name, find in self.groups.items():
            before = self._start.get(name, {})
            pids = set(before) | set(find())
            used[name] = sum(max(0.0, process_seconds(p) - before.get(p, 0.0)) for p in pids)
        return used
