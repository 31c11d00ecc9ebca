"""Ledger transactions read whole, each with its postings by account key (what its hash
covers): for the export, and for the sealer, which recomputes the links it seals."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, cast

from sqlalchemy import Select, Table, select

from casino.store.models import Account, LedgerTransaction, Posting
from casino.store.records import TransactionRecord

_ACCOUNTS = cast(Table, Account.__table__)
_TRANSACTIONS = cast(Table, LedgerTransaction.__table__)
_POSTINGS = cast(Table, Posting.__table__)


def whole_transactions() -> Select[Any]:
    """Every column of a transaction, then one leg of it per row (leg, account key, amount;
    none for a transaction without postings, None for an account that does not exist).
    Order it by transaction (then ``legs_in_order``) for ``grouped``."""
    t, p = _TRANSACTIONS, _POSTINGS
    return (
        select(
            t.c.id,
            t.c.kind,
            t.c.currency,
            t.c.player_id,
            t.c.wallet_id,
            t.c.round_id,
            t.c.reference,
            t.c.wallet_balance_after,
            t.c.created_at,
            t.c.wallet_seq,
            t.c.prev_hash,
            t.c.hash,
            t.c.commit_seq,
            p.c.leg,
            _ACCOUNTS.c.key,
            p.c.amount,
        )
        .select_from(t)
        .outerjoin(p, p.c.transaction_id == t.c.id)
        .outerjoin(_ACCOUNTS, _ACCOUNTS.c.id == p.c.account_id)
    )


#: The last ordering term of a ``whole_transactions`` query: legs in order.
legs_in_order = _POSTINGS.c.leg


def grouped(rows: Iterable[Any]) -> Iterator[TransactionRecord]:
    """The transactions of ``whole_transactions`` rows, each row of one transaction
    following the other."""
    current: TransactionRecord | None = None
    for row in rows:
        tx_id = int(row[0])
        if current is None or current.id != tx_id:
            if current is not None:
                yield current
            current = TransactionRecord(
                id=tx_id,
                kind=row[1],
                currency=row[2],
                player_id=row[3],
                wallet_id=int(row[4]),
                round_id=row[5],
                reference=row[6],
                wallet_balance_after=int(row[7]),
                created_at=row[8],  # UTCDateTime: aware UTC already
                wallet_seq=int(row[9]),
                prev_hash=row[10],
                hash=row[11],
                commit_seq=int(row[12]),
                postings=[],
            )
        if row[13] is not None:
            current.postings.append((int(row[13]), row[14], int(row[15])))
    if current is not None:
        yield current
