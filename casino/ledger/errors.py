"""Refusals of the ledger itself; the service layer turns them into its own errors."""

from __future__ import annotations


class LedgerError(Exception):
    pass


class InsufficientFunds(LedgerError):
    def __init__(self, account: str, amount: int) -> None:
        super().__init__(f"account {account} cannot pay {amount}")
        self.account = account
        self.amount = amount


class Unbalanced(LedgerError):
    """A transaction whose postings do not sum to zero, or with a zero posting."""
