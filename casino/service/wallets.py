"""Deposits, withdrawals, balances and ledger history of a player.

Deposits move money from the external cash account of the currency into the wallet;
withdrawals move it back. The wallet of a currency is created by its first deposit. Either
locks the player's wallet row and nothing else.
"""

from __future__ import annotations

from casino.ledger.errors import InsufficientFunds
from casino.ledger.legs import transfer
from casino.ledger.transactions import DEPOSIT, WITHDRAWAL, link, new_transaction
from casino.service import protection
from casino.service.common import (
    check_amount,
    check_currency,
    clamp_limit,
    decode_cursor,
    encode_cursor,
    insufficient_funds,
    player_exists,
)
from casino.service.errors import Conflict, Invalid, NotFound
from casino.service.ledger_views import chained_view, transaction_view
from casino.service.player_wallets import wallet_of
from casino.service.views import Page, TransactionView, WalletView
from casino.store.uow import UnitOfWork
from casino.store.writes import CASH_REFERENCE_USED, LIMIT_GUARD, WALLET_GUARD

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
    return _move_cash(uow, DEPOSIT, player_id, currency, amount, reference)


def withdraw(
    uow: UnitOfWork, player_id: str, currency: str, amount: int, reference: str
) -> TransactionView:
    """Cash out: wallet -> external cash, refused beyond the balance."""
    return _move_cash(uow, WITHDRAWAL, player_id, currency, amount, reference)


def _move_cash(
    uow: UnitOfWork,
    kind: str,
    player_id: str,
    currency: str,
    amount: int,
    reference: str,
) -> TransactionView:
    wallet_of(uow).check_cash_moves()  # 409 operator_wallet where the operator holds it
    check_currency(currency, uow.currencies)
    check_amount(amount)
    _check_reference(reference)
    now = uow.now()
    # The player's existence, status and whether it has deposit limits: one statement.
    state = uow.protection.cash_state(player_id, currency)
    if state is None:
        raise NotFound("no such player", code="player_not_found")
    if kind == DEPOSIT:  # withdrawals stay allowed whatever the account's state
        protection.check_account(state.protection, now)
    wallet = uow.ledger.lock_wallet(player_id, currency, create=kind == DEPOSIT)
    if wallet is None:  # a withdrawal from a currency the player never deposited
        raise insufficient_funds(amount, currency)
    if kind == DEPOSIT and state.has_deposit_limits:
        # Read with the wallet locked: every deposit that counted before has committed.
        limits = uow.protection.limits(player_id, currency, [protection.DEPOSIT])
        risks = {protection.DEPOSIT: amount}
        protection.check_limits(limits, risks, now)
        protection.count(uow, limits, {protection.DEPOSIT: (amount, amount)}, now)
        uow.on_conflict(
            LIMIT_GUARD, lambda: protection.find_exceeded(uow, player_id, currency, risks)
        )
    cash = uow.ledger.system_accounts(currency).cash
    legs = (
        transfer(cash, wallet.key, amount)
        if kind == DEPOSIT
        else transfer(wallet.key, cash, amount)
    )
    tx = new_transaction(kind, currency, player_id, legs, created_at=now, reference=reference)
    try:
        chained = link(tx, uow.ledger.reserve_id(), wallet.state)
    except InsufficientFunds:
        raise insufficient_funds(amount, currency) from None
    uow.ledger.append(chained, wallet)
    uow.on_conflict(WALLET_GUARD, lambda: insufficient_funds(amount, currency))
    # A reference pays in (or out) once per player: the commit refuses a second use.
    uow.protection.use_cash_reference(player_id, kind, reference, chained.id)
    uow.on_conflict(
        CASH_REFERENCE_USED, lambda: _duplicate_reference(uow, player_id, kind, reference)
    )
    return chained_view(chained)


def _duplicate_reference(uow: UnitOfWork, player_id: str, kind: str, reference: str) -> Conflict:
    return Conflict(
        f"this {kind} reference was already used for the player",
        code="duplicate_reference",
        reference=reference,
        transaction_id=uow.protection.cash_reference(player_id, kind, reference),
    )


def list_wallets(uow: UnitOfWork, player_id: str) -> list[WalletView]:
    player_exists(uow, player_id)
    return [
        WalletView(currency=currency, balance=balance)
        for currency, balance in wallet_of(uow).balances(uow, player_id)
    ]


def list_transactions(
    uow: UnitOfWork, player_id: str, cursor: str | None = None, limit: int = 50
) -> Page[TransactionView]:
    """The player's ledger transactions, newest first."""
    player_exists(uow, player_id)
    size = clamp_limit(limit)
    before = None
    if cursor:
        (text,) = decode_cursor(cursor, 1)
        if not (text.isdigit() and len(text) <= 18):  # a transaction id fits a bigint
            raise Invalid("malformed cursor", code="invalid_cursor")
        before = int(text)
    txs = uow.ledger.transaction_page(player_id, before, size + 1)
    more = len(txs) > size
    txs = txs[:size]
    next_cursor = encode_cursor(str(txs[-1].id)) if more and txs else None
    return Page(items=[transaction_view(tx) for tx in txs], next_cursor=next_cursor)
