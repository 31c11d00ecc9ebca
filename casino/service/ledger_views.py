"""Ledger transactions as a player sees them (shared by wallets and rounds)."""

from __future__ import annotations

from casino.ledger.accounts import account_name
from casino.ledger.transactions import ChainedTransaction
from casino.service.views import TransactionView
from casino.store.records import TransactionRecord


def transaction_view(tx: TransactionRecord) -> TransactionView:
    return TransactionView(
        id=tx.id,
        kind=tx.kind,
        round_id=tx.round_id,
        currency=tx.currency,
        postings=[
            {"account": account_name(key), "amount": amount} for _, key, amount in tx.postings
        ],
        balance_after=tx.wallet_balance_after,
        reference=tx.reference,
        created_at=tx.created_at,
        hash=tx.hash,
    )


def chained_view(tx: ChainedTransaction) -> TransactionView:
    """The view of a transaction this request is about to commit, without reading it back."""
    new = tx.tx
    return TransactionView(
        id=tx.id,
        kind=new.kind,
        round_id=new.round_id,
        currency=new.currency,
        postings=[{"account": account_name(leg.account), "amount": leg.amount} for leg in new.legs],
        balance_after=tx.wallet_balance_after,
        reference=new.reference,
        created_at=new.created_at,
        hash=tx.hash,
    )
