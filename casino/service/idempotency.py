"""Idempotency keys: a retried money-moving request returns its first response.

``begin`` and ``complete`` run inside the request's own database transaction, so the stored
response commits together with the money movement it describes, or not at all. Two requests
with one key at once: the second is refused (``request_in_progress``) or, where the database
serialises them, waits and replays the first (casino.store.idempotency).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from casino.service.errors import Conflict, Invalid
from casino.service.views import StoredResponse
from casino.store.types import utcnow
from casino.store.uow import UnitOfWork

RETENTION = timedelta(hours=24)
MAX_KEY_LENGTH = 255


def _check(caller: str, key: str) -> None:
    if not isinstance(key, str) or not 1 <= len(key) <= MAX_KEY_LENGTH:
        raise Invalid(
            f"Idempotency-Key must be 1 to {MAX_KEY_LENGTH} characters",
            code="invalid_idempotency_key",
        )
    if not isinstance(caller, str) or not caller:
        raise ValueError("caller is required")


def _in_progress() -> Conflict:
    return Conflict(
        "a request with this Idempotency-Key is still being processed",
        code="request_in_progress",
    )


def begin(uow: UnitOfWork, caller: str, key: str, fingerprint: str) -> StoredResponse | None:
    """None: go ahead (then call ``complete`` before committing). A ``StoredResponse``: the
    request was already served; answer with it and change nothing."""
    _check(caller, key)
    lookup = uow.idempotency.lock_and_lookup(caller, key)
    if not lookup.acquired:
        raise _in_progress()
    stored = lookup.stored
    if stored is None:
        return None
    if stored.fingerprint != fingerprint:
        raise Invalid(
            "this Idempotency-Key was used with a different request",
            code="idempotency_key_reused",
        )
    return StoredResponse(status=stored.status, body=stored.body)


def complete(
    uow: UnitOfWork,
    caller: str,
    key: str,
    fingerprint: str,
    status: int,
    body: dict[str, Any],
    encoded: str | None = None,
) -> None:
    """Store a successful response under the key, in the caller's transaction (``encoded``:
    ``body`` already serialised as JSON, stored as it is).

    Should a request with the same key have committed meanwhile, the commit fails on the
    primary key and the caller finds that request's record (``begin``) after the rollback.
    """
    _check(caller, key)
    uow.idempotency.add(
        caller=caller,
        key=key,
        fingerprint=fingerprint,
        status=status,
        body=body,
        created_at=utcnow(),
        encoded=encoded,
    )


def purge_idempotency(
    uow: UnitOfWork, older_than: timedelta = RETENTION, limit: int | None = None
) -> int:
    """Forget records older than ``older_than`` (never less than the 24 h retention), at
    most ``limit`` of them (the oldest): a bounded delete the caller commits, then repeats."""
    return uow.idempotency.purge(utcnow() - max(older_than, RETENTION), limit)
