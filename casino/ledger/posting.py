"""Posting transactions: balanced legs, SQL-guarded wallets, and the hash-chain append.

A use case posts transactions through the session's ``Ledger`` and calls ``apply_wallets()``
when it needs the balances; the append to the hash chain happens at commit time (a
``before_commit`` hook), or earlier through ``flush()`` when a response needs the hashes.

Locking, and why in this order:
- a player's wallet is moved by one conditional UPDATE per request (``apply_wallets``):
  ``balance >= required`` where ``required`` is the most the posted transactions, taken in
  order, ever draw from it; the new balance is computed by the database, never in Python;
- the shared accounts (house, in-play, cash) and the chain head are touched only by the
  append, which locks the head first: one transaction at a time holds them, so their order
  cannot deadlock, and on PostgreSQL the append is a single call (``ledger_append``), so the
  hot rows stay locked for one round trip and the COMMIT.

Transaction ids are reserved in ``apply_wallets`` (a sequence on PostgreSQL), so views can
name them before the append; ``seq``, the place in the chain, is assigned by the append.

A wallet this transaction has already moved stays locked by it until commit, so its balance is
known exactly. On PostgreSQL a later movement of it that cannot lower it below that balance
(a settlement after a stake) needs no guard and no round trip of its own: it is applied by the
append, with the shared accounts. A use case may also move a wallet itself in a statement of
its own, with the same SQL guard, and hand the result to ``applied`` (the bet does, in the
statement that claims its nonce). ``append_statement`` gives the append for a commit that
sends it together with the COMMIT (``casino.service.uow``).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, event, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from casino.ledger.accounts import (
    SystemAccounts,
    cached_system_accounts,
    forget_system_accounts,
    is_wallet_key,
)
from casino.ledger.chain import canonical_time, content_digest, link_hash
from casino.ledger.errors import InsufficientFunds, LedgerError, Unbalanced
from casino.store import direct
from casino.store.models import Account, ChainHead, LedgerTransaction, Posting, utcnow

_SESSION_KEY = "casino.ledger"
# Core tables: the hot path issues plain statements, without ORM bookkeeping.
_ACCOUNTS = cast(Table, Account.__table__)
_HEAD = cast(Table, ChainHead.__table__)
_TRANSACTIONS = cast(Table, LedgerTransaction.__table__)
_POSTINGS = cast(Table, Posting.__table__)
_APPEND = (
    "SELECT tx_id, tx_seq, tx_hash FROM ledger_append("
    "%(txs)s::jsonb, %(legs)s::jsonb, %(shared)s::jsonb)"
)
# The same append, after inserting whole rows of these tables (migration 0003).
_COMMIT = (
    "SELECT tx_id, tx_seq, tx_hash FROM ledger_commit("
    "%(rows)s::json, %(txs)s::jsonb, %(legs)s::jsonb, %(shared)s::jsonb)"
)
ROWS_APPENDED_WITH = frozenset({"rounds", "idempotency_records"})


@dataclass(frozen=True)
class Leg:
    """``amount`` (signed, non-zero) to the account with key ``account``."""

    account: str
    amount: int


def transfer(source: str, target: str, amount: int) -> list[Leg]:
    """The two legs moving ``amount`` from ``source`` to ``target`` (none for 0)."""
    if amount < 0:
        raise Unbalanced("a transfer moves a positive amount")
    if amount == 0:
        return []
    return [Leg(source, -amount), Leg(target, amount)]


def account_name(key: str) -> str:
    """How views name an account: ``wallet:<player_id>``, ``house``, ``in_play``, ``cash``."""
    return key.rsplit(":", 1)[0]


@dataclass
class PendingTransaction:
    kind: str
    currency: str
    legs: list[Leg]
    wallet: str | None
    player_id: str | None
    round_id: str | None
    reference: str | None
    created_at: datetime
    id: int | None = None
    wallet_balance_after: int | None = None
    seq: int | None = None
    hash: str | None = None

    @property
    def wallet_delta(self) -> int:
        return sum(leg.amount for leg in self.legs if leg.account == self.wallet)

    def digest(self) -> str:
        assert self.id is not None
        return content_digest(
            tx_id=self.id,
            kind=self.kind,
            currency=self.currency,
            player_id=self.player_id,
            round_id=self.round_id,
            reference=self.reference,
            wallet_balance_after=self.wallet_balance_after,
            created_at=self.created_at,
            postings=[(n, leg.account, leg.amount) for n, leg in enumerate(self.legs)],
        )


@dataclass
class Ledger:
    session: Session
    _pending: list[PendingTransaction] = field(default_factory=list)
    _applied: int = 0
    # Deltas the append applies: the shared accounts', and on PostgreSQL those of wallets
    # this transaction holds locked (see ``_locked``).
    _shared: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    _next_local_id: int | None = None
    # Wallets moved by this database transaction: their balance now (row locked until commit).
    _locked: dict[str, int] = field(default_factory=dict)
    _spare_ids: list[int] = field(default_factory=list)

    @property
    def has_pending(self) -> bool:
        return bool(self._pending)

    @property
    def pending(self) -> list[PendingTransaction]:
        return list(self._pending)

    @property
    def _postgres(self) -> bool:
        return self.session.get_bind().dialect.name == "postgresql"

    def system_accounts(self, currency: str) -> SystemAccounts:
        return cached_system_accounts(self.session, currency)

    def post(
        self,
        kind: str,
        currency: str,
        legs: list[Leg],
        *,
        player_id: str | None = None,
        round_id: str | None = None,
        reference: str | None = None,
    ) -> PendingTransaction:
        """Record one balanced transaction (at most one wallet among its accounts)."""
        if len(legs) < 2:
            raise Unbalanced("a transaction needs at least two postings")
        if any(leg.amount == 0 for leg in legs):
            raise Unbalanced("a posting of zero")
        if sum(leg.amount for leg in legs) != 0:
            raise Unbalanced("postings do not sum to zero")
        if any(not leg.account.endswith(f":{currency}") for leg in legs):
            raise Unbalanced(f"every account of a {currency} transaction is a {currency} one")
        wallets = {leg.account for leg in legs if is_wallet_key(leg.account)}
        if len(wallets) > 1:
            raise LedgerError("a transaction moves money of at most one wallet")
        pending = PendingTransaction(
            kind=kind,
            currency=currency,
            legs=list(legs),
            wallet=next(iter(wallets), None),
            player_id=player_id,
            round_id=round_id,
            reference=reference,
            created_at=utcnow(),
        )
        self._pending.append(pending)
        return pending

    def apply_wallets(self) -> None:
        """Move the wallets for the transactions posted since the last call and reserve
        their ids.

        Raises ``InsufficientFunds`` if a wallet cannot cover them; those transactions are
        then dropped and nothing of theirs reaches the database.
        """
        batch = self._pending[self._applied :]
        if not batch:
            return
        by_wallet: dict[str, list[PendingTransaction]] = {}
        for tx in batch:
            if tx.wallet is not None:
                by_wallet.setdefault(tx.wallet, []).append(tx)
        ids: list[int] = []
        try:
            for key, txs in by_wallet.items():
                ids += self._apply_wallet(key, txs, reserve=0 if ids else len(batch))
        except LedgerError:
            del self._pending[self._applied :]
            raise
        if not ids:
            ids = self._reserve_ids(len(batch))
        for tx, tx_id in zip(batch, ids, strict=True):
            self._applied_one(tx, tx_id)
        self._applied = len(self._pending)

    def applied(self, tx: PendingTransaction, wallet_balance_after: int, ids: list[int]) -> None:
        """``tx``, the only transaction not yet applied, moved its wallet in a statement of the
        caller's: with the guard ``apply_wallets`` would have used, leaving the wallet at
        ``wallet_balance_after``, and with ``ids`` reserved (the first is ``tx``'s, the
        others serve the next transactions)."""
        if self._pending[self._applied :] != [tx] or tx.wallet is None or not ids:
            raise LedgerError("applied() takes the one unapplied transaction of a wallet")
        tx.wallet_balance_after = wallet_balance_after
        self._locked[tx.wallet] = wallet_balance_after
        self._spare_ids.extend(ids[1:])
        self._applied_one(tx, ids[0])
        self._applied = len(self._pending)

    def _applied_one(self, tx: PendingTransaction, tx_id: int) -> None:
        tx.id = tx_id
        for leg in tx.legs:
            if leg.account != tx.wallet:
                self._shared[leg.account] += leg.amount

    def _apply_wallet(self, key: str, txs: list[PendingTransaction], reserve: int) -> list[int]:
        running = required = 0
        for tx in txs:
            running += tx.wallet_delta
            required = max(required, -running)
        net = running
        if key in self._locked and not required and self._postgres:
            # Locked by this transaction since its last move, so its balance is known; the
            # movement cannot lower it, so the append applies it with the shared accounts.
            balance = self._locked[key]
            self._shared[key] += net
        else:
            # A credit left to the append is folded in: the database balance lacks it yet.
            deferred = self._shared.pop(key, 0)
            try:
                balance, ids = self._move_wallet(
                    key, net + deferred, max(required - deferred, 0), reserve
                )
            except LedgerError:
                if deferred:
                    self._shared[key] += deferred
                raise
            self._spare_ids.extend(ids)
            balance -= net
        for tx in txs:
            balance += tx.wallet_delta
            tx.wallet_balance_after = balance
        self._locked[key] = balance
        return self._reserve_ids(reserve) if reserve else []

    def _move_wallet(
        self, key: str, net: int, required: int, reserve: int
    ) -> tuple[int, list[int]]:
        """The guarded UPDATE of one wallet: its new balance, and ids reserved on the way.

        The guard lives in SQL: the row changes only if the funds are there, and the row
        lock the UPDATE takes keeps them there until commit.
        """
        reserve = max(reserve - len(self._spare_ids), 0)
        if self._postgres:
            # One statement shape for every move (a wallet is never below 0, so a guard of
            # 0 changes nothing), ids reserved in the same round trip.
            rows = direct.execute(
                self.session,
                _MOVE_WALLET,
                {"key": key, "net": net, "required": required, "reserve": reserve},
            )
            if not rows:
                raise (
                    InsufficientFunds(key, required)
                    if required
                    else LedgerError(f"no wallet {key}")
                )
            return int(rows[0][0]), [int(value) for value in rows[0][1]]
        stmt = (
            update(_ACCOUNTS)
            .where(_ACCOUNTS.c.key == key)
            .values(balance=_ACCOUNTS.c.balance + net)
            .returning(_ACCOUNTS.c.balance)
        )
        if required:
            stmt = stmt.where(_ACCOUNTS.c.balance >= required)
        row = self.session.execute(stmt).one_or_none()
        if row is None:
            if required:
                raise InsufficientFunds(key, required)
            raise LedgerError(f"no wallet {key}")
        return int(row[0]), []

    def _reserve_ids(self, count: int) -> list[int]:
        if self._postgres:
            taken, self._spare_ids = self._spare_ids[:count], self._spare_ids[count:]
            if len(taken) < count:
                ((values,),) = direct.execute(
                    self.session, _RESERVE_IDS, {"count": count - len(taken)}
                )
                taken += [int(value) for value in values]
            return taken
        # SQLite: the write transaction holds the database lock, so ids can simply follow
        # the chain; they equal the chain positions.
        if self._next_local_id is None:
            head_count = self.session.execute(select(_HEAD.c.count).where(_HEAD.c.id == 1))
            self._next_local_id = int(head_count.scalar_one()) + 1
        first = self._next_local_id
        self._next_local_id += count
        return list(range(first, first + count))

    def flush(self) -> list[PendingTransaction]:
        """Apply what is left and append the pending transactions to the hash chain."""
        self.apply_wallets()
        pending = self._pending
        if not pending:
            return []
        self.session.flush()  # rows the transactions refer to (rounds) must exist first
        try:
            if self._postgres:
                statement = self._append_statement()
                self.appended(direct.execute(self.session, statement.sql, statement.params))
                return pending
            self._append_python(pending)
        except (IntegrityError, LedgerError):
            # Most likely a shared account cached for a database that was since replaced.
            forget_system_accounts(self.session)
            raise
        self._done()
        return pending

    def append_statement(self, rows: Sequence[tuple[str, str]] = ()) -> direct.Statement | None:
        """PostgreSQL: apply what is left and return the append, for the caller to run (with
        the COMMIT) and to hand its rows to ``appended``; None when nothing is pending.

        ``rows`` (table, JSON object), tables in ``ROWS_APPENDED_WITH`` only: inserted by the
        same statement, before the append."""
        self.apply_wallets()
        return self._append_statement(rows) if self._pending else None

    def appended(self, rows: list[tuple[Any, ...]]) -> None:
        by_id = {int(row[0]): (int(row[1]), str(row[2])) for row in rows}
        for tx in self._pending:
            assert tx.id is not None
            tx.seq, tx.hash = by_id[tx.id]
        self._done()

    def _done(self) -> None:
        self._pending = []
        self._applied = 0
        self._shared = defaultdict(int)

    def _append_statement(self, rows: Sequence[tuple[str, str]] = ()) -> direct.Statement:
        pending = self._pending
        txs = [_tx_document(tx) | {"digest": tx.digest()} for tx in pending]
        legs = [
            {"transaction_id": tx.id, "leg": n, "account": leg.account, "amount": leg.amount}
            for tx in pending
            for n, leg in enumerate(tx.legs)
        ]
        shared = [{"key": k, "delta": d} for k, d in sorted(self._shared.items()) if d]
        params = {"txs": _json(txs), "legs": _json(legs), "shared": _json(shared)}
        if not rows:
            return direct.Statement(_APPEND, params)
        by_table: dict[str, list[str]] = defaultdict(list)
        for table, row in rows:
            if table not in ROWS_APPENDED_WITH:
                raise ValueError(f"ledger_commit does not insert into {table}")
            by_table[table].append(row)
        document = (
            "{"
            + ",".join(
                json.dumps(table) + ":[" + ",".join(items) + "]"
                for table, items in by_table.items()
            )
            + "}"
        )
        return direct.Statement(_COMMIT, params | {"rows": document})

    def _append_python(self, pending: list[PendingTransaction]) -> None:
        """The same append in several statements, for SQLite (which serialises writers)."""
        session = self.session
        head = session.execute(select(_HEAD.c.count, _HEAD.c.last_hash).where(_HEAD.c.id == 1))
        count, prev_hash = head.one()
        count = int(count)
        for key in sorted(self._shared):
            delta = self._shared[key]
            if not delta:
                continue
            moved = session.execute(
                update(_ACCOUNTS)
                .where(_ACCOUNTS.c.key == key)
                .values(balance=_ACCOUNTS.c.balance + delta)
            )
            if moved.rowcount != 1:  # type: ignore[attr-defined]
                raise LedgerError(f"unknown shared account {key}")
        keys = {leg.account for tx in pending for leg in tx.legs}
        ids = dict(
            session.execute(
                select(_ACCOUNTS.c.key, _ACCOUNTS.c.id).where(_ACCOUNTS.c.key.in_(keys))
            ).all()
        )
        if len(ids) != len(keys):
            raise LedgerError("unknown account in postings")
        tx_rows: list[dict[str, object]] = []
        posting_rows: list[dict[str, object]] = []
        for tx in pending:
            count += 1
            tx.seq = count
            tx.hash = link_hash(prev_hash, count, tx.digest())
            tx_rows.append(
                {
                    "id": tx.id,
                    "seq": tx.seq,
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
                {
                    "transaction_id": tx.id,
                    "leg": n,
                    "account_id": ids[leg.account],
                    "amount": leg.amount,
                }
                for n, leg in enumerate(tx.legs)
            )
            prev_hash = tx.hash
        session.execute(insert(_TRANSACTIONS), tx_rows)
        session.execute(insert(_POSTINGS), posting_rows)
        session.execute(
            update(_HEAD)
            .where(_HEAD.c.id == 1)
            .values(count=count, last_id=pending[-1].id, last_hash=prev_hash)
        )


_MOVE_WALLET = (
    "UPDATE accounts SET balance = balance + %(net)s "
    "WHERE key = %(key)s AND balance >= %(required)s "
    "RETURNING balance, ARRAY(SELECT nextval('ledger_transaction_id_seq') "
    "FROM generate_series(1, %(reserve)s))"
)


_RESERVE_IDS = (
    "SELECT ARRAY(SELECT nextval('ledger_transaction_id_seq') FROM generate_series(1, %(count)s))"
)


def _tx_document(tx: PendingTransaction) -> dict[str, Any]:
    return {
        "id": tx.id,
        "kind": tx.kind,
        "currency": tx.currency,
        "player_id": tx.player_id,
        "round_id": tx.round_id,
        "reference": tx.reference,
        "wallet_balance_after": tx.wallet_balance_after,
        "created_at": canonical_time(tx.created_at),
    }


def _json(value: object) -> str:
    return json.dumps(value, separators=(",", ":"))


def ledger_for(session: Session) -> Ledger:
    """The session's ledger (one per database transaction)."""
    ledger = session.info.get(_SESSION_KEY)
    if ledger is None:
        ledger = Ledger(session)
        session.info[_SESSION_KEY] = ledger
    return ledger


def current_ledger(session: Session) -> Ledger | None:
    """The session's ledger if this database transaction has used one."""
    ledger: Ledger | None = session.info.get(_SESSION_KEY)
    return ledger


@event.listens_for(Session, "before_commit")
def _append_on_commit(session: Session) -> None:
    ledger = session.info.get(_SESSION_KEY)
    if ledger is not None and ledger.has_pending:
        ledger.flush()


@event.listens_for(Session, "after_commit")
def _forget_after_commit(session: Session) -> None:
    session.info.pop(_SESSION_KEY, None)


@event.listens_for(Session, "after_rollback")
def _forget_on_rollback(session: Session) -> None:
    session.info.pop(_SESSION_KEY, None)
