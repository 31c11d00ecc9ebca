"""Which rows one export reads (casino.store.export): its ``Plan``.

A full export reads everything. A partial one reads a time range (``--since``/``--until``)
or everything after a checkpoint already verified (``--from-checkpoint N``, issue 24: the
next run of an incremental audit), and so that the checkpoints sealing what it holds can
still be checked, the checkpoint just before them (the anchor) and, for a time range, the
other transactions those checkpoints sealed (as bare leaves).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import ColumnElement, Table, and_, func, select, true
from sqlalchemy.orm import Session

from casino.ledger.checkpoints import Checkpoint
from casino.store.checkpoints import checkpoint_of
from casino.store.models import LedgerCheckpoint, LedgerTransaction

_TRANSACTIONS = cast(Table, LedgerTransaction.__table__)
_CHECKPOINTS = cast(Table, LedgerCheckpoint.__table__)


class NoSuchCheckpoint(LookupError):
    """``--from-checkpoint N`` names a checkpoint the operator's chain does not have."""


@dataclass(frozen=True)
class Plan:
    """What one export reads.

    ``since``/``until``: the time range (UTC, ``until`` excluded), both None for everything.
    Transaction rows are read for ``lo <= commit_seq < hi`` (None: unbounded); those created
    in the range are exported whole, the others only below ``sealed_until`` (as leaves of the
    checkpoints exported). Checkpoints ``first_seq`` .. ``last_seq`` are exported (None:
    from the first / to the last), ``anchor`` before them.
    """

    since: datetime | None
    until: datetime | None
    lo: int | None = None
    hi: int | None = None
    sealed_until: int | None = None
    first_seq: int | None = None
    last_seq: int | None = None
    anchor: Checkpoint | None = None
    transactions: bool = True
    #: ``--from-checkpoint``: the export holds every transaction from this commit_seq on
    #: (the anchor's ``commit_to``), whole, and no leaves.
    from_commit: int | None = None

    @property
    def partial(self) -> bool:
        return self.since is not None or self.until is not None or self.from_commit is not None

    @property
    def from_checkpoint(self) -> int | None:
        return self.anchor.seq if self.from_commit is not None and self.anchor else None

    def in_range(self, created_at: datetime, commit_seq: int) -> bool:
        if self.from_commit is not None:
            return commit_seq >= self.from_commit
        return (self.since is None or created_at >= self.since) and (
            self.until is None or created_at < self.until
        )


def created_in(table: Table, since: datetime | None, until: datetime | None) -> Any:
    condition: ColumnElement[bool] = true()
    if since is not None:
        condition = and_(condition, table.c.created_at >= since)
    if until is not None:
        condition = and_(condition, table.c.created_at < until)
    return condition


def plan(session: Session, operator: str, since: datetime | None, until: datetime | None) -> Plan:
    if since is None and until is None:
        return Plan(None, None)
    in_range = and_(
        _TRANSACTIONS.c.operator_id == operator, created_in(_TRANSACTIONS, since, until)
    )
    low, high = session.execute(
        select(func.min(_TRANSACTIONS.c.commit_seq), func.max(_TRANSACTIONS.c.commit_seq)).where(
            in_range
        )
    ).one()
    chain = _CHECKPOINTS.c.operator_id == operator
    if low is None:
        # Nothing in the range: no transaction rows, no checkpoints (seq 1 to 0).
        return Plan(since, until, first_seq=1, last_seq=0, transactions=False)
    low, high = int(low), int(high)
    first = _one_checkpoint(
        select(_CHECKPOINTS)
        .where(chain, _CHECKPOINTS.c.commit_to > low)
        .order_by(_CHECKPOINTS.c.seq)
        .limit(1),
        session,
    )
    if first is None:
        # Nothing in the range is sealed yet: the last checkpoint is where the chain stands.
        anchor = _one_checkpoint(
            select(_CHECKPOINTS).where(chain).order_by(_CHECKPOINTS.c.seq.desc()).limit(1),
            session,
        )
        return Plan(since, until, lo=low, hi=high + 1, anchor=anchor, first_seq=1, last_seq=0)
    last = _one_checkpoint(
        select(_CHECKPOINTS)
        .where(chain, _CHECKPOINTS.c.commit_from <= high)
        .order_by(_CHECKPOINTS.c.seq.desc())
        .limit(1),
        session,
    )
    assert last is not None  # ``first`` is one
    anchor = None
    if first.seq > 1:
        anchor = _one_checkpoint(
            select(_CHECKPOINTS).where(chain, _CHECKPOINTS.c.seq == first.seq - 1), session
        )
    return Plan(
        since,
        until,
        lo=first.commit_from,
        hi=max(high + 1, last.commit_to),
        sealed_until=last.commit_to,
        first_seq=first.seq,
        last_seq=last.seq,
        anchor=anchor,
    )


def _one_checkpoint(query: Any, session: Session) -> Checkpoint | None:
    row = session.execute(query).one_or_none()
    return None if row is None else checkpoint_of(row)


def plan_from_checkpoint(session: Session, operator: str, seq: int) -> Plan:
    """Everything after checkpoint ``seq`` (its anchor): the transactions from its
    ``commit_to`` on, whole, and the checkpoints after it."""
    anchor = _one_checkpoint(
        select(_CHECKPOINTS).where(
            _CHECKPOINTS.c.operator_id == operator, _CHECKPOINTS.c.seq == seq
        ),
        session,
    )
    if anchor is None:
        raise NoSuchCheckpoint(f"the ledger has no checkpoint {seq}")
    return Plan(
        None,
        None,
        lo=anchor.commit_to,
        first_seq=seq + 1,
        anchor=anchor,
        from_commit=anchor.commit_to,
    )


def transactions_in(table: Table, export: Plan) -> Any:
    """The condition on ``table`` (transactions, or their alias) of the rows in the range."""
    if export.from_commit is not None:
        return table.c.commit_seq >= export.from_commit
    return created_in(table, export.since, export.until)
