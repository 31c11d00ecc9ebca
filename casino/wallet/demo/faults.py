"""Injected faults of the reference wallet: ``timeout=0.05,error=0.05,drop=0.05``.

- ``timeout``: sleep past the caller's timeout, then apply the call and answer (too late).
- ``error``: HTTP 500 without applying anything.
- ``drop``: apply the call, then close the connection without an answer.

The draws use ``random.Random``: they pick which requests fail in a test wallet, they deal
no cards and move no real money, and a seed makes a run repeatable.
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from dataclasses import dataclass

TIMEOUT = "timeout"
ERROR = "error"
DROP = "drop"
KINDS = (TIMEOUT, ERROR, DROP)


@dataclass(frozen=True)
class FaultPlan:
    timeout: float = 0.0
    error: float = 0.0
    drop: float = 0.0

    @classmethod
    def parse(cls, text: str | None) -> FaultPlan:
        """``kind=probability`` pairs, comma-separated; ValueError on anything else."""
        chances: dict[str, float] = {}
        for item in (part.strip() for part in (text or "").split(",")):
            if not item:
                continue
            kind, sep, value = item.partition("=")
            kind = kind.strip()
            if not sep or kind not in KINDS:
                raise ValueError(f"not a fault: {item!r} (use {', '.join(KINDS)}=probability)")
            try:
                chance = float(value)
            except ValueError:
                raise ValueError(f"not a probability: {value!r}") from None
            if not 0.0 <= chance <= 1.0:
                raise ValueError(f"a probability is from 0 to 1: {item!r}")
            chances[kind] = chance
        plan = cls(**chances)
        if plan.timeout + plan.error + plan.drop > 1.0:
            raise ValueError("the faults' probabilities add up to more than 1")
        return plan

    def __str__(self) -> str:
        return ",".join(f"{kind}={getattr(self, kind)}" for kind in KINDS if getattr(self, kind))


class Faults:
    """Draws at most one fault per request, thread-safely."""

    def __init__(self, plan: FaultPlan, delay: float = 3.5, seed: int | None = None) -> None:
        self.plan = plan
        self.delay = delay
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        #: How many of each fault were drawn so far.
        self.counts: Counter[str] = Counter()

    def draw(self) -> str | None:
        if not (self.plan.timeout or self.plan.error or self.plan.drop):
            return None
        with self._lock:
            roll = self._random.random()
            for kind in KINDS:
                chance: float = getattr(self.plan, kind)
                if roll < chance:
                    self.counts[kind] += 1
                    return kind
                roll -= chance
        return None
