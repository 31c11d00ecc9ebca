"""Operator-wide reads of the ledger: transactions of every player of the operator, filtered,
newest first."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, select
from sqlalchemy.orm import Session

from casino.store.models import Account, LedgerTransaction, Posting
from casino.store.records import TransactionRecord
from casino.store.repository import Repository

_ACCOUNTS = cast(Table, Account.__table__)
_TRANSACTIONS = cast(Table, LedgerTransaction.__table__)
_POSTINGS = cast(Table, Posting.__table__)


class LedgerReadStore(Repository):
    """Operator-wide reads of the ledger, on a unit of work (``uow.ledger_reads``)."""

    def transaction_page(
        self,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        player_id: str | None = None,
        round_id: str | None = None,
        kind: str | None = None,
        currency: str | None = None,
        before_id: int | None = None,
        limit: int = 50,
    ) -> list[TransactionRecord]:
        """Transactions matching every filter given, newest (highest id) first, ids below
        ``before_id``; ``since`` is included, ``until`` excluded (creation times)."""
        t = _TRANSACTIONS
        query = select(t).where(self.owned(t.c.operator_id))
        for column, value in (
            (t.c.player_id, player_id),
            (t.c.round_id, round_id),
            (t.c.kind, kind),
            (t.c.currency, currency),
        ):
            if value is not None:
                query = query.where(column == value)
        if since is not None:
            query = query.where(t.c.created_at >= since)
        if until is not None:
            query = query.where(t.c.created_at < until)
        if before_id is not None:
            query = query.where(t.c.id < before_id)
        rows = [
            row._mapping for row in self.session.execute(query.order_by(t.c.id.desc()).limit(limit))
        ]
        postings = _postings(self.session, [int(row["id"]) for row in rows])
        return [_record(row, postings.get(int(row["id"]), [])) for row in rows]


def _record(row: Any, postings: list[tuple[int, str, int]]) -> TransactionRecord:
    return TransactionRecord(
        id=int(row["id"]),
        kind=row["kind"],
        currency=row["currency"],
        player_id=row["player_id"],
        wallet_id=int(row["wallet_id"]),
        round_id=row["round_id"],
        reference=row["reference"],
        wallet_balance_after=int(row["wallet_balance_after"]),
        created_at=row["created_at"],  # UTCDateTime: aware UTC already
        wallet_seq=int(row["wallet_seq"]),
        prev_hash=row["prev_hash"],
        hash=row["hash"],
        commit_seq=int(row["commit_seq"]),
        postings=postings,
    )


def _postings(session: Session, tx_ids: Sequence[int]) -> dict[int, list[tuple[int, str, int]]]:
    found: dict[int, list[tuple[int, str, int]]] = defaultdict(list)
    if not tx_ids:
        return found
    rows = session.execute(
        select(_POSTINGS.c.transaction_id, _POSTINGS.c.leg, _ACCOUNTS.c.key, _POSTINGS.c.amount)
        .join(_ACCOUNTS, _ACCOUNTS.c.id == _POSTINGS.c.account_id)
        .where(_POSTINGS.c.transaction_id.in_(list(tx_ids)))
        .order_by(_POSTINGS.c.transaction_id, _POSTINGS.c.leg)
    )
    for tx_id, leg, key, amount in rows:
        found[int(tx_id)].append((int(leg), str(key), int(amount)))
    return found
