"""SQL of free-play simulation jobs: the deployment-wide slots, results, purging.

A ``running`` row holds a slot. Taking one is a count and an insert that must not interleave
with another worker's (two requests would both see a free slot): PostgreSQL serialises them
with a transaction-level advisory lock, SQLite's transactions already hold the database's
write lock from their start (``BEGIN IMMEDIATE``). A row still ``running`` past
``abandoned_after`` belonged to a worker that died: it holds no slot and reads as failed.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from sqlalchemy import delete, func, select, text, update

from casino.store.free_play_models import FreePlaySimulation
from casino.store.free_play_records import SIMULATION_DONE, SIMULATION_FAILED, SIMULATION_RUNNING
from casino.store.repository import Repository

# Any fixed 64-bit number names the lock; this one spells "fpsim".
_SLOTS_LOCK = 0x6670_7369_6D
Refusal = Literal["client", "everyone"]


class SimulationJobStore(Repository):
    """Free-play simulation jobs and the deployment's slots for them."""

    def take_slot(
        self,
        *,
        job_id: str,
        client_hash: str,
        request: dict[str, Any],
        now: datetime,
        live_since: datetime,
        slots: int,
        per_client: int,
    ) -> Refusal | None:
        """Insert a running job when a slot is free: None, or who is using them all (this
        client, or everyone). Rows older than ``live_since`` hold no slot."""
        session = self.session
        if session.get_bind().dialect.name == "postgresql":
            session.execute(text("SELECT pg_advisory_xact_lock(:lock)"), {"lock": _SLOTS_LOCK})
        live = (
            select(FreePlaySimulation.client_hash, func.count())
            .where(
                FreePlaySimulation.status == SIMULATION_RUNNING,
                FreePlaySimulation.created_at >= live_since,
            )
            .group_by(FreePlaySimulation.client_hash)
        )
        running = {str(client): int(count) for client, count in session.execute(live)}
        if running.get(client_hash, 0) >= per_client:
            return "client"
        if sum(running.values()) >= slots:
            return "everyone"
        session.add(
            FreePlaySimulation(
                id=job_id,
                status=SIMULATION_RUNNING,
                client_hash=client_hash,
                request=request,
                created_at=now,
            )
        )
        session.flush()
        return None

    def finish(
        self,
        job_id: str,
        *,
        now: datetime,
        result: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> None:
        """Record how a running job ended (its result, or why it failed); frees its slot."""
        session = self.session
        status = SIMULATION_DONE if error is None else SIMULATION_FAILED
        session.execute(
            update(FreePlaySimulation)
            .where(FreePlaySimulation.id == job_id, FreePlaySimulation.status == SIMULATION_RUNNING)
            .values(status=status, result=result, error=error and error[:200], finished_at=now)
        )

    def find(self, job_id: str) -> FreePlaySimulation | None:
        session = self.session
        return session.get(FreePlaySimulation, job_id)

    def purge(self, older_than: datetime) -> int:
        session = self.session
        result = session.execute(
            delete(FreePlaySimulation).where(FreePlaySimulation.created_at < older_than)
        )
        return int(result.rowcount or 0)  # type: ignore[attr-defined]
