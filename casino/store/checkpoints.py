"""What the sealer reads and writes: the committed transactions not yet sealed, and the
checkpoints.

Which transactions can still appear below a point of the commit order decides what a
checkpoint may seal. Each transaction carries ``commit_seq``:
- PostgreSQL: the id of the database transaction that inserted it. At the sealer's snapshot
  every transaction id below ``pg_snapshot_xmin`` has finished, committed or rolled back, so
  no row with a ``commit_seq`` below it can ever appear: ``[last commit_to, xmin)`` is final
  and is what the next checkpoint seals. A request still running has a larger id; it is
  sealed by a later checkpoint.
- SQLite: the row id, which follows commit order because SQLite has one writer at a time;
  the sealer holds the write lock, so everything below ``max(id) + 1`` is final.
Two sealers racing (two hosts) both compute the same next ``seq``; the checkpoint's primary
key lets one insert it and the other finds it taken (PostgreSQL also tries an advisory lock
first, so the loser usually does no work at all).

Each operator has a chain of its own: everything here reads and writes the checkpoints and
transactions of the operator the unit of work acts for (casino.store.tenancy); the commit
order is the database's, shared, so the horizon is too.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple, cast

from sqlalchemy import Table, and_, func, or_, select
from sqlalchemy.exc import IntegrityError

from casino.ledger.accounts import WALLET
from casino.ledger.checkpoints import Checkpoint
from casino.store import direct
from casino.store.models import Account, LedgerCheckpoint, LedgerTransaction, Posting
from casino.store.records import TransactionRecord
from casino.store.repository import Repository
from casino.store.transaction_rows import grouped, legs_in_order, whole_transactions

_CHECKPOINTS = cast(Table, LedgerCheckpoint.__table__)
_TRANSACTIONS = cast(Table, LedgerTransaction.__table__)
_POSTINGS = cast(Table, Posting.__table__)
_ACCOUNTS = cast(Table, Account.__table__)
# One lock per operator's chain; the seed keeps it apart from other advisory locks.
_SEALER_LOCK = "SELECT pg_try_advisory_xact_lock(hashtextextended(%(operator)s, 7386923465417730))"
# The snapshot's bounds and the transactions it saw running (all databases of the cluster),
# and whether this role may see every session's transaction id in pg_stat_activity.
_SNAPSHOT = """
SELECT (pg_snapshot_xmin(s)::text)::bigint, (pg_snapshot_xmax(s)::text)::bigint,
    ARRAY(SELECT (x::text)::bigint FROM pg_snapshot_xip(s) AS x),
    (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
        OR pg_has_role(current_user, 'pg_read_all_stats', 'MEMBER')
FROM pg_current_snapshot() AS s
"""
#: Rows fetched at a time from the transactions a batch seals; wallets asked about at once.
_ROWS = 2_000
_WALLETS = 200
# Read after the snapshot: the transactions still running in this database.
_RUNNING_HERE = (
    "SELECT (backend_xid::text)::bigint FROM pg_stat_activity "
    "WHERE datname = current_database() AND backend_xid IS NOT NULL"
)


class Link(NamedTuple):
    """A transaction as the sealer sees it: its place in its wallet's chain and its hash.
    (A tuple: the sealer makes one per transaction it seals.)"""

    id: int
    wallet_id: int
    seq: int
    prev_hash: str
    hash: str
    commit_seq: int


def checkpoint_of(row: Any) -> Checkpoint:
    m = row._mapping
    return Checkpoint(
        seq=int(m["seq"]),
        commit_from=int(m["commit_from"]),
        commit_to=int(m["commit_to"]),
        tx_count=int(m["tx_count"]),
        total_count=int(m["total_count"]),
        root=str(m["root"]),
        balances={str(k): int(v) for k, v in dict(m["balances"]).items()},
        created_at=m["created_at"],
        prev_hash=str(m["prev_hash"]),
        hash=str(m["hash"]),
        key_id=str(m["key_id"]),
        signature=str(m["signature"]),
    )


class CheckpointStore(Repository):
    def _mine(self, table: Table) -> Any:
        """Rows of ``table`` of the operator's chain (one operator: raises without one)."""
        return table.c.operator_id == self.operator_id

    def try_lock(self) -> bool:
        """Whether this unit of work may seal the operator's chain now (another sealer
        holds it otherwise)."""
        operator = self.operator_id
        if self.postgres:
            return bool(direct.execute(self.session, _SEALER_LOCK, {"operator": operator})[0][0])
        return True  # the write lock of this transaction serialises sealers already

    def horizon(self) -> int:
        """The first ``commit_seq`` a transaction committed from now on can still have.

        PostgreSQL: the oldest transaction still running when the snapshot was taken, or
        the snapshot's end. Only this database's transactions matter, so those running in
        other databases of the cluster are left out when this role can see every session's
        transaction id; a running transaction of this database seen in the snapshot is
        either still listed in pg_stat_activity when read afterwards or has finished, and
        one that began after the snapshot has an id beyond its end. Without that right,
        the cluster-wide oldest is used: later, never wrong."""
        if self.postgres:
            ((xmin, xmax, running, sees_all),) = direct.execute(self.session, _SNAPSHOT, {})
            if not sees_all:
                return int(xmin)
            here = {int(x) for (x,) in direct.execute(self.session, _RUNNING_HERE, {})}
            mine = [int(x) for x in running if int(x) % 2**32 in here]
            return min([int(xmax), *mine])
        # SQLite: commit_seq is the row id, the primary key's maximum.
        last = self.session.execute(select(func.max(_TRANSACTIONS.c.id))).scalar()
        return int(last or 0) + 1

    def last(self) -> Checkpoint | None:
        row = self.session.execute(
            select(_CHECKPOINTS)
            .where(self._mine(_CHECKPOINTS))
            .order_by(_CHECKPOINTS.c.seq.desc())
            .limit(1)
        ).one_or_none()
        return None if row is None else checkpoint_of(row)

    def batch_end(self, commit_from: int, horizon: int, most: int) -> int:
        """Where a batch from ``commit_from`` ends: at ``horizon``, or earlier so that it holds
        about ``most`` transactions (never splitting one database transaction's rows)."""
        beyond = self.session.execute(
            select(_TRANSACTIONS.c.commit_seq)
            .where(
                self._mine(_TRANSACTIONS),
                _TRANSACTIONS.c.commit_seq >= commit_from,
                _TRANSACTIONS.c.commit_seq < horizon,
            )
            .order_by(_TRANSACTIONS.c.commit_seq)
            .offset(most)
            .limit(1)
        ).scalar()
        if beyond is None or int(beyond) <= commit_from:
            return horizon
        return int(beyond)

    def leaves(self, commit_from: int, commit_to: int) -> list[tuple[int, str]]:
        """(id, hash) of the transactions in ``[commit_from, commit_to)``, in commit order."""
        rows = self.session.execute(
            select(_TRANSACTIONS.c.id, _TRANSACTIONS.c.hash)
            .where(
                self._mine(_TRANSACTIONS),
                _TRANSACTIONS.c.commit_seq >= commit_from,
                _TRANSACTIONS.c.commit_seq < commit_to,
            )
            .order_by(_TRANSACTIONS.c.commit_seq, _TRANSACTIONS.c.id)
        )
        return [(int(tx_id), str(tx_hash)) for tx_id, tx_hash in rows]

    def movements(self, commit_from: int, commit_to: int) -> list[tuple[str, int]]:
        """What the batch's postings moved on each shared account."""
        rows = self.session.execute(
            select(_ACCOUNTS.c.key, func.sum(_POSTINGS.c.amount))
            .select_from(_POSTINGS)
            .join(_TRANSACTIONS, _TRANSACTIONS.c.id == _POSTINGS.c.transaction_id)
            .join(_ACCOUNTS, _ACCOUNTS.c.id == _POSTINGS.c.account_id)
            .where(
                self._mine(_TRANSACTIONS),
                _TRANSACTIONS.c.commit_seq >= commit_from,
                _TRANSACTIONS.c.commit_seq < commit_to,
                _ACCOUNTS.c.kind != WALLET,
            )
            .group_by(_ACCOUNTS.c.key)
        )
        return [(str(key), int(total)) for key, total in rows]

    def add(self, checkpoint: Checkpoint) -> bool:
        """Insert the checkpoint; False if another sealer took its place first."""
        values = {
            "operator_id": self.operator_id,
            "seq": checkpoint.seq,
            "commit_from": checkpoint.commit_from,
            "commit_to": checkpoint.commit_to,
            "tx_count": checkpoint.tx_count,
            "total_count": checkpoint.total_count,
            "root": checkpoint.root,
            "balances": dict(checkpoint.balances),
            "created_at": checkpoint.created_at,
            "prev_hash": checkpoint.prev_hash,
            "hash": checkpoint.hash,
            "key_id": checkpoint.key_id,
            "signature": checkpoint.signature,
        }
        try:
            with self.session.begin_nested():
                self.session.execute(_CHECKPOINTS.insert().values(values))
        except IntegrityError:
            return False
        return True

    def page(self, after_seq: int, limit: int) -> list[Checkpoint]:
        rows = self.session.execute(
            select(_CHECKPOINTS)
            .where(self._mine(_CHECKPOINTS), _CHECKPOINTS.c.seq > after_seq)
            .order_by(_CHECKPOINTS.c.seq)
            .limit(limit)
        )
        return [checkpoint_of(row) for row in rows]

    def get(self, seq: int) -> Checkpoint | None:
        row = self.session.execute(
            select(_CHECKPOINTS).where(self._mine(_CHECKPOINTS), _CHECKPOINTS.c.seq == seq)
        ).one_or_none()
        return None if row is None else checkpoint_of(row)

    def sealing(self, tx_id: int) -> Checkpoint | None:
        """The checkpoint that sealed transaction ``tx_id``, if one has."""
        commit_seq = self.session.execute(
            select(_TRANSACTIONS.c.commit_seq).where(
                self._mine(_TRANSACTIONS), _TRANSACTIONS.c.id == tx_id
            )
        ).scalar()
        if commit_seq is None:
            return None
        return self.covering(int(commit_seq))

    def all(self) -> Iterator[Checkpoint]:
        query = select(_CHECKPOINTS).where(self._mine(_CHECKPOINTS)).order_by(_CHECKPOINTS.c.seq)
        for row in self.session.execute(query):
            yield checkpoint_of(row)

    # --- what the sealer checks before it signs (casino.service.sealing) ----------------

    def links(self, commit_from: int, commit_to: int) -> Iterator[Link]:
        """The chain links of the transactions in ``[commit_from, commit_to)``, in commit
        order: what a checkpoint of that range seals (``Link``)."""
        t = _TRANSACTIONS
        query = (
            select(t.c.id, t.c.wallet_id, t.c.wallet_seq, t.c.prev_hash, t.c.hash, t.c.commit_seq)
            .where(self._mine(t), t.c.commit_seq >= commit_from, t.c.commit_seq < commit_to)
            .order_by(t.c.commit_seq, t.c.id)
        )
        for row in self.session.execute(query.execution_options(yield_per=_ROWS)):
            yield Link(int(row[0]), int(row[1]), int(row[2]), row[3], row[4], int(row[5]))

    def sealed_since(
        self, positions: Sequence[tuple[int, int]], sealed_until: int
    ) -> list[TransactionRecord]:
        """For each ``(wallet_id, seq)``: the wallet's transactions from position ``seq`` on
        that lie below ``sealed_until`` (sealed already), whole."""
        t = _TRANSACTIONS
        found: list[TransactionRecord] = []
        for start in range(0, len(positions), _WALLETS):
            chunk = positions[start : start + _WALLETS]
            query = (
                whole_transactions()
                .where(
                    self._mine(t),
                    t.c.commit_seq < sealed_until,
                    or_(*(and_(t.c.wallet_id == w, t.c.wallet_seq >= seq) for w, seq in chunk)),
                )
                .order_by(t.c.id, legs_in_order)
            )
            found.extend(grouped(self.session.execute(query)))
        return found

    def link(self, wallet_id: int, seq: int) -> TransactionRecord | None:
        """The transaction at position ``seq`` of a wallet's chain, whole."""
        t = _TRANSACTIONS
        query = (
            whole_transactions()
            .where(self._mine(t), t.c.wallet_id == wallet_id, t.c.wallet_seq == seq)
            .order_by(t.c.id, legs_in_order)
        )
        return next(grouped(self.session.execute(query)), None)

    def covering(self, commit_seq: int) -> Checkpoint | None:
        """The checkpoint whose range holds ``commit_seq``, if one does."""
        row = self.session.execute(
            select(_CHECKPOINTS).where(
                self._mine(_CHECKPOINTS),
                _CHECKPOINTS.c.commit_from <= commit_seq,
                _CHECKPOINTS.c.commit_to > commit_seq,
            )
        ).one_or_none()
        return None if row is None else checkpoint_of(row)
