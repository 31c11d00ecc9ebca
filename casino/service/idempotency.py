"""Idempotency keys: a retried money-moving request returns its first response.

``begin`` and ``complete`` run inside the request's own database transaction, so the stored
response commits together with the money movement it describes, or not at all. Concurrent
requests with one key: on PostgreSQL the second is refused at once through a transaction-level
advisory lock (``request_in_progress``); on SQLite writers are serialised by the database, so
the second waits and then sees the stored response.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, cast

from sqlalchemy import Table, delete, event, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from casino.service.errors import Conflict, Invalid
from casino.service.uow import UnitOfWork
from casino.service.views import StoredResponse
from casino.store import direct
from casino.store.models import IdempotencyRecord, utcnow

RETENTION = timedelta(hours=24)
MAX_KEY_LENGTH = 255
_RECORDS = cast(Table, IdempotencyRecord.__table__)

# One round trip on PostgreSQL: the lock and the lookup. Should the first request commit
# between this statement's snapshot and the lock, the lookup misses its record; the request
# then runs again, but its record insert hits the primary key at commit and the request is
# answered with the first one's record instead, so a key still charges only once.
# The lock id is a 64-bit hash of caller and key, computed by the database wherever the lock
# is taken (also in ``find_player_and_begin``), so every path agrees on it.
_LOCK_ID = "hashtextextended({caller} || chr(31) || %(key)s, 0)"
_LOCK_AND_LOOKUP = (
    "SELECT pg_try_advisory_xact_lock(" + _LOCK_ID.format(caller="%(caller)s") + "), "
    "r.fingerprint, r.status, r.body "
    "FROM (SELECT 1) AS one "
    "LEFT JOIN idempotency_records AS r ON r.caller = %(caller)s AND r.key = %(key)s"
)
# Authentication of a player and the above for its key, in the request's first round trip.
# The record's caller comes from a scalar subquery, not from the joined row: joined, the
# planner could match the key alone and filter on the caller afterwards, and with statistics
# from a near-empty table it chose a sequential scan of every record, once per bet, for as
# long as the cached plan lived (seen when autovacuum is off). As a constant, both primary
# key columns are the index condition whatever the statistics say.
_PLAYER_AND_KEY = (
    "SELECT p.id, pg_try_advisory_xact_lock("
    + _LOCK_ID.format(caller="%(prefix)s || p.id")
    + "), r.fingerprint, r.status, r.body "
    "FROM players AS p "
    "LEFT JOIN idempotency_records AS r ON r.caller = %(prefix)s || "
    "(SELECT q.id FROM players AS q WHERE q.token_hash = %(digest)s) AND r.key = %(key)s "
    "WHERE p.token_hash = %(digest)s"
)
# What the first round trip found for (caller, key), for ``begin``; this transaction only.
_PREFETCHED = "casino.idempotency.prefetched"


@dataclass(frozen=True)
class _Lookup:
    caller: str
    key: str
    acquired: bool
    row: Sequence[Any] | None  # fingerprint, status, body


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
        lookup = uow.session.info.pop(_PREFETCHED, None)
        if not (isinstance(lookup, _Lookup) and (lookup.caller, lookup.key) == (caller, key)):
            ((acquired, *found),) = direct.execute(
                uow.session, _LOCK_AND_LOOKUP, {"caller": caller, "key": key}
            )
            lookup = _Lookup(caller, key, bool(acquired), None if found[0] is None else found)
        if not lookup.acquired:
            raise _in_progress()
        return _stored(lookup.row, fingerprint)
    row = uow.session.execute(
        select(_RECORDS.c.fingerprint, _RECORDS.c.status, _RECORDS.c.body).where(
            _RECORDS.c.caller == caller, _RECORDS.c.key == key
        )
    ).one_or_none()
    return _stored(None if row is None else tuple(row), fingerprint)


def find_player_and_begin(uow: UnitOfWork, token_digest: str, prefix: str, key: str) -> str | None:
    """PostgreSQL: the id of the player whose token has this hash, and in the same round trip
    the lock and lookup ``begin`` will need for the caller ``prefix + id`` and ``key``."""
    rows = direct.execute(
        uow.session, _PLAYER_AND_KEY, {"digest": token_digest, "prefix": prefix, "key": key}
    )
    if not rows:
        return None
    player_id, acquired, *found = rows[0]
    uow.session.info[_PREFETCHED] = _Lookup(
        prefix + player_id, key, bool(acquired), None if found[0] is None else found
    )
    return str(player_id)


def _stored(row: Sequence[Any] | None, fingerprint: str) -> StoredResponse | None:
    if row is None:
        return None
    stored_fingerprint, status, body = row
    if stored_fingerprint != fingerprint:
        raise Invalid(
            "this Idempotency-Key was used with a different request",
            code="idempotency_key_reused",
        )
    return StoredResponse(status=int(status), body=dict(body))


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
    ``body`` already serialised as JSON, saving PostgreSQL's adapter doing it again).

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
        if encoded is not None:  # ``body`` as JSON text already (the response's own)
            values["body"] = direct.encoded_json(encoded, body)
        direct.defer(uow.session, direct.insert(_RECORDS, values))
        return
    try:
        uow.session.execute(insert(_RECORDS).values(values))
    except IntegrityError:
        raise _in_progress() from None


@event.listens_for(Session, "after_commit")
@event.listens_for(Session, "after_rollback")
def _forget_prefetched(session: Session) -> None:
    session.info.pop(_PREFETCHED, None)


def purge_idempotency(uow: UnitOfWork, older_than: timedelta = RETENTION) -> int:
    """Forget records older than ``older_than`` (never less than the 24 h retention)."""
    cutoff = utcnow() - max(older_than, RETENTION)
    result = uow.session.execute(delete(_RECORDS).where(_RECORDS.c.created_at < cutoff))
    return int(result.rowcount or 0)  # type: ignore[attr-defined]
