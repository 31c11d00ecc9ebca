"""Idempotency keys: a retried money-moving request returns its first response."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from casino.service.uow import UnitOfWork
from casino.service.views import StoredResponse

RETENTION = timedelta(hours=24)


def begin(uow: UnitOfWork, caller: str, key: str, fingerprint: str) -> StoredResponse | None:
    raise NotImplementedError


def complete(
    uow: UnitOfWork, caller: str, key: str, fingerprint: str, status: int, body: dict[str, Any]
) -> None:
    raise NotImplementedError


def purge_idempotency(uow: UnitOfWork, older_than: timedelta = RETENTION) -> int:
    raise NotImplementedError
