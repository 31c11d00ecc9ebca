"""The whole ledger read for the audit, in one consistent snapshot (casino.ledger.audit).

On PostgreSQL the reads share one REPEATABLE READ snapshot, so the audit can run beside live
traffic without seeing half of a request; on SQLite the transaction holds the database lock,
with the same effect. Rows are read through Core, not the ORM: an audit reads every row.

Each operator's books are read apart (its accounts, transactions with all their postings,
checkpoint chain, open stakes and rounds): an operator's ledger must balance on its own, and
a posting to another operator's account shows as one to an account its books do not know.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, Text, and_, select
from sqlalchemy import cast as sql_cast
from sqlalchemy.orm import Session

from casino.engine.casino_war import TableRules
from casino.ledger.audit import AccountRow, Books, RoundRowForAudit, TransactionRow
from casino.ledger.audit_rounds import open_stake
from casino.store.checkpoints import checkpoint_of
from casino.store.models import (
    AWAITING_DECISION,
    Account,
    LedgerCheckpoint,
    LedgerTransaction,
    Player,
    Posting,
    Round,
    ServerSeed,
)
from casino.store.operator_models import Operator

_ACCOUNTS = cast(Table, Account.__table__)
_TRANSACTIONS = cast(Table, LedgerTransaction.__table__)
_POSTINGS = cast(Table, Posting.__table__)
_CHECKPOINTS = cast(Table, LedgerCheckpoint.__table__)
_ROUNDS = cast(Table, Round.__table__)
_SEEDS = cast(Table, ServerSeed.__table__)
_PLAYERS = cast(Table, Player.__table__)
_OPERATORS = cast(Table, Operator.__table__)
_BATCH = 5_000


def begin_snapshot(session: Session) -> None:
    """Make the session's next transaction read one snapshot (PostgreSQL)."""
    if not session.in_transaction() and session.get_bind().dialect.name == "postgresql":
        session.connection(execution_options={"isolation_level": "REPEATABLE READ"})


def operator_ids(session: Session) -> list[str]:
    return [str(i) for i in session.scalars(select(_OPERATORS.c.id).order_by(_OPERATORS.c.id))]


def read_books(session: Session, operator: str, *, rounds_since: datetime | None = None) -> Books:
    """``operator``'s books (call ``begin_snapshot`` first to read several in one snapshot)."""
    begin_snapshot(session)
    t = _TRANSACTIONS
    accounts = {
        int(row.id): AccountRow(
            id=int(row.id),
            key=row.key,
            kind=row.kind,
            currency=row.currency,
            player_id=row.player_id,
            balance=None if row.balance is None else int(row.balance),
            chain_length=int(row.chain_length),
            chain_hash=row.chain_hash,
        )
        for row in session.execute(select(_ACCOUNTS).where(_ACCOUNTS.c.operator_id == operator))
    }
    # Every posting of the operator's transactions, and those of no transaction at all that
    # post to one of its accounts (``orphan_postings``).
    p = _POSTINGS
    legs = select(p.c.transaction_id, p.c.leg, p.c.account_id, p.c.amount)
    mine = legs.join(t, and_(t.c.id == p.c.transaction_id, t.c.operator_id == operator))
    orphans = legs.join(
        _ACCOUNTS, and_(_ACCOUNTS.c.id == p.c.account_id, _ACCOUNTS.c.operator_id == operator)
    ).where(~select(t.c.id).where(t.c.id == p.c.transaction_id).exists())
    postings: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
    for query in (mine, orphans):
        rows = session.execute(query.order_by(p.c.transaction_id, p.c.leg))
        for tx_id, leg, account_id, amount in rows:
            postings[int(tx_id)].append((int(leg), int(account_id), int(amount)))
    transactions = [
        TransactionRow(
            id=int(row.id),
            kind=row.kind,
            currency=row.currency,
            player_id=row.player_id,
            wallet_id=int(row.wallet_id),
            round_id=row.round_id,
            reference=row.reference,
            wallet_balance_after=int(row.wallet_balance_after),
            created_at=row.created_at,
            wallet_seq=int(row.wallet_seq),
            prev_hash=row.prev_hash,
            hash=row.hash,
            commit_seq=int(row.commit_seq),
            postings=postings.pop(int(row.id), []),
        )
        for row in session.execute(select(t).where(t.c.operator_id == operator).order_by(t.c.id))
    ]
    checkpoints = [
        checkpoint_of(row)
        for row in session.execute(
            select(_CHECKPOINTS)
            .where(_CHECKPOINTS.c.operator_id == operator)
            .order_by(_CHECKPOINTS.c.seq)
        )
    ]
    # Open rounds are few: what each holds in play is summed here (a round of several hands
    # holds its unsettled bets, not every ante: ``open_stake``).
    open_stakes: dict[str, int] = {}
    for currency, ante, hands in session.execute(
        select(_ROUNDS.c.currency, _ROUNDS.c.ante, _ROUNDS.c.hands).where(
            _ROUNDS.c.status == AWAITING_DECISION, _ROUNDS.c.operator_id == operator
        )
    ):
        held = open_stake(int(ante), hands)
        open_stakes[str(currency)] = open_stakes.get(str(currency), 0) + held
    return Books(
        accounts=accounts,
        open_stakes=open_stakes,
        transactions=transactions,
        checkpoints=checkpoints,
        rounds=_rounds(session, operator, rounds_since),
        rounds_since=rounds_since,
        orphan_postings=sorted(postings),
    )


# A round's rules and war as the stored JSON text: tables have few distinct rule sets, so
# each is parsed once, not once per round.
_ROUND_COLUMNS = [
    column
    if column.name not in ("rules", "war", "hands")
    else sql_cast(column, Text).label(column.name)
    for column in _ROUNDS.columns
    if column.name
    not in (
        "created_at",
        "settled_at",
        "decided_by",
        "balance_after",
        "operator_id",
        "decision_deadline",
    )
]


def _rounds(session: Session, operator: str, since: datetime | None) -> Iterator[RoundRowForAudit]:
    """Every round of the operator with its server seed, streamed in batches (an audit may
    replay millions). Rounds before ``since`` are left out of the replay; the books checks
    stay whole."""
    seeds = {
        int(i): bytes(s)
        for i, s in session.execute(
            select(_SEEDS.c.id, _SEEDS.c.seed)
            .join(_PLAYERS, _PLAYERS.c.id == _SEEDS.c.player_id)
            .where(_PLAYERS.c.operator_id == operator)
        )
    }
    rules: dict[str, TableRules] = {}
    query = (
        select(*_ROUND_COLUMNS)
        .where(_ROUNDS.c.operator_id == operator)
        .order_by(_ROUNDS.c.created_at, _ROUNDS.c.id)
    )
    if since is not None:
        query = query.where(_ROUNDS.c.created_at >= since)
    result = session.execute(query.execution_options(yield_per=_BATCH))
    for row in result:
        m: Any = row._mapping
        text = m["rules"]
        parsed = rules.get(text)
        if parsed is None:
            parsed = rules[text] = TableRules.from_dict(json.loads(text))
        yield RoundRowForAudit(
            id=m["id"],
            player_id=m["player_id"],
            currency=m["currency"],
            rules=parsed,
            status=m["status"],
            server_seed=seeds.get(int(m["server_seed_id"]), b""),
            client_seed=m["client_seed"],
            nonce=int(m["nonce"]),
            ante=int(m["ante"]),
            tie_bet=int(m["tie_bet"]),
            raise_amount=int(m["raise_amount"]),
            player_card=m["player_card"],
            dealer_card=m["dealer_card"],
            war=None if m["war"] is None else json.loads(m["war"]),
            decision=m["decision"],
            ante_payout=int(m["ante_payout"]),
            tie_bet_payout=int(m["tie_bet_payout"]),
            raise_payout=int(m["raise_payout"]),
            net=int(m["net"]),
            war_tie_bet=int(m["war_tie_bet"]),
            war_tie_bet_payout=int(m["war_tie_bet_payout"]),
            hands=None if m["hands"] is None else json.loads(m["hands"]),
        )
