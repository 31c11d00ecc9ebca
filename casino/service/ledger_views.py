"""Turning ledger rows into ``TransactionView``s (shared by wallets and rounds)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from casino.ledger.accounts import display_name
from casino.ledger.posting import PendingTransaction, account_name
from casino.service.views import TransactionView
from casino.store.models import Account, LedgerTransaction, Posting


def postings_by_transaction(
    session: Session, tx_ids: Sequence[int]
) -> dict[int, list[dict[str, Any]]]:
    result: dict[int, list[dict[str, Any]]] = defaultdict(list)
    if not tx_ids:
        return result
    rows = session.execute(
        select(Posting.transaction_id, Posting.leg, Posting.amount, Account.kind, Account.player_id)
        .join(Account, Account.id == Posting.account_id)
        .where(Posting.transaction_id.in_(list(tx_ids)))
        .order_by(Posting.transaction_id, Posting.leg)
    )
    for tx_id, _leg, amount, kind, player_id in rows:
        result[tx_id].append({"account": display_name(kind, player_id), "amount": int(amount)})
    return result


def transaction_views(session: Session, txs: Sequence[LedgerTransaction]) -> list[TransactionView]:
    postings = postings_by_transaction(session, [tx.id for tx in txs])
    return [
        TransactionView(
            id=int(tx.id),
            kind=tx.kind,
            round_id=tx.round_id,
            currency=tx.currency,
            postings=postings.get(tx.id, []),
            balance_after=None if tx.wallet_balance_after is None else int(tx.wallet_balance_after),
            reference=tx.reference,
            created_at=tx.created_at,
            hash=tx.hash,
        )
        for tx in txs
    ]


def pending_view(tx: PendingTransaction) -> TransactionView:
    """The view of a transaction this request just flushed, without reading it back."""
    assert tx.id is not None and tx.hash is not None
    return TransactionView(
        id=tx.id,
        kind=tx.kind,
        round_id=tx.round_id,
        currency=tx.currency,
        postings=[{"account": account_name(leg.account), "amount": leg.amount} for leg in tx.legs],
        balance_after=tx.wallet_balance_after,
        reference=tx.reference,
        created_at=tx.created_at,
        hash=tx.hash,
    )
