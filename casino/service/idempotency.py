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
from typing import Any, cast

from sqlalchemy import Row, Table, delete, insert, select, text
from sqlalchemy.exc import IntegrityError

from casino.db import direct
from casino.db.models import IdempotencyRecord, utcnow
from casino.service.errors import Conflict, Invalid
from casino.service.uow import UnitOfWork
from casino.service.views import StoredResponse

RETENTION = timedelta(hours=24)
MAX_KEY_LENGTH = 255
_RECORDS = cast(Table, IdempotencyRecord.__table__)

# One round trip on PostgreSQL: the lock and the lookup. Should the first request commit
# between this statement's snapshot and the lock, the lookup misses its record; the request
# then runs again, but its record insert hits the primary key and it is refused
# (request_in_progress) with nothing changed, so a key still charges only once.
_LOCK_AND_LOOKUP = text(
    "SELECT pg_try_advisory_xact_lock(:lock_id) AS acquired, r.fingerprint, r.status, r.body "
    "FROM (SELECT 1) AS one "
    "LEFT JOIN idempotency_records AS r ON r.caller = :caller AND r.key = :key"
)


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


def _in_progress() -> Conflict:
    return Conflict(
        "a request with this Idempotency-Key is still being processed",
        code="request_in_progress",
    )


def begin(uow: UnitOfWork, caller: str, key: str, fingerprint: str) -> StoredResponse | None:
    """None: go ahead (then call ``complete`` before committing). A ``StoredResponse``: the
    request was already served; answer with it and change nothing."""
    _check(caller, key)
    if uow.dialect == "postgresql":
        row = uow.session.execute(
            _LOCK_AND_LOOKUP, {"lock_id": _lock_id(caller, key), "caller": caller, "key": key}
        ).one()
        if not row.acquired:
            raise _in_progress()
        found = None if row.fingerprint is None else row
    else:
        found = uow.session.execute(
            select(_RECORDS.c.fingerprint, _RECORDS.c.status, _RECORDS.c.body).where(
                _RECORDS.c.caller == caller, _RECORDS.c.key == key
            )
        ).one_or_none()
    return _stored(found, fingerprint)


def _stored(row: Row[Any] | None, fingerprint: str) -> StoredResponse | None:
    if row is None:
        return None
    if row.fingerprint != fingerprint:
        raise Invalid(
            "this Idempotency-Key was used with a different request",
            code="idempotency_key_reused",
        )
    return StoredResponse(status=int(row.status), body=dict(row.body))


def complete(
    uow: UnitOfWork, caller: str, key: str, fingerprint: str, status: int, body: dict[str, Any]
) -> None:
    """Store a successful response under the key, in the caller's transaction.

    On PostgreSQL the INSERT is sent with the commit (one round trip); should a request with
    the same key have committed meanwhile, the commit fails on the primary key and the caller
    finds that request's record (``begin``) after the rollback.
    """
    _check(caller, key)
    values = {
        "caller": caller,
        "key": key,
        "fingerprint": fingerprint,
        "status": status,
        "body": body,
        "created_at": utcnow(),
    }
    if uow.dialect == "postgresql":
        direct.defer(uow.session, direct.insert(_RECORDS, values))
        return
    try:
        uow.session.execute(insert(_RECORDS).values(values))
    except IntegrityError:
        raise _in_progress() from None


def purge_idempotency(uow: UnitOfWork, older_than: timedelta = RETENTION) -> int:
    """Forget records older than ``older_than`` (never less than the 24 h retention)."""
    cutoff = utcnow() - max(older_than, RETENTION)
    result = uow.session.execute(delete(_RECORDS).where(_RECORDS.c.created_at < cutoff))
    return int(result.rowcount or 0)  # type: ignore[attr-defined]
