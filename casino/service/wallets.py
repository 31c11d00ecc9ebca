"""Deposits, withdrawals, balances and ledger history of a player."""

from __future__ import annotations

from casino.service.uow import UnitOfWork
from casino.service.views import Page, TransactionView, WalletView


def deposit(
    uow: UnitOfWork, player_id: str, currency: str, amount: int, reference: str
) -> TransactionView:
    raise NotImplementedError


def withdraw(
    uow: UnitOfWork, player_id: str, currency: str, amount: int, reference: str
) -> TransactionView:
    raise NotImplementedError


def list_wallets(uow: UnitOfWork, player_id: str) -> list[WalletView]:
    raise NotImplementedError


def list_transactions(
    uow: UnitOfWork, player_id: str, cursor: str | None = None, limit: int = 50
) -> Page[TransactionView]:
    raise NotImplementedError
