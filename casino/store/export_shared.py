"""What the ledger export reads of shared tables (docs/audit.md, "Shared tables"): each shoe
a bet of the export was placed on, and the bets, ordered by table, shoe, round and player.

A full export holds every bet. A partial one holds the bets with a transaction in it, and
every bet of a shoe revealed within it (``revealed_since``), so that a bet whose money lay in
an earlier part is re-dealt in the part that reveals its shoe.
"""

from __future__ import annotations

from collections.abc import Container, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, and_, select
from sqlalchemy.orm import Session

from casino.store.shared_models import SharedBetRow, SharedShoeRow, SharedTable

_TABLES = cast(Table, SharedTable.__table__)
_BETS = cast(Table, SharedBetRow.__table__)
_SHOES = cast(Table, SharedShoeRow.__table__)
_BATCH = 1000


@dataclass(frozen=True)
class SharedShoeExport:
    table_id: str
    shoe: int
    commitment: str
    seed: str | None
    rules: dict[str, Any]
    chain_commitment: str
    chain_length: int
    public_value: dict[str, Any]
    revealed_at: datetime | None


@dataclass(frozen=True)
class SharedBetExport:
    id: str
    table_id: str
    shoe: int
    round: int
    player_id: str
    currency: str
    status: str
    ante: int
    tie_bet: int
    raise_amount: int
    war_tie_bet: int
    decision: str | None
    decided_by: str | None
    payouts: dict[str, Any] | None
    returned: int | None
    net: int | None
    transaction_ids: list[int]


_BET_COLUMNS = [c.name for c in _BETS.columns if c.name in SharedBetExport.__dataclass_fields__]


def shared_bets(
    session: Session,
    operator_id: str,
    *,
    transaction_ids: Container[int] | None,
    revealed_since: datetime | None,
    revealed_until: datetime | None,
) -> Iterator[tuple[SharedShoeExport, SharedBetExport]]:
    """(shoe, bet) pairs in (table, shoe, round, player) order. ``transaction_ids`` None: every
    bet; else the bets with one of these transactions, or on a shoe revealed in
    [``revealed_since``, ``revealed_until``) (None: unbounded)."""
    shoes = _shoes(session, operator_id)
    b = _BETS
    query = (
        select(*[b.c[name] for name in _BET_COLUMNS])
        .where(b.c.operator_id == operator_id)
        .order_by(b.c.table_id, b.c.shoe, b.c.round, b.c.player_id)
        .execution_options(yield_per=_BATCH)
    )
    for row in session.execute(query):
        values = dict(row._mapping)
        values["transaction_ids"] = [int(i) for i in values["transaction_ids"] or []]
        bet = SharedBetExport(**values)
        shoe = shoes.get((bet.table_id, bet.shoe))
        if shoe is None:
            continue  # a bet is placed on a shoe that was started: never the case
        if (
            transaction_ids is None
            or _revealed_in(shoe, revealed_since, revealed_until)
            or any(i in transaction_ids for i in bet.transaction_ids)
        ):
            yield shoe, bet


def _revealed_in(shoe: SharedShoeExport, since: datetime | None, until: datetime | None) -> bool:
    at = shoe.revealed_at
    if at is None:
        return False
    return (since is None or at >= since) and (until is None or at < until)


def _shoes(session: Session, operator_id: str) -> dict[tuple[str, int], SharedShoeExport]:
    s, t = _SHOES, _TABLES
    query = select(
        s.c.table_id,
        s.c.shoe,
        s.c.commitment,
        s.c.seed,
        s.c.rules,
        s.c.revealed_at,
        t.c.chain_commitment,
        t.c.chain_length,
        t.c.public_value,
    ).join(t, and_(t.c.operator_id == s.c.operator_id, t.c.table_id == s.c.table_id))
    return {
        (row.table_id, int(row.shoe)): SharedShoeExport(
            table_id=row.table_id,
            shoe=int(row.shoe),
            commitment=row.commitment,
            seed=row.seed,
            rules=dict(row.rules),
            chain_commitment=row.chain_commitment,
            chain_length=int(row.chain_length),
            public_value=dict(row.public_value),
            revealed_at=row.revealed_at,
        )
        for row in session.execute(query.where(s.c.operator_id == operator_id))
    }
