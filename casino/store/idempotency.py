"""Idempotency records: a money-moving request's response, stored under (caller, key).

Concurrent requests with one key: on PostgreSQL the second is refused at once through a
transaction-level advisory lock on a hash of caller and key (no row is locked, none is
shared); on SQLite writers are serialised by the database, so the second waits and then finds
the stored response.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, delete, event, select, tuple_
from sqlalchemy.orm import Session

from casino.store import direct
from casino.store.bet_claim_sql import LOCK_ID, PREFETCHED_BET_CLAIM, with_bet_claim
from casino.store.models import IdempotencyRecord, Player
from casino.store.operator_models import Operator
from casino.store.records import StoredResponseRecord, TokenOwner
from casino.store.repository import Repository
from casino.store.tenancy import Tenancy
from casino.store.writes import PendingWrites

_RECORDS = cast(Table, IdempotencyRecord.__table__)
_PLAYERS = cast(Table, Player.__table__)
_OPERATORS = cast(Table, Operator.__table__)

# One round trip on PostgreSQL: the lock and the lookup. Should the first request commit
# between this statement's snapshot and the lock, the lookup misses its record; the request
# then runs again, but its record insert hits the primary key at commit and the request is
# answered with the first one's record instead, so a key still charges only once.
# The lock id is a 64-bit hash of caller and key, computed by the database wherever the lock
# is taken (also in ``player_and_key``), so every path agrees on it.
_LOCK_ID = LOCK_ID
_LOCK_AND_LOOKUP = (
    "SELECT pg_try_advisory_xact_lock(" + _LOCK_ID.format(caller="%(caller)s") + "), "
    "r.fingerprint, r.status, r.body "
    "FROM (SELECT 1) AS one "
    "LEFT JOIN idempotency_records AS r ON r.caller = %(caller)s AND r.key = %(key)s"
)
# A player found by token hash (with its operator) and the above for its key, in the
# request's first round trip.
# The record's caller comes from a scalar subquery, not from the joined row: joined, the
# planner could match the key alone and filter on the caller afterwards, and with statistics
# from a near-empty table it chose a sequential scan of every record, once per bet, for as
# long as the cached plan lived. As a constant, both primary key columns are the index
# condition whatever the statistics say.
_PLAYER_AND_KEY = (
    "SELECT p.id, p.operator_id, o.active, pg_try_advisory_xact_lock("
    + _LOCK_ID.format(caller="%(prefix)s || p.id")
    + "), r.fingerprint, r.status, r.body "
    "FROM players AS p JOIN operators AS o ON o.id = p.operator_id "
    "LEFT JOIN idempotency_records AS r ON r.caller = %(prefix)s || "
    "(SELECT q.id FROM players AS q WHERE q.token_hash = %(digest)s) AND r.key = %(key)s "
    "WHERE p.token_hash = %(digest)s"
)
_PLAYER_AND_BET_CLAIM = with_bet_claim(_PLAYER_AND_KEY)
_PREFETCHED = "casino.idempotency.prefetched"


@dataclass(frozen=True)
class Lookup:
    """Whether this request holds the key (False: another request with it is running) and
    the response stored under it, if any."""

    acquired: bool
    stored: StoredResponseRecord | None


def _stored(row: Any) -> StoredResponseRecord | None:
    fingerprint, status, body = row
    if fingerprint is None:
        return None
    return StoredResponseRecord(str(fingerprint), int(status), dict(body))


class IdempotencyStore(Repository):
    """Not tenant-owned: a caller (a token's subject) is one operator's already."""

    def __init__(
        self, session: Any, postgres: bool, writes: PendingWrites, tenancy: Tenancy | None = None
    ) -> None:
        super().__init__(session, postgres, tenancy)
        self._writes = writes

    def lock_and_lookup(self, caller: str, key: str) -> Lookup:
        if self.postgres:
            prefetched = self.session.info.pop(_PREFETCHED, None)
            if prefetched is not None and prefetched[0] == (caller, key):
                return cast(Lookup, prefetched[1])
            ((acquired, *found),) = direct.execute(
                self.session, _LOCK_AND_LOOKUP, {"caller": caller, "key": key}
            )
            return Lookup(bool(acquired), _stored(found))
        row = self.session.execute(
            select(_RECORDS.c.fingerprint, _RECORDS.c.status, _RECORDS.c.body).where(
                _RECORDS.c.caller == caller, _RECORDS.c.key == key
            )
        ).one_or_none()
        return Lookup(True, None if row is None else _stored(tuple(row)))

    def player_and_key(
        self, token_digest: str, prefix: str, key: str, bet_table: str | None = None
    ) -> TokenOwner | None:
        """Authentication: the player whose token has this hash, with its operator. On
        PostgreSQL the same round trip also takes the lock and looks up the record
        ``lock_and_lookup`` will need for the caller ``prefix + id`` and ``key``; with
        ``bet_table`` (the request is a bet there), it also claims the bet
        (casino.store.bet_claim_sql), which ``RoundStore.claim_bet`` then uses."""
        if not self.postgres:
            owner = self.session.execute(
                select(_PLAYERS.c.id, _PLAYERS.c.operator_id, _OPERATORS.c.active)
                .join(_OPERATORS, _OPERATORS.c.id == _PLAYERS.c.operator_id)
                .where(_PLAYERS.c.token_hash == token_digest)
            ).one_or_none()
            if owner is None:
                return None
            return TokenOwner(str(owner[0]), str(owner[1]), bool(owner[2]))
        params = {"digest": token_digest, "prefix": prefix, "key": key}
        if bet_table is None:
            rows = direct.execute(self.session, _PLAYER_AND_KEY, params)
        else:
            params["table_id"] = bet_table
            rows = direct.execute(self.session, _PLAYER_AND_BET_CLAIM, params)
        if not rows:
            return None
        player_id, operator_id, active, acquired, *stored = rows[0][:7]
        lookup = Lookup(bool(acquired), _stored(stored))
        self.session.info[_PREFETCHED] = ((prefix + player_id, key), lookup)
        claimed = rows[0][7:]
        if claimed and claimed[0] is not None and lookup.acquired and lookup.stored is None:
            self.session.info[PREFETCHED_BET_CLAIM] = (
                (str(player_id), str(operator_id), bet_table),
                [claimed],
            )
        return TokenOwner(str(player_id), str(operator_id), bool(active))

    def add(
        self,
        *,
        caller: str,
        key: str,
        fingerprint: str,
        status: int,
        body: dict[str, Any],
        created_at: datetime,
        encoded: str | None = None,
    ) -> None:
        """Store the response at commit (``encoded``: ``body`` as JSON text already, stored as
        it is so a replay answers byte for byte). Should a request with the same key have
        committed meanwhile, the commit fails on the primary key."""
        row = {
            "caller": caller,
            "key": key,
            "fingerprint": fingerprint,
            "status": status,
            "body": body,
            "created_at": created_at,
        }
        self._writes.records.append((row, encoded))

    def purge(self, cutoff: datetime, limit: int | None = None) -> int:
        """Delete the records created before ``cutoff`` (at most ``limit`` of them, the
        oldest first, found by the ``created_at`` index); how many were deleted."""
        condition = _RECORDS.c.created_at < cutoff
        if limit is not None:
            oldest = (
                select(_RECORDS.c.caller, _RECORDS.c.key)
                .where(condition)
                .order_by(_RECORDS.c.created_at)
                .limit(limit)
            )
            condition = tuple_(_RECORDS.c.caller, _RECORDS.c.key).in_(oldest)
        result = self.session.execute(delete(_RECORDS).where(condition))
        return int(result.rowcount or 0)  # type: ignore[attr-defined]


@event.listens_for(Session, "after_commit")
@event.listens_for(Session, "after_rollback")
def _forget_prefetched(session: Session) -> None:
    session.info.pop(_PREFETCHED, None)
    session.info.pop(PREFETCHED_BET_CLAIM, None)
