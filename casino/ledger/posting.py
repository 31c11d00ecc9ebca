"""Posting transactions: balanced legs, SQL-guarded wallets, and the hash-chain append.

A use case posts any number of transactions through the session's ``Ledger`` and then calls
``flush()`` once. Wallet legs hit the database immediately (the funds guard must answer at
once); the legs of shared accounts (house, in-play, cash) and the chain append are deferred to
``flush()`` so the hot rows every bet touches stay locked for as short a time as possible, and
always in the same order (wallet, then shared accounts by id, then the chain head), which
rules out deadlocks between concurrent transactions.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import cast

from sqlalchemy import Table, event, insert, select, update
from sqlalchemy.orm import Session

from casino.db.models import Account, ChainHead, LedgerTransaction, Posting, utcnow
from casino.ledger.chain import transaction_hash
from casino.ledger.errors import InsufficientFunds, LedgerError, Unbalanced

_SESSION_KEY = "casino.ledger"
# Core tables: the hot path issues plain statements, without ORM bookkeeping.
_ACCOUNTS = cast(Table, Account.__table__)
_HEAD = cast(Table, ChainHead.__table__)
_TRANSACTIONS = cast(Table, LedgerTransaction.__table__)
_POSTINGS = cast(Table, Posting.__table__)


@dataclass(frozen=True)
class Leg:
    account_id: int
    amount: int


def transfer(source: int, target: int, amount: int) -> list[Leg]:
    """The two legs moving ``amount`` from ``source`` to ``target`` (none for 0)."""
    if amount < 0:
        raise Unbalanced("a transfer moves a positive amount")
    if amount == 0:
        return []
    return [Leg(source, -amount), Leg(target, amount)]


@dataclass
class PendingTransaction:
    kind: str
    currency: str
    legs: list[Leg]
    player_id: str | None
    round_id: str | None
    reference: str | None
    wallet_balance_after: int | None
    created_at: datetime
    id: int | None = None
    hash: str | None = None


@dataclass
class Ledger:
    session: Session
    wallet_ids: set[int] = field(default_factory=set)
    _pending: list[PendingTransaction] = field(default_factory=list)
    _deferred: dict[int, int] = field(default_factory=lambda: defaultdict(int))

    @property
    def has_pending(self) -> bool:
        return bool(self._pending)

    def post(
        self,
        kind: str,
        currency: str,
        legs: list[Leg],
        *,
        wallet_id: int | None,
        player_id: str | None = None,
        round_id: str | None = None,
        reference: str | None = None,
    ) -> PendingTransaction:
        """Record one balanced transaction; raises ``InsufficientFunds`` (changing nothing)
        when the wallet leg would take the wallet below zero.

        ``wallet_id`` names the one player wallet among the legs (if any); every other
        account is treated as a shared account.
        """
        if len(legs) < 2:
            raise Unbalanced("a transaction needs at least two postings")
        if any(leg.amount == 0 for leg in legs):
            raise Unbalanced("a posting of zero")
        if sum(leg.amount for leg in legs) != 0:
            raise Unbalanced("postings do not sum to zero")
        balance_after: int | None = None
        if wallet_id is not None:
            delta = sum(leg.amount for leg in legs if leg.account_id == wallet_id)
            balance_after = self._apply_wallet(wallet_id, delta)
        for leg in legs:
            if leg.account_id != wallet_id:
                self._deferred[leg.account_id] += leg.amount
        pending = PendingTransaction(
            kind=kind,
            currency=currency,
            legs=list(legs),
            player_id=player_id,
            round_id=round_id,
            reference=reference,
            wallet_balance_after=balance_after,
            created_at=utcnow(),
        )
        self._pending.append(pending)
        return pending

    def _apply_wallet(self, wallet_id: int, delta: int) -> int:
        table = _ACCOUNTS
        if delta < 0:
            # The guard lives in SQL: the row is changed only if the funds are there, and the
            # row lock taken by the UPDATE keeps them there until commit.
            stmt = (
                update(table)
                .where(table.c.id == wallet_id, table.c.balance >= -delta)
                .values(balance=table.c.balance + delta)
                .returning(table.c.balance)
            )
        else:
            stmt = (
                update(table)
                .where(table.c.id == wallet_id)
                .values(balance=table.c.balance + delta)
                .returning(table.c.balance)
            )
        balance = self.session.execute(stmt).scalar_one_or_none()
        if balance is None:
            if delta < 0:
                raise InsufficientFunds(wallet_id, -delta)
            raise LedgerError(f"no account {wallet_id}")
        return int(balance)

    def flush(self) -> list[PendingTransaction]:
        """Apply the deferred legs and append the pending transactions to the chain."""
        pending = self._pending
        if not pending:
            return []
        session = self.session
        session.flush()  # rows the transactions refer to (rounds) must exist first
        table = _ACCOUNTS
        for account_id in sorted(self._deferred):
            delta = self._deferred[account_id]
            if delta:
                session.execute(
                    update(table)
                    .where(table.c.id == account_id)
                    .values(balance=table.c.balance + delta)
                )
        head_table = _HEAD
        head = session.execute(
            select(head_table.c.last_id, head_table.c.count, head_table.c.last_hash)
            .where(head_table.c.id == 1)
            .with_for_update()
        ).one()
        last_id, count, prev_hash = int(head[0]), int(head[1]), str(head[2])
        tx_rows: list[dict[str, object]] = []
        posting_rows: list[dict[str, object]] = []
        for tx in pending:
            last_id += 1
            count += 1
            postings = [(leg_no, leg.account_id, leg.amount) for leg_no, leg in enumerate(tx.legs)]
            tx.id = last_id
            tx.hash = transaction_hash(
                prev_hash,
                tx_id=last_id,
                kind=tx.kind,
                currency=tx.currency,
                player_id=tx.player_id,
                round_id=tx.round_id,
                reference=tx.reference,
                wallet_balance_after=tx.wallet_balance_after,
                created_at=tx.created_at,
                postings=postings,
            )
            tx_rows.append(
                {
                    "id": last_id,
                    "kind": tx.kind,
                    "currency": tx.currency,
                    "player_id": tx.player_id,
                    "round_id": tx.round_id,
                    "reference": tx.reference,
                    "wallet_balance_after": tx.wallet_balance_after,
                    "created_at": tx.created_at,
                    "prev_hash": prev_hash,
                    "hash": tx.hash,
                }
            )
            posting_rows.extend(
                {"transaction_id": last_id, "leg": leg_no, "account_id": account, "amount": amt}
                for leg_no, account, amt in postings
            )
            prev_hash = tx.hash
        session.execute(insert(_TRANSACTIONS), tx_rows)
        session.execute(insert(_POSTINGS), posting_rows)
        session.execute(
            update(head_table)
            .where(head_table.c.id == 1)
            .values(last_id=last_id, count=count, last_hash=prev_hash)
        )
        self._pending = []
        self._deferred = defaultdict(int)
        return pending


def ledger_for(session: Session) -> Ledger:
    """The session's ledger (one per database transaction)."""
    ledger = session.info.get(_SESSION_KEY)
    if ledger is None:
        ledger = Ledger(session)
        session.info[_SESSION_KEY] = ledger
    return ledger


@event.listens_for(Session, "before_commit")
def _refuse_unflushed(session: Session) -> None:
    ledger = session.info.get(_SESSION_KEY)
    if ledger is not None and ledger.has_pending:
        raise LedgerError("ledger transactions posted but not flushed before commit")


@event.listens_for(Session, "after_rollback")
def _forget_on_rollback(session: Session) -> None:
    session.info.pop(_SESSION_KEY, None)
