"""Deposits, withdrawals, balances and ledger history of a player.

Deposits move money from the external cash account of the currency into the wallet;
withdrawals move it back. The wallet of a currency is created by its first deposit.
"""

from __future__ import annotations

from typing import Literal

from sqlalchemy import select

from casino.ledger.accounts import WALLET, ensure_wallet, wallet_key
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
from casino.service.ledger_views import pending_view, transaction_views
from casino.service.uow import UnitOfWork
from casino.service.views import Page, TransactionView, WalletView
from casino.store.models import Account, LedgerTransaction

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
    """Cash in: external cash -> wallet; the wallet is created by its first deposit."""
    return _move_cash(uow, "deposit", player_id, currency, amount, reference)


def withdraw(
    uow: UnitOfWork, player_id: str, currency: str, amount: int, reference: str
) -> TransactionView:
    """Cash out: wallet -> external cash, refused beyond the balance by the SQL guard."""
    return _move_cash(uow, "withdrawal", player_id, currency, amount, reference)


def _move_cash(
    uow: UnitOfWork,
    kind: Literal["deposit", "withdrawal"],
    player_id: str,
    currency: str,
    amount: int,
    reference: str,
) -> TransactionView:
    check_currency(currency)
    check_amount(amount)
    _check_reference(reference)
    session = uow.session
    player_exists(session, player_id)
    ledger = ledger_for(session)
    cash = ledger.system_accounts(currency).cash
    wallet = wallet_key(player_id, currency)
    if kind == "deposit":
        ensure_wallet(session, player_id, currency)
        legs = transfer(cash, wallet, amount)
    else:
        legs = transfer(wallet, cash, amount)
    ledger.post(kind, currency, legs, player_id=player_id, reference=reference)
    try:
        (tx,) = ledger.flush()
    except InsufficientFunds:  # also when the player has no wallet in this currency
        raise insufficient_funds(amount, currency) from None
    return pending_view(tx)


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
        if not (before.isdigit() and len(before) <= 18):  # a transaction id fits a bigint
            raise Invalid("malformed cursor", code="invalid_cursor")
        query = query.where(LedgerTransaction.id < int(before))
    txs = list(session.scalars(query.order_by(LedgerTransaction.id.desc()).limit(size + 1)))
    more = len(txs) > size
    txs = txs[:size]
    next_cursor = encode_cursor(str(txs[-1].id)) if more and txs else None
    return Page(items=transaction_views(session, txs), next_cursor=next_cursor)
