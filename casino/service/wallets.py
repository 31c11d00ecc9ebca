"""Deposits, withdrawals, balances and ledger history of a player.

Deposits move money from the external cash account of the currency into the wallet;
withdrawals move it back. The wallet of a currency is created by its first deposit.
"""

from __future__ import annotations

from sqlalchemy import select

from casino.db.models import Account, LedgerTransaction
from casino.ledger.accounts import WALLET, ensure_wallet, find_wallet, system_accounts
from casino.ledger.errors import InsufficientFunds
from casino.ledger.posting import ledger_for, transfer
from casino.service.common import (
    check_amount,
    check_currency,
    clamp_limit,
    decode_cursor,
    encode_cursor,
    insufficient_funds,
    player_exists,
)
from casino.service.errors import Invalid
from casino.service.ledger_views import transaction_view, transaction_views
from casino.service.uow import UnitOfWork
from casino.service.views import Page, TransactionView, WalletView

MAX_REFERENCE = 200


def _check_reference(reference: str) -> str:
    if not isinstance(reference, str) or not 1 <= len(reference) <= MAX_REFERENCE:
        raise Invalid(
            f"reference must be 1 to {MAX_REFERENCE} characters", code="invalid_reference"
        )
    return reference


def deposit(
    uow: UnitOfWork, player_id: str, currency: str, amount: int, reference: str
) -> TransactionView:
    check_currency(currency)
    check_amount(amount)
    _check_reference(reference)
    session = uow.session
    player_exists(session, player_id)
    accounts = system_accounts(session, currency)
    wallet = ensure_wallet(session, player_id, currency)
    ledger = ledger_for(session)
    ledger.post(
        "deposit",
        currency,
        transfer(accounts.cash, wallet, amount),
        wallet_id=wallet,
        player_id=player_id,
        reference=reference,
    )
    (tx,) = ledger.flush()
    assert tx.id is not None
    return transaction_view(session, tx.id)


def withdraw(
    uow: UnitOfWork, player_id: str, currency: str, amount: int, reference: str
) -> TransactionView:
    check_currency(currency)
    check_amount(amount)
    _check_reference(reference)
    session = uow.session
    player_exists(session, player_id)
    wallet = find_wallet(session, player_id, currency)
    if wallet is None:
        raise insufficient_funds(amount, currency)
    accounts = system_accounts(session, currency)
    ledger = ledger_for(session)
    try:
        ledger.post(
            "withdrawal",
            currency,
            transfer(wallet, accounts.cash, amount),
            wallet_id=wallet,
            player_id=player_id,
            reference=reference,
        )
    except InsufficientFunds:
        raise insufficient_funds(amount, currency) from None
    (tx,) = ledger.flush()
    assert tx.id is not None
    return transaction_view(session, tx.id)


def list_wallets(uow: UnitOfWork, player_id: str) -> list[WalletView]:
    session = uow.session
    player_exists(session, player_id)
    rows = session.execute(
        select(Account.currency, Account.balance)
        .where(Account.player_id == player_id, Account.kind == WALLET)
        .order_by(Account.currency)
    )
    return [WalletView(currency=currency, balance=int(balance)) for currency, balance in rows]


def list_transactions(
    uow: UnitOfWork, player_id: str, cursor: str | None = None, limit: int = 50
) -> Page[TransactionView]:
    """The player's ledger transactions, newest first."""
    session = uow.session
    player_exists(session, player_id)
    size = clamp_limit(limit)
    query = select(LedgerTransaction).where(LedgerTransaction.player_id == player_id)
    if cursor:
        (before,) = decode_cursor(cursor, 1)
        if not before.isdigit():
            raise Invalid("malformed cursor", code="invalid_cursor")
        query = query.where(LedgerTransaction.id < int(before))
    txs = list(session.scalars(query.order_by(LedgerTransaction.id.desc()).limit(size + 1)))
    more = len(txs) > size
    txs = txs[:size]
    next_cursor = encode_cursor(str(txs[-1].id)) if more and txs else None
    return Page(items=transaction_views(session, txs), next_cursor=next_cursor)
