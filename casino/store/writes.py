"""The writes of a unit of work that wait for its commit: new rounds and decisions, the
idempotency record, ledger transactions with their postings, and the wallet moves that go
with them.

On PostgreSQL they travel as one JSON document to ``casino_commit`` (migration 0004), sent in
the same network round trip as the COMMIT (casino.store.direct): one statement writes them
all, so the player's rows stay locked for one round trip after the use case is done, and
nothing else is locked at all. On SQLite, whose one writer holds the database anyway, the
same rows go in as plain statements. Either way the wallet moves are guarded by the database
(the wallet must still be at the chain position the use case linked to and hold what the
transactions draw) and a refusal names a constraint that ``conflicts`` can turn into a
domain error.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from casino.ledger.transactions import ChainedTransaction
from casino.store import direct
from casino.store.models import (
    AWAITING_DECISION,
    Account,
    IdempotencyRecord,
    LedgerTransaction,
    Posting,
    Round,
)
from casino.store.protection_models import CashReference, PlayerLimit, PlayerProtection
from casino.store.types import as_utc

_ACCOUNTS = cast(Table, Account.__table__)
_ROUNDS = cast(Table, Round.__table__)
_RECORDS = cast(Table, IdempotencyRecord.__table__)
_TRANSACTIONS = cast(Table, LedgerTransaction.__table__)
_POSTINGS = cast(Table, Posting.__table__)
_LIMITS = cast(Table, PlayerLimit.__table__)
_PROTECTION = cast(Table, PlayerProtection.__table__)
_CASH_REFERENCES = cast(Table, CashReference.__table__)

#: Constraint names a refused commit reports (besides the tables' own).
WALLET_GUARD = "wallet_guard"
ROUND_NOT_OPEN = "round_not_open"
LIMIT_GUARD = "limit_guard"
CASH_REFERENCE_USED = "pk_cash_references"

_COMMIT = "SELECT casino_commit(%(doc)s::json)"


@dataclass
class _WalletMove:
    id: int
    first: ChainedTransaction
    last: ChainedTransaction
    required: int  # what the wallet must hold before the first of its transactions

    def add(self, tx: ChainedTransaction) -> None:
        # Drawn so far before ``tx``, then what ``tx`` itself draws on top.
        drawn_before = self.first.before.balance - tx.before.balance
        self.required = max(self.required, drawn_before + tx.tx.required)
        self.last = tx


@dataclass
class PendingWrites:
    rounds: list[dict[str, Any]] = field(default_factory=list)
    round_updates: list[dict[str, Any]] = field(default_factory=list)
    records: list[tuple[dict[str, Any], str | None]] = field(default_factory=list)
    transactions: list[tuple[ChainedTransaction, int]] = field(default_factory=list)
    moves: dict[int, _WalletMove] = field(default_factory=dict)
    conflicts: dict[str, Callable[[], Exception]] = field(default_factory=dict)
    # Player protection (casino.store.protection): usage of money limits, the play session
    # of players with time limits, payment references.
    limit_usage: list[dict[str, Any]] = field(default_factory=list)
    sessions: list[dict[str, Any]] = field(default_factory=list)
    cash_references: list[dict[str, Any]] = field(default_factory=list)
    #: The operator of the transactions (a unit of work writes for one operator).
    operator_id: str | None = None

    def __bool__(self) -> bool:
        return bool(
            self.rounds
            or self.round_updates
            or self.records
            or self.transactions
            or self.limit_usage
            or self.sessions
            or self.cash_references
        )

    def add_transaction(self, tx: ChainedTransaction, wallet_id: int, operator_id: str) -> None:
        if self.operator_id not in (None, operator_id):
            raise ValueError("one unit of work writes the transactions of one operator")
        self.operator_id = operator_id
        self.transactions.append((tx, wallet_id))
        move = self.moves.get(wallet_id)
        if move is None:
            self.moves[wallet_id] = _WalletMove(wallet_id, tx, tx, tx.tx.required)
        else:
            move.add(tx)


def _tx_row(tx: ChainedTransaction, wallet_id: int, operator_id: str | None) -> dict[str, Any]:
    new = tx.tx
    return {
        "id": tx.id,
        "operator_id": operator_id,
        "kind": new.kind,
        "currency": new.currency,
        "player_id": new.player_id,
        "wallet_id": wallet_id,
        "round_id": new.round_id,
        "reference": new.reference,
        "wallet_balance_after": tx.wallet_balance_after,
        "created_at": new.created_at,
        "wallet_seq": tx.wallet_seq,
        "prev_hash": tx.prev_hash,
        "hash": tx.hash,
    }


def _posting_rows(tx: ChainedTransaction) -> list[dict[str, Any]]:
    return [
        {"transaction_id": tx.id, "leg": n, "account": leg.account, "amount": leg.amount}
        for n, leg in enumerate(tx.tx.legs)
    ]


def _move_row(move: _WalletMove) -> dict[str, Any]:
    return {
        "id": move.id,
        "delta": move.last.wallet_balance_after - move.first.before.balance,
        "required": move.required,
        "prev_length": move.first.wallet_seq - 1,
        "chain_length": move.last.wallet_seq,
        "chain_hash": move.last.hash,
    }


def _default(value: Any) -> str:
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("a timestamp without a time zone cannot be stored")
        return value.isoformat()
    raise TypeError(f"cannot store {type(value).__name__} in a JSON row")


# Built once: ``json.dumps`` with options builds an encoder per call, and a bet's commit
# document encodes a row per write.
_dumps = json.JSONEncoder(default=_default, separators=(",", ":")).encode


def _document(writes: PendingWrites) -> str:
    parts: list[str] = []

    def add(name: str, items: list[str]) -> None:
        if items:
            parts.append(f'"{name}":[' + ",".join(items) + "]")

    add("wallets", [_dumps(_move_row(move)) for move in writes.moves.values()])
    add("limit_usage", [_dumps(row) for row in writes.limit_usage])
    add("sessions", [_dumps(row) for row in writes.sessions])
    add("rounds", [_dumps(row) for row in writes.rounds])
    add("round_updates", [_dumps(row) for row in writes.round_updates])
    records = []
    for row, encoded in writes.records:
        if encoded is None:
            records.append(_dumps(row))
        else:  # the response's own JSON text, stored byte for byte
            head = _dumps({k: v for k, v in row.items() if k != "body"})
            records.append(head[:-1] + ',"body":' + encoded + "}")
    add("idempotency_records", records)
    operator = writes.operator_id
    add(
        "ledger_transactions",
        [_dumps(_tx_row(tx, wid, operator)) for tx, wid in writes.transactions],
    )
    add("postings", [_dumps(p) for tx, _ in writes.transactions for p in _posting_rows(tx)])
    add("cash_references", [_dumps(row) for row in writes.cash_references])
    return "{" + ",".join(parts) + "}"


def commit_postgres(session: Session, writes: PendingWrites) -> None:
    """Send the writes and COMMIT in one round trip."""
    statements = [direct.Statement(_COMMIT, {"doc": _document(writes)})] if writes else []
    direct.commit(session, statements)


def conflict_error(
    conflicts: Mapping[str, Callable[[], Exception]], error: IntegrityError
) -> Callable[[], Exception] | None:
    """The domain error a refused commit asks for, by the constraint it names."""
    name = constraint_of(error)
    return None if name is None else conflicts.get(name)


class GuardRefused(IntegrityError):
    """SQLite's stand-in for the constraint errors ``casino_commit`` raises."""

    def __init__(self, constraint: str) -> None:
        super().__init__(f"refused by {constraint}", None, Exception(constraint))
        self.constraint = constraint


def write_sqlite(session: Session, writes: PendingWrites) -> None:
    """The same writes as ``casino_commit``, as plain statements (SQLite)."""
    for move in writes.moves.values():
        row = _move_row(move)
        changed = session.execute(
            update(_ACCOUNTS)
            .where(
                _ACCOUNTS.c.id == row["id"],
                _ACCOUNTS.c.kind == "wallet",
                _ACCOUNTS.c.chain_length == row["prev_length"],
                _ACCOUNTS.c.balance >= row["required"],
            )
            .values(
                balance=_ACCOUNTS.c.balance + row["delta"],
                chain_length=row["chain_length"],
                chain_hash=row["chain_hash"],
            )
        )
        if changed.rowcount != 1:  # type: ignore[attr-defined]
            raise GuardRefused(WALLET_GUARD)
    for usage in writes.limit_usage:
        _count_usage_sqlite(session, usage)
    for row in writes.sessions:
        session.execute(
            update(_PROTECTION)
            .where(_PROTECTION.c.player_id == row["player_id"])
            .values({k: v for k, v in row.items() if k != "player_id"})
        )
    if writes.rounds:
        session.execute(insert(_ROUNDS), writes.rounds)
    for values in writes.round_updates:
        changed = session.execute(
            update(_ROUNDS)
            .where(_ROUNDS.c.id == values["id"], _ROUNDS.c.status == AWAITING_DECISION)
            .values({k: v for k, v in values.items() if k != "id"})
        )
        if changed.rowcount != 1:  # type: ignore[attr-defined]
            raise GuardRefused(ROUND_NOT_OPEN)
    if writes.records:
        session.execute(insert(_RECORDS), [row for row, _ in writes.records])
    if writes.transactions:
        session.execute(
            insert(_TRANSACTIONS),
            [
                _tx_row(tx, wid, writes.operator_id) | {"commit_seq": tx.id}
                for tx, wid in writes.transactions
            ],
        )
        postings = [p for tx, _ in writes.transactions for p in _posting_rows(tx)]
        keys = {p["account"] for p in postings}
        ids = dict(
            session.execute(
                select(_ACCOUNTS.c.key, _ACCOUNTS.c.id).where(_ACCOUNTS.c.key.in_(keys))
            ).all()
        )
        if len(ids) != len(keys):
            raise GuardRefused("unknown_account")
        session.execute(
            insert(_POSTINGS),
            [
                {
                    "transaction_id": p["transaction_id"],
                    "leg": p["leg"],
                    "account_id": ids[p["account"]],
                    "amount": p["amount"],
                }
                for p in postings
            ],
        )
    for row in writes.cash_references:
        used = session.execute(
            select(_CASH_REFERENCES.c.transaction_id).where(
                _CASH_REFERENCES.c.player_id == row["player_id"],
                _CASH_REFERENCES.c.kind == row["kind"],
                _CASH_REFERENCES.c.reference == row["reference"],
            )
        ).first()
        if used is not None:
            raise GuardRefused(CASH_REFERENCE_USED)
        session.execute(insert(_CASH_REFERENCES), row)


def _count_usage_sqlite(session: Session, usage: Mapping[str, Any]) -> None:
    """``casino_commit``'s limit usage section: add ``delta`` to the period's usage unless
    what the movement risks would take it past the limit in force."""
    key = (
        _LIMITS.c.player_id == usage["player_id"],
        _LIMITS.c.currency == usage["currency"],
        _LIMITS.c.kind == usage["kind"],
        _LIMITS.c.period == usage["period"],
    )
    row = session.execute(select(_LIMITS).where(*key)).one_or_none()
    if row is None:
        raise GuardRefused(LIMIT_GUARD)
    limit = row.amount
    if row.pending_at is not None and as_utc(row.pending_at) <= usage["as_of"]:
        limit = row.pending_amount
    used = row.used if as_utc(row.period_start) == usage["period_start"] else 0
    if usage["risk"] > 0 and limit is not None and used + usage["risk"] > limit:
        raise GuardRefused(LIMIT_GUARD)
    session.execute(
        update(_LIMITS)
        .where(*key)
        .values(used=used + usage["delta"], period_start=usage["period_start"])
    )


def constraint_of(error: IntegrityError) -> str | None:
    if isinstance(error, GuardRefused):
        return error.constraint
    return direct.constraint_name(error)
