"""What the ledger export reads (docs/audit.md): one snapshot, every section streamed.

The export must read the books as they stood at one moment, however long it runs, and in
constant memory however large they are:
- one snapshot: REPEATABLE READ (and READ ONLY) on PostgreSQL; on SQLite the export's
  transaction holds the database, so it sees no writer either (writers wait for it);
- rows streamed: every large query runs with ``yield_per``, which is a server-side cursor on
  PostgreSQL (psycopg's named cursor, fetched in batches) and SQLite's lazy cursor; other
  small queries run beside an open cursor on the same connection; checkpoints are read a
  page at a time.

A partial export (since/until) holds the transactions created in that time range. So that
the checkpoints sealing them can still be checked, it also reads the other transactions
those checkpoints sealed (the exporter writes them as bare leaves) and the checkpoint just
before them (the anchor); and each wallet's chain state just before its first transaction in
the range (its opening).

An export is one operator's (casino.store.tenancy): its accounts, transactions, rounds, seeds
and chain of checkpoints, nothing of another operator's, so that it verifies on its own.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Container, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, and_, exists, func, literal, select
from sqlalchemy.orm import Session

from casino.ledger.accounts import WALLET
from casino.ledger.checkpoints import Checkpoint
from casino.store.checkpoints import checkpoint_of
from casino.store.export_plan import Plan, created_in, plan, plan_from_checkpoint, transactions_in
from casino.store.export_shared import SharedBetExport, SharedShoeExport, shared_bets
from casino.store.models import (
    Account,
    LedgerCheckpoint,
    LedgerTransaction,
    Player,
    Posting,
    Round,
    ServerSeed,
)
from casino.store.records import ROUND_COLUMNS, RoundRecord, TransactionRecord
from casino.store.repository import Repository
from casino.store.transaction_rows import grouped, legs_in_order, whole_transactions

_ACCOUNTS = cast(Table, Account.__table__)
_TRANSACTIONS = cast(Table, LedgerTransaction.__table__)
_POSTINGS = cast(Table, Posting.__table__)
_CHECKPOINTS = cast(Table, LedgerCheckpoint.__table__)
_ROUNDS = cast(Table, Round.__table__)
_SEEDS = cast(Table, ServerSeed.__table__)
_PLAYERS = cast(Table, Player.__table__)
#: Rows fetched per round trip from a server-side cursor.
BATCH = 2_000
_CHECKPOINT_PAGE = 500
#: The kinds of transaction a round is placed with (its first transaction).
OPENERS = ("bet", "stake")


def begin(session: Session) -> None:
    """Start the export's transaction and take its snapshot now (the first statement takes
    it on PostgreSQL, REPEATABLE READ and read-only; on SQLite the transaction takes the
    database's lock). Call it before anything else is read."""
    if not session.in_transaction() and session.get_bind().dialect.name == "postgresql":
        session.connection(
            execution_options={"isolation_level": "REPEATABLE READ", "postgresql_readonly": True}
        )
    session.execute(select(literal(1)))


# --- accounts and seeds ----------------------------------------------------------------


@dataclass(frozen=True)
class WalletState:
    balance: int
    chain_length: int
    chain_hash: str


@dataclass(frozen=True)
class AccountRecord:
    id: int
    key: str
    kind: str
    currency: str
    player_id: str | None
    head: WalletState | None  # wallets: balance and chain head in the snapshot
    opening: WalletState | None  # a partial export's wallets: the chain before the range


def accounts(session: Session, operator: str, export: Plan) -> Iterator[AccountRecord]:
    """Every account, in id order; wallets with their heads (and, in a partial export, the
    state of their chains just before their first transaction in the range)."""
    a = _ACCOUNTS
    columns: list[Any] = [a]
    query: Any
    if export.partial and export.transactions:
        openings = _openings(operator, export)
        columns += [openings.c.length, openings.c.prev_hash, openings.c.balance_before]
        query = select(*columns).outerjoin(openings, openings.c.wallet_id == a.c.id)
    else:
        query = select(*columns)
    query = query.where(a.c.operator_id == operator)
    for row in session.execute(query.order_by(a.c.id).execution_options(yield_per=BATCH)):
        m: Any = row._mapping
        wallet = m["kind"] == WALLET
        opening = None
        if export.partial and export.transactions and m["length"] is not None:
            opening = WalletState(int(m["balance_before"]), int(m["length"]), m["prev_hash"])
        yield AccountRecord(
            id=int(m["id"]),
            key=m["key"],
            kind=m["kind"],
            currency=m["currency"],
            player_id=m["player_id"],
            head=WalletState(int(m["balance"]), int(m["chain_length"]), m["chain_hash"])
            if wallet
            else None,
            opening=opening,
        )


def _openings(operator: str, export: Plan) -> Any:
    """Per wallet, where its chain stood before its first transaction in the range: that
    transaction's previous link, position, and balance before its own postings."""
    t = _TRANSACTIONS
    firsts = (
        select(t.c.wallet_id, func.min(t.c.wallet_seq).label("seq"))
        .where(t.c.operator_id == operator, transactions_in(t, export))
        .group_by(t.c.wallet_id)
        .subquery()
    )
    first = t.alias("first_tx")
    own_postings = (
        select(func.coalesce(func.sum(_POSTINGS.c.amount), 0))
        .where(
            _POSTINGS.c.transaction_id == first.c.id,
            _POSTINGS.c.account_id == first.c.wallet_id,
        )
        .scalar_subquery()
    )
    return (
        select(
            first.c.wallet_id,
            (first.c.wallet_seq - 1).label("length"),
            first.c.prev_hash,
            (first.c.wallet_balance_after - own_postings).label("balance_before"),
        )
        .join(
            firsts,
            and_(firsts.c.wallet_id == first.c.wallet_id, firsts.c.seq == first.c.wallet_seq),
        )
        .subquery()
    )


def _rounds_in(operator: str, export: Plan) -> Any:
    """The rounds of the range: created in it, or (after a checkpoint) with a transaction in
    it, so that a round placed before and decided after comes with its seed."""
    if export.from_commit is None:
        return created_in(_ROUNDS, export.since, export.until)
    t = _TRANSACTIONS
    return _ROUNDS.c.id.in_(
        select(t.c.round_id).where(
            t.c.operator_id == operator, t.c.commit_seq >= export.from_commit
        )
    )


@dataclass(frozen=True)
class SeedRecord:
    id: int
    player_id: str
    seed_hash: str
    revealed: str | None  # hex, only once the seed is retired and revealed
    first_nonce: int
    next_nonce: int
    created_at: datetime
    revealed_at: datetime | None


def seeds(session: Session, operator: str, export: Plan) -> Iterator[SeedRecord]:
    """The server seeds of the exported rounds (every seed of the operator's players in a
    full export), in id order. An active seed's value never leaves here: only its
    commitment."""
    s = _SEEDS
    players = select(_PLAYERS.c.id).where(_PLAYERS.c.operator_id == operator)
    query = select(s).where(s.c.player_id.in_(players))
    if export.partial:
        used = select(_ROUNDS.c.server_seed_id).where(
            _ROUNDS.c.operator_id == operator, _rounds_in(operator, export)
        )
        query = query.where(s.c.id.in_(used))
    for row in session.execute(query.order_by(s.c.id).execution_options(yield_per=BATCH)):
        m: Any = row._mapping
        revealed = not m["active"] and m["revealed_at"] is not None
        yield SeedRecord(
            id=int(m["id"]),
            player_id=m["player_id"],
            seed_hash=m["seed_hash"],
            revealed=bytes(m["seed"]).hex() if revealed else None,
            first_nonce=int(m["first_nonce"]),
            next_nonce=int(m["next_nonce"]),
            created_at=m["created_at"],
            revealed_at=m["revealed_at"],
        )


# --- transactions, rounds, checkpoints -------------------------------------------------


def transactions(session: Session, operator: str, export: Plan) -> Iterator[TransactionRecord]:
    """The transaction rows of the export in commit order (commit_seq, then id), each with
    its postings (account keys; None for an account that does not exist)."""
    t = _TRANSACTIONS
    query = whole_transactions().where(t.c.operator_id == operator)
    if export.lo is not None:
        query = query.where(t.c.commit_seq >= export.lo)
    if export.hi is not None:
        query = query.where(t.c.commit_seq < export.hi)
    query = query.order_by(t.c.commit_seq, t.c.id, legs_in_order)
    yield from grouped(session.execute(query.execution_options(yield_per=BATCH)))


@dataclass(frozen=True)
class RoundExport:
    """A round as the export writes it: the record, its seed's commitment, its transactions
    and which of them placed it (the one its line goes before)."""

    round: RoundRecord
    seed_hash: str
    transaction_ids: list[int] = field(default_factory=list)
    opener_id: int | None = None
    #: Each of ``transaction_ids``'s (commit_seq, id): where the round's first line goes in
    #: an export from a checkpoint (before its first transaction there).
    transaction_order: list[tuple[int, int]] = field(default_factory=list)


def _round_exports(session: Session, operator: str, query: Any) -> list[RoundExport]:
    rows = session.execute(
        query.add_columns(_SEEDS.c.seed_hash).join(_SEEDS, _SEEDS.c.id == _ROUNDS.c.server_seed_id)
    ).all()
    if not rows:
        return []
    records = []
    for row in rows:
        m: Any = row._mapping
        # Times come aware and in UTC from their column type (UTCDateTime).
        records.append((RoundRecord(**{name: m[name] for name in ROUND_COLUMNS}), m["seed_hash"]))
    ids: dict[str, list[int]] = defaultdict(list)
    order: dict[str, list[tuple[int, int]]] = defaultdict(list)
    openers: dict[str, int] = {}
    found = session.execute(
        select(
            _TRANSACTIONS.c.round_id,
            _TRANSACTIONS.c.id,
            _TRANSACTIONS.c.kind,
            _TRANSACTIONS.c.commit_seq,
        )
        .where(
            _TRANSACTIONS.c.operator_id == operator,
            _TRANSACTIONS.c.round_id.in_([record.id for record, _ in records]),
        )
        .order_by(_TRANSACTIONS.c.round_id, _TRANSACTIONS.c.id)
    )
    for round_id, tx_id, kind, commit_seq in found:
        ids[round_id].append(int(tx_id))
        order[round_id].append((int(commit_seq), int(tx_id)))
        if kind in OPENERS:
            openers.setdefault(round_id, int(tx_id))
    return [
        RoundExport(
            record,
            seed_hash,
            ids.get(record.id, []),
            openers.get(record.id),
            sorted(order.get(record.id, [])),
        )
        for record, seed_hash in records
    ]


def rounds(session: Session, operator: str, round_ids: Sequence[str]) -> dict[str, RoundExport]:
    """The rounds of these ids (those of the operator that exist), with their transactions."""
    if not round_ids:
        return {}
    query = select(_ROUNDS).where(
        _ROUNDS.c.operator_id == operator, _ROUNDS.c.id.in_(list(round_ids))
    )
    return {found.round.id: found for found in _round_exports(session, operator, query)}


def unplaced_rounds(session: Session, operator: str, export: Plan) -> Iterator[RoundExport]:
    """Rounds of the range that no bet or stake transaction placed (the books are broken:
    the export still shows them, so the verifier can say so), in creation order."""
    placed = exists().where(
        _TRANSACTIONS.c.round_id == _ROUNDS.c.id, _TRANSACTIONS.c.kind.in_(OPENERS)
    )
    query = (
        select(_ROUNDS)
        .where(
            _ROUNDS.c.operator_id == operator,
            _rounds_in(operator, export)
            if export.from_commit is None
            else _ROUNDS.c.created_at >= export.anchor.created_at,  # type: ignore[union-attr]
            ~placed,
        )
        .order_by(_ROUNDS.c.created_at, _ROUNDS.c.id)
    )
    after: tuple[datetime, str] | None = None
    while True:
        page = query
        if after is not None:
            page = page.where(
                (_ROUNDS.c.created_at > after[0])
                | ((_ROUNDS.c.created_at == after[0]) & (_ROUNDS.c.id > after[1]))
            )
        found = _round_exports(session, operator, page.limit(_CHECKPOINT_PAGE))
        yield from found
        if len(found) < _CHECKPOINT_PAGE:
            return
        last = found[-1].round
        after = (last.created_at, last.id)


def checkpoints(session: Session, operator: str, export: Plan) -> Iterator[Checkpoint]:
    """The checkpoints of the export in sequence order, a page at a time."""
    after = 0 if export.first_seq is None else export.first_seq - 1
    while True:
        query = select(_CHECKPOINTS).where(
            _CHECKPOINTS.c.operator_id == operator, _CHECKPOINTS.c.seq > after
        )
        if export.last_seq is not None:
            query = query.where(_CHECKPOINTS.c.seq <= export.last_seq)
        page = [
            checkpoint_of(row)
            for row in session.execute(query.order_by(_CHECKPOINTS.c.seq).limit(_CHECKPOINT_PAGE))
        ]
        yield from page
        if len(page) < _CHECKPOINT_PAGE:
            return
        after = page[-1].seq


class ExportStore(Repository):
    """The export's reads on its unit of work (``uow.export``): call ``begin`` first, then
    ``plan``, then read the sections in order; every one reads the snapshot ``begin`` took."""

    def begin(self) -> None:
        begin(self.session)

    def operator(self) -> str:
        """Whose export this is (the one operator the unit of work acts for)."""
        return self.operator_id

    def plan(self, since: datetime | None, until: datetime | None) -> Plan:
        return plan(self.session, self.operator_id, since, until)

    def plan_from_checkpoint(self, seq: int) -> Plan:
        """Everything after checkpoint ``seq`` (``NoSuchCheckpoint`` if there is none)."""
        return plan_from_checkpoint(self.session, self.operator_id, seq)

    def accounts(self, export: Plan) -> Iterator[AccountRecord]:
        return accounts(self.session, self.operator_id, export)

    def seeds(self, export: Plan) -> Iterator[SeedRecord]:
        return seeds(self.session, self.operator_id, export)

    def transactions(self, export: Plan) -> Iterator[TransactionRecord]:
        return transactions(self.session, self.operator_id, export)

    def rounds(self, round_ids: Sequence[str]) -> dict[str, RoundExport]:
        return rounds(self.session, self.operator_id, round_ids)

    def unplaced_rounds(self, export: Plan) -> Iterator[RoundExport]:
        return unplaced_rounds(self.session, self.operator_id, export)

    def checkpoints(self, export: Plan) -> Iterator[Checkpoint]:
        return checkpoints(self.session, self.operator_id, export)

    def shared_bets(
        self,
        *,
        transaction_ids: Container[int] | None,
        revealed_since: datetime | None,
        revealed_until: datetime | None,
    ) -> Iterator[tuple[SharedShoeExport, SharedBetExport]]:
        return shared_bets(
            self.session,
            self.operator_id,
            transaction_ids=transaction_ids,
            revealed_since=revealed_since,
            revealed_until=revealed_until,
        )
