"""Free-play simulations as jobs: a slot taken when one is free, a result recorded, a view.

A simulation is CPU work for up to its time bound: it never runs in a request worker. A job
takes one of the deployment's ``slots`` (a client at most ``per_client`` of them) and is run
by a worker process's simulation pool (``casino.api.simulation_pool``); whoever asks
afterwards reads its status and, once done, its result. The caller commits.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from casino.service.errors import NotFound, ServiceError
from casino.service.free_play import SimulationLimits, check_simulation
from casino.store.free_play_records import SIMULATION_FAILED, SIMULATION_RUNNING
from casino.store.types import utcnow
from casino.store.uow import UnitOfWork

#: A running job older than its possible run time plus this is taken for abandoned.
GRACE = timedelta(seconds=30)


class Busy(ServiceError):
    """Every slot is taken: by this client's own simulations (``client``) or everyone's."""

    code = "simulations_busy"

    def __init__(self, detail: str, *, by: str, retry_after: int) -> None:
        super().__init__(detail)
        self.by = by
        self.retry_after = retry_after


@dataclass(frozen=True)
class Slots:
    """How many simulations run at once: in the whole deployment, and per client."""

    total: int = 2
    per_client: int = 1


def client_key(address: str) -> str:
    """What a job remembers of its client: enough to count its jobs, not the address."""
    return hashlib.sha256(f"free-play-simulation:{address}".encode()).hexdigest()


def _abandoned_after(limits: SimulationLimits, slots: Slots) -> timedelta:
    # A job may wait behind the others of its worker's pool before it starts.
    return timedelta(seconds=limits.max_seconds * max(1, slots.total)) + GRACE


def start(
    uow: UnitOfWork,
    variant: str,
    options: Mapping[str, Any] | None,
    games: int,
    seed: str,
    *,
    client: str,
    limits: SimulationLimits,
    slots: Slots,
) -> dict[str, Any]:
    """A new running job for this simulation, or ``Busy`` when no slot is free for the
    client. Refuses a bad request first (``Invalid``, the engine's ``InvalidRules``)."""
    check_simulation(variant, options, games)
    now = utcnow()
    job_id = str(uuid.uuid4())
    request = {
        "variant": variant,
        "options": dict(options or {}),
        "games": games,
        "seed": seed,
        "limits": {"max_battles": limits.max_battles, "max_seconds": limits.max_seconds},
    }
    refused = uow.simulation_jobs.take_slot(
        job_id=job_id,
        client_hash=client_key(client),
        request=request,
        now=now,
        live_since=now - _abandoned_after(limits, slots),
        slots=slots.total,
        per_client=slots.per_client,
    )
    retry_after = max(1, int(limits.max_seconds))
    if refused == "client":
        raise Busy(
            f"This address runs {slots.per_client} simulation(s) at a time; poll the one "
            "running, or retry once it is done.",
            by="client",
            retry_after=retry_after,
        )
    if refused is not None:
        raise Busy(
            "Every simulation slot is in use; retry shortly.",
            by="everyone",
            retry_after=retry_after,
        )
    return {
        "id": job_id,
        "status": SIMULATION_RUNNING,
        "created_at": now,
        "finished_at": None,
        **request,
        "result": None,
        "error": None,
    }


def finish(
    uow: UnitOfWork,
    job_id: str,
    result: dict[str, Any] | None = None,
    error: str | None = None,
) -> None:
    uow.simulation_jobs.finish(job_id, now=utcnow(), result=result, error=error)


def view(uow: UnitOfWork, job_id: str, limits: SimulationLimits, slots: Slots) -> dict[str, Any]:
    """A job as its poller sees it: status (running, done, failed), the request, and the
    result once done."""
    job = uow.simulation_jobs.find(job_id)
    if job is None:
        raise NotFound("no such simulation", code="simulation_not_found")
    status, error = job.status, job.error
    if status == SIMULATION_RUNNING and job.created_at < utcnow() - _abandoned_after(limits, slots):
        status, error = SIMULATION_FAILED, "abandoned: the worker running it stopped"
    return {
        "id": job.id,
        "status": status,
        "created_at": job.created_at,
        "finished_at": job.finished_at,
        **job.request,
        "result": job.result,
        "error": error,
    }
