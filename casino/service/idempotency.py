"""Idempotency keys: a retried money-moving request returns its first response.

``begin`` and ``complete`` run inside the request's own database transaction, so the stored
response commits together with the money movement it describes, or not at all. Concurrent
requests with one key: on PostgreSQL the second is refused at once through a transaction-level
advisory lock (``request_in_progress``); on SQLite writers are serialised by the database, so
the second waits and then sees the stored response.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from typing import Any

from sqlalchemy import delete, select, text
from sqlalchemy.exc import IntegrityError

from casino.db.models import IdempotencyRecord, utcnow
from casino.service.errors import Conflict, Invalid
from casino.service.uow import UnitOfWork
from casino.service.views import StoredResponse

RETENTION = timedelta(hours=24)
MAX_KEY_LENGTH = 255


def _lock_id(caller: str, key: str) -> int:
    digest = hashlib.sha256(f"{caller}\x00{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _check(caller: str, key: str) -> None:
    if not isinstance(key, str) or not 1 <= len(key) <= MAX_KEY_LENGTH:
        raise Invalid(
            f"Idempotency-Key must be 1 to {MAX_KEY_LENGTH} characters",
            code="invalid_idempotency_key",
        )
    if not isinstance(caller, str) or not caller:
        raise ValueError("caller is required")


def begin(uow: UnitOfWork, caller: str, key: str, fingerprint: str) -> StoredResponse | None:
    """None: go ahead (then call ``complete`` before committing). A ``StoredResponse``: the
    request was already served; answer with it and change nothing."""
    _check(caller, key)
    session = uow.session
    if uow.dialect == "postgresql":
        acquired = session.execute(
            text("SELECT pg_try_advisory_xact_lock(:lock_id)"), {"lock_id": _lock_id(caller, key)}
        ).scalar_one()
        if not acquired:
            raise Conflict(
                "a request with this Idempotency-Key is still being processed",
                code="request_in_progress",
            )
    record = session.get(IdempotencyRecord, (caller, key))
    if record is None:
        return None
    if record.fingerprint != fingerprint:
        raise Invalid(
            "this Idempotency-Key was used with a different request",
            code="idempotency_key_reused",
        )
    return StoredResponse(status=int(record.status), body=dict(record.body))


def complete(
    uow: UnitOfWork, caller: str, key: str, fingerprint: str, status: int, body: dict[str, Any]
) -> None:
    """Store a successful response under the key, in the caller's transaction."""
    _check(caller, key)
    session = uow.session
    # No savepoint: the advisory lock (PostgreSQL) or the single writer (SQLite) means a
    # duplicate cannot appear here in practice, and if it did the request is refused anyway.
    try:
        session.add(
            IdempotencyRecord(
                caller=caller,
                key=key,
                fingerprint=fingerprint,
                status=status,
                body=body,
                created_at=utcnow(),
            )
        )
        session.flush()
    except IntegrityError:
        raise Conflict(
            "a request with this Idempotency-Key is still being processed",
            code="request_in_progress",
        ) from None


def purge_idempotency(uow: UnitOfWork, older_than: timedelta = RETENTION) -> int:
    """Forget records older than ``older_than`` (never less than the 24 h retention)."""
    cutoff = utcnow() - max(older_than, RETENTION)
    result = uow.session.execute(
        delete(IdempotencyRecord).where(IdempotencyRecord.created_at < cutoff)
    )
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


def lookup(uow: UnitOfWork, caller: str, key: str) -> StoredResponse | None:
    record = uow.session.execute(
        select(IdempotencyRecord).where(
            IdempotencyRecord.caller == caller, IdempotencyRecord.key == key
        )
    ).scalar_one_or_none()
    return None if record is None else StoredResponse(int(record.status), dict(record.body))
