"""The seamless wallet's calls (casino.store.wallet_call_models): recorded by the request
that made them, claimed and finished by whoever sends them (the request itself at once, any
number of ``casino wallet-worker`` processes after).

A claim pushes the call's ``next_attempt_at`` past the attempt (a lease) and commits, so no
two senders hold one call at once; on PostgreSQL the scan skips rows another worker is
claiming (``FOR UPDATE SKIP LOCKED``), on SQLite the database's single writer serialises the
claims. A sender killed mid-attempt leaves the call due again once its lease ends; the
protocol's idempotency (one ``transaction_id``, the original answer again) absorbs the
second send.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import Table, and_, func, select, update

from casino.store.repository import Repository
from casino.store.wallet_call_models import WalletCall
from casino.store.wallet_call_records import NEEDS_ATTENTION, PENDING, WalletCallRecord

_CALLS = cast(Table, WalletCall.__table__)


_COLUMNS = [_CALLS.c[name] for name in WalletCallRecord.__dataclass_fields__]


def _record(row: Sequence[Any]) -> WalletCallRecord:
    return WalletCallRecord(*row)


@dataclass(frozen=True)
class DaySummaryRow:
    currency: str
    endpoint: str
    state: str
    count: int
    amount: int


class WalletCallStore(Repository):
    def add(self, record: WalletCallRecord) -> None:
        """Written with this unit of work (a bet's record, a settlement's pending win)."""
        values = {name: getattr(record, name) for name in WalletCallRecord.__dataclass_fields__}
        values["operator_id"] = self.operator_id
        self.session.execute(_CALLS.insert().values(**values))

    def get(self, transaction_id: str) -> WalletCallRecord | None:
        row = self.session.execute(
            select(*_COLUMNS).where(
                _CALLS.c.transaction_id == transaction_id, self.owned(_CALLS.c.operator_id)
            )
        ).one_or_none()
        return None if row is None else _record(row)

    def claim(
        self, transaction_id: str, now: datetime, lease: timedelta
    ) -> WalletCallRecord | None:
        """The pending call, leased to this sender until ``now + lease`` (None: not pending,
        or another sender holds it)."""
        query = (
            select(*_COLUMNS)
            .where(
                _CALLS.c.transaction_id == transaction_id,
                _CALLS.c.state == PENDING,
                _CALLS.c.next_attempt_at <= now,
                self.owned(_CALLS.c.operator_id),
            )
            .with_for_update(skip_locked=True)
        )
        row = self.session.execute(query).one_or_none()
        if row is None:
            return None
        self._lease([transaction_id], now + lease)
        return _record(row)

    def claim_due(self, now: datetime, lease: timedelta, limit: int) -> list[WalletCallRecord]:
        """Up to ``limit`` pending calls due at ``now``, oldest due first, leased until
        ``now + lease`` (any operator's: the worker is platform-level)."""
        query = (
            select(*_COLUMNS)
            .where(
                _CALLS.c.state == PENDING,
                _CALLS.c.next_attempt_at <= now,
                self.owned(_CALLS.c.operator_id),
            )
            .order_by(_CALLS.c.next_attempt_at)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
        rows = [_record(row) for row in self.session.execute(query)]
        self._lease([row.transaction_id for row in rows], now + lease)
        return rows

    def _lease(self, ids: list[str], until: datetime) -> None:
        if ids:
            self.session.execute(
                update(_CALLS).where(_CALLS.c.transaction_id.in_(ids)).values(next_attempt_at=until)
            )

    def finish(
        self,
        transaction_id: str,
        *,
        state: str,
        wallet_status: str,
        attempts: int,
        now: datetime,
        next_attempt_at: datetime | None,
        operator_transaction_id: str | None = None,
        last_error: str | None = None,
    ) -> None:
        """An attempt's result: the new state, and when to try again if still pending."""
        self.session.execute(
            update(_CALLS)
            .where(_CALLS.c.transaction_id == transaction_id)
            .values(
                state=state,
                wallet_status=wallet_status,
                attempts=attempts,
                updated_at=now,
                next_attempt_at=next_attempt_at,
                operator_transaction_id=operator_transaction_id,
                last_error=None if last_error is None else last_error[:300],
            )
        )

    def pending_for_round(self, round_id: str) -> list[WalletCallRecord]:
        rows = self.session.execute(
            select(*_COLUMNS).where(
                _CALLS.c.round_id == round_id,
                _CALLS.c.state == PENDING,
                self.owned(_CALLS.c.operator_id),
            )
        )
        return [_record(row) for row in rows]

    def of_round(self, round_id: str, player_id: str) -> list[WalletCallRecord]:
        """Every call of the player's round, in any state (a void's rollbacks are read
        from its bets)."""
        rows = self.session.execute(
            select(*_COLUMNS)
            .where(
                _CALLS.c.round_id == round_id,
                _CALLS.c.player_id == player_id,
                self.owned(_CALLS.c.operator_id),
            )
            .order_by(_CALLS.c.created_at, _CALLS.c.transaction_id)
        )
        return [_record(row) for row in rows]

    def in_state(self, state: str, limit: int) -> tuple[list[WalletCallRecord], int]:
        """The oldest ``limit`` calls in ``state`` and how many there are in all."""
        where = (_CALLS.c.state == state, self.owned(_CALLS.c.operator_id))
        rows = self.session.execute(
            select(*_COLUMNS)
            .where(*where)
            .order_by(_CALLS.c.created_at, _CALLS.c.transaction_id)
            .limit(limit)
        )
        total = self.session.execute(select(func.count()).select_from(_CALLS).where(*where))
        return [_record(row) for row in rows], int(total.scalar_one())

    def reopen(self, transaction_id: str, now: datetime, lease: timedelta) -> bool:
        """A call that needs attention pending again, leased to this sender until
        ``now + lease`` (False: no such call of the operator, or not in that state)."""
        changed = self.session.execute(
            update(_CALLS)
            .where(
                _CALLS.c.transaction_id == transaction_id,
                _CALLS.c.state == NEEDS_ATTENTION,
                self.owned(_CALLS.c.operator_id),
            )
            .values(state=PENDING, next_attempt_at=now + lease, updated_at=now)
        )
        return bool(changed.rowcount)  # type: ignore[attr-defined]

    def count_needing_attention(self) -> int:
        return int(
            self.session.execute(
                select(func.count())
                .select_from(_CALLS)
                .where(_CALLS.c.state == NEEDS_ATTENTION, self.owned(_CALLS.c.operator_id))
            ).scalar_one()
        )

    def day_summary(self, since: datetime, until: datetime) -> list[DaySummaryRow]:
        """Count and amount of the operator's calls made in [since, until), by currency,
        endpoint and state."""
        rows = self.session.execute(
            select(
                _CALLS.c.currency,
                _CALLS.c.endpoint,
                _CALLS.c.state,
                func.count(),
                func.coalesce(func.sum(_CALLS.c.amount), 0),
            )
            .where(self._day(since, until))
            .group_by(_CALLS.c.currency, _CALLS.c.endpoint, _CALLS.c.state)
        )
        return [DaySummaryRow(str(c), str(e), str(s), int(n), int(a)) for c, e, s, n, a in rows]

    def day_calls(self, since: datetime, until: datetime) -> Iterator[WalletCallRecord]:
        """The operator's calls made in [since, until), oldest first, streamed."""
        query = (
            select(*_COLUMNS)
            .where(self._day(since, until))
            .order_by(_CALLS.c.created_at, _CALLS.c.transaction_id)
            .execution_options(yield_per=500)
        )
        for row in self.session.execute(query):
            yield _record(row)

    def _day(self, since: datetime, until: datetime) -> Any:
        return and_(
            self.owned(_CALLS.c.operator_id),
            _CALLS.c.created_at >= since,
            _CALLS.c.created_at < until,
        )

    def operator_session(self, player_id: str) -> str:
        return latest_operator_session(self, player_id)

    def states(self) -> dict[tuple[str, str], int]:
        """How many calls each operator has in each state (the metrics)."""
        rows = self.session.execute(
            select(_CALLS.c.operator_id, _CALLS.c.state, func.count())
            .where(self.owned(_CALLS.c.operator_id))
            .group_by(_CALLS.c.operator_id, _CALLS.c.state)
        )
        return {(str(operator), str(state)): int(count) for operator, state, count in rows}


__all__ = ["DaySummaryRow", "WalletCallRecord", "WalletCallStore"]


def _latest_session_query(store: Repository, player_id: str) -> Any:
    from casino.store.models import GameSession

    return (
        select(GameSession.operator_session)
        .where(
            GameSession.player_id == player_id,
            GameSession.operator_session.is_not(None),
            store.owned_player(GameSession.player_id),
        )
        .order_by(GameSession.created_at.desc())
        .limit(1)
    )


def latest_operator_session(store: Repository, player_id: str) -> str:
    """The operator's own session token of the player's latest launch ("" if none: a wallet
    call then carries an empty ``session``; wins and rollbacks never depend on it)."""
    found = store.session.execute(_latest_session_query(store, player_id)).scalar_one_or_none()
    return found or ""
