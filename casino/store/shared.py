"""Shared tables' rows (casino.store.shared_models): the table and its round state, the
dealers' leases, bets, events and shoes. Every statement about shared tables lives here.

Locks, in the one order every writer takes them (so none can deadlock):

1. the ``shared_tables`` row: shared (``FOR SHARE``) by a bet or a decision, which must see
   the round's phase as the dealer left it; exclusive by the dealer's step (its UPDATE),
   which so waits for the bets in flight and is seen by every later one;
2. wallets, in ascending account id: a bet or decision locks its one wallet; a settlement
   batch locks all of its wallets in one statement ordered by id.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, and_, func, or_, select, update

from casino.ledger.accounts import WALLET
from casino.ledger.transactions import WalletState
from casino.store.models import Account, LedgerTransaction, Posting
from casino.store.records import Wallet
from casino.store.repository import Repository
from casino.store.shared_models import SharedBetRow, SharedEventRow, SharedShoeRow, SharedTable

_TABLES = cast(Table, SharedTable.__table__)
_BETS = cast(Table, SharedBetRow.__table__)
_EVENTS = cast(Table, SharedEventRow.__table__)
_SHOES = cast(Table, SharedShoeRow.__table__)
_ACCOUNTS = cast(Table, Account.__table__)
_TRANSACTIONS = cast(Table, LedgerTransaction.__table__)
_POSTINGS = cast(Table, Posting.__table__)

OPEN = "open"
AWAITING = "awaiting_decision"
SETTLED = "settled"
REFUNDED = "refunded"
UNSETTLED = (OPEN, AWAITING)


@dataclass(frozen=True)
class SharedTableRecord:
    operator_id: str
    table_id: str
    betting_seconds: int
    pause_seconds: int
    chain_secret: bytes
    chain_length: int
    chain_commitment: str
    public_value: dict[str, Any]
    state: dict[str, Any] | None
    seq: int
    due_at: datetime | None
    lease_holder: str | None
    lease_until: datetime | None
    created_at: datetime


@dataclass(frozen=True)
class SharedBetRecord:
    id: str
    table_id: str
    shoe: int
    round: int
    player_id: str
    wallet_id: int
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
    created_at: datetime
    settled_at: datetime | None

    @property
    def staked(self) -> int:
        """Everything the bet took from the wallet so far."""
        return self.ante + self.tie_bet + self.raise_amount + self.war_tie_bet


_TABLE_FIELDS = [c.name for c in _TABLES.columns]
_BET_FIELDS = [c.name for c in _BETS.columns if c.name != "operator_id"]


def _table(row: Any) -> SharedTableRecord:
    values = dict(row._mapping)
    values["chain_secret"] = bytes(values["chain_secret"])
    return SharedTableRecord(**values)


def _bet(row: Any) -> SharedBetRecord:
    values = dict(row._mapping)
    values["transaction_ids"] = list(values["transaction_ids"] or [])
    return SharedBetRecord(**values)


class SharedStore(Repository):
    # --- tables -------------------------------------------------------------------------

    def add_table(self, record: SharedTableRecord) -> None:
        values = {name: getattr(record, name) for name in _TABLE_FIELDS}
        values["operator_id"] = self.operator_id
        self.session.execute(_TABLES.insert().values(values))

    def _table_query(self, table_id: str) -> Any:
        return select(_TABLES).where(
            _TABLES.c.table_id == table_id, self.owned(_TABLES.c.operator_id)
        )

    def get(self, table_id: str) -> SharedTableRecord | None:
        row = self.session.execute(self._table_query(table_id)).one_or_none()
        return None if row is None else _table(row)

    def of(self, table_ids: Iterable[str]) -> dict[str, SharedTableRecord]:
        """The shared ones among ``table_ids`` (to label a list of tables)."""
        ids = list(table_ids)
        if not ids:
            return {}
        rows = self.session.execute(
            select(_TABLES).where(_TABLES.c.table_id.in_(ids), self.owned(_TABLES.c.operator_id))
        )
        return {row.table_id: _table(row) for row in rows}

    def hold_for_bet(self, table_id: str) -> SharedTableRecord | None:
        """The table, its row held shared until commit: the dealer's next step waits for
        this bet (or decision), and this bet sees the phase the dealer last committed."""
        query = self._table_query(table_id).with_for_update(read=True)
        row = self.session.execute(query).one_or_none()
        return None if row is None else _table(row)

    def save_step(
        self,
        table_id: str,
        expected_seq: int,
        state: dict[str, Any],
        due_at: datetime | None,
        events: Sequence[dict[str, Any]],
        holder: str | None,
    ) -> bool:
        """Store a step (compare-and-set on the last event id, and the lease when a dealer
        names itself) with its events; False when another step or dealer got there first."""
        where = [
            _TABLES.c.operator_id == self.operator_id,
            _TABLES.c.table_id == table_id,
            _TABLES.c.seq == expected_seq,
        ]
        if holder is not None:
            where.append(_TABLES.c.lease_holder == holder)
        changed = self.session.execute(
            update(_TABLES).where(*where).values(state=state, seq=state["seq"], due_at=due_at)
        )
        if changed.rowcount != 1:  # type: ignore[attr-defined]
            return False
        if events:
            rows = [
                {
                    "operator_id": self.operator_id,
                    "table_id": table_id,
                    "id": event["id"],
                    "type": event["type"],
                    "shoe": event["shoe"],
                    "round": event["round"],
                    "at": datetime.fromisoformat(event["at"]),
                    "data": event["data"],
                }
                for event in events
            ]
            self.session.execute(_EVENTS.insert(), rows)
        return True

    # --- leases (across operators: a dealer serves every operator's tables) -------------

    def acquire_leases(
        self, holder: str, now: datetime, until: datetime, limit: int
    ) -> list[tuple[str, str]]:
        """Renew this dealer's leases and take free or expired ones, up to ``limit`` tables
        in all; (operator, table) of every table it holds now."""
        mine = and_(_TABLES.c.lease_holder == holder)
        self.session.execute(update(_TABLES).where(mine).values(lease_until=until))
        held = [
            (str(o), str(t))
            for o, t in self.session.execute(
                select(_TABLES.c.operator_id, _TABLES.c.table_id).where(mine)
            ).all()
        ]
        room = limit - len(held)
        if room > 0:
            free = or_(_TABLES.c.lease_holder.is_(None), _TABLES.c.lease_until < now)
            candidates = select(_TABLES.c.operator_id, _TABLES.c.table_id).where(free)
            candidates = candidates.order_by(_TABLES.c.operator_id, _TABLES.c.table_id)
            if self.postgres:
                candidates = candidates.with_for_update(skip_locked=True)
            for operator_id, table_id in self.session.execute(candidates.limit(room)).all():
                taken = self.session.execute(
                    update(_TABLES)
                    .where(
                        _TABLES.c.operator_id == operator_id,
                        _TABLES.c.table_id == table_id,
                        free,
                    )
                    .values(lease_holder=holder, lease_until=until)
                )
                if taken.rowcount == 1:  # type: ignore[attr-defined]
                    held.append((str(operator_id), str(table_id)))
        return held

    def release_leases(self, holder: str) -> None:
        self.session.execute(
            update(_TABLES)
            .where(_TABLES.c.lease_holder == holder)
            .values(lease_holder=None, lease_until=None)
        )

    # --- bets ---------------------------------------------------------------------------

    def bet(self, table_id: str, shoe: int, round_: int, player_id: str) -> SharedBetRecord | None:
        row = self.session.execute(
            select(*[_BETS.c[name] for name in _BET_FIELDS]).where(
                self.owned(_BETS.c.operator_id),
                _BETS.c.table_id == table_id,
                _BETS.c.shoe == shoe,
                _BETS.c.round == round_,
                _BETS.c.player_id == player_id,
            )
        ).one_or_none()
        return None if row is None else _bet(row)

    def add_bet(self, record: SharedBetRecord) -> None:
        values = {name: getattr(record, name) for name in _BET_FIELDS}
        values["operator_id"] = self.operator_id
        self.session.execute(_BETS.insert().values(values))

    def save_bet(self, record: SharedBetRecord, *, was: Sequence[str] = UNSETTLED) -> bool:
        """Write the bet's new stakes, decision or result, if its status is still one of
        ``was`` (a bet is settled or refunded once, whoever tries again)."""
        values = {name: getattr(record, name) for name in _BET_FIELDS if name != "id"}
        changed = self.session.execute(
            update(_BETS)
            .where(
                _BETS.c.id == record.id,
                _BETS.c.operator_id == self.operator_id,
                _BETS.c.status.in_(list(was)),
            )
            .values(values)
        )
        return changed.rowcount == 1  # type: ignore[attr-defined]

    def unsettled(self, table_id: str, shoe: int, round_: int, limit: int) -> list[SharedBetRecord]:
        """Up to ``limit`` bets of the round not settled yet, in wallet id order."""
        rows = self.session.execute(
            select(*[_BETS.c[name] for name in _BET_FIELDS])
            .where(
                _BETS.c.operator_id == self.operator_id,
                _BETS.c.table_id == table_id,
                _BETS.c.shoe == shoe,
                _BETS.c.round == round_,
                _BETS.c.status.in_(UNSETTLED),
            )
            .order_by(_BETS.c.wallet_id)
            .limit(limit)
        )
        return [_bet(row) for row in rows]

    def round_bets(self, table_id: str, shoe: int, round_: int) -> list[SharedBetRecord]:
        rows = self.session.execute(
            select(*[_BETS.c[name] for name in _BET_FIELDS])
            .where(
                self.owned(_BETS.c.operator_id),
                _BETS.c.table_id == table_id,
                _BETS.c.shoe == shoe,
                _BETS.c.round == round_,
            )
            .order_by(_BETS.c.wallet_id)
        )
        return [_bet(row) for row in rows]

    def counts(self, table_id: str, shoe: int, round_: int) -> dict[str, int]:
        """bettors, antes (bets with an ante), at_war, undecided (tied antes yet to decide)."""
        b = _BETS.c
        row = self.session.execute(
            select(
                func.count(),
                func.count().filter(b.ante > 0),
                func.count().filter(b.decision == "war"),
                func.count().filter(and_(b.ante > 0, b.decision.is_(None))),
            ).where(
                b.operator_id == self.operator_id,
                b.table_id == table_id,
                b.shoe == shoe,
                b.round == round_,
            )
        ).one()
        return {"bettors": row[0], "antes": row[1], "at_war": row[2], "undecided": row[3]}

    def lock_wallets(self, ids: Sequence[int]) -> list[Wallet]:
        """Wallets ``ids``, locked in ascending id order in one statement (a settlement
        batch's: the order every writer of several wallets takes)."""
        if not ids:
            return []
        rows = self.session.execute(
            select(
                _ACCOUNTS.c.id,
                _ACCOUNTS.c.key,
                _ACCOUNTS.c.balance,
                _ACCOUNTS.c.chain_length,
                _ACCOUNTS.c.chain_hash,
            )
            .where(
                _ACCOUNTS.c.id.in_(list(ids)),
                _ACCOUNTS.c.kind == WALLET,
                _ACCOUNTS.c.operator_id == self.operator_id,
            )
            .order_by(_ACCOUNTS.c.id)
            .with_for_update()
        ).all()
        return [
            Wallet(int(r[0]), str(r[1]), WalletState(int(r[2]), int(r[3]), str(r[4]))) for r in rows
        ]

    # --- events and the road ----------------------------------------------------------

    def events_after(self, table_id: str, after: int, limit: int) -> list[dict[str, Any]]:
        rows = self.session.execute(
            select(_EVENTS)
            .where(
                self.owned(_EVENTS.c.operator_id),
                _EVENTS.c.table_id == table_id,
                _EVENTS.c.id > after,
            )
            .order_by(_EVENTS.c.id)
            .limit(limit)
        )
        return [_event(row) for row in rows]

    def road(self, table_id: str, size: int) -> list[dict[str, Any]]:
        """The last ``size`` results and voids, oldest first."""
        rows = self.session.execute(
            select(_EVENTS)
            .where(
                self.owned(_EVENTS.c.operator_id),
                _EVENTS.c.table_id == table_id,
                _EVENTS.c.type.in_(("results", "round_voided")),
            )
            .order_by(_EVENTS.c.id.desc())
            .limit(size)
        )
        return [_event(row) for row in reversed(list(rows))]

    # --- shoes --------------------------------------------------------------------------

    def add_shoe(
        self, table_id: str, shoe: int, commitment: str, rules: dict[str, Any], at: datetime
    ) -> None:
        self.session.execute(
            _SHOES.insert().values(
                operator_id=self.operator_id,
                table_id=table_id,
                shoe=shoe,
                commitment=commitment,
                seed=None,
                rules=rules,
                started_at=at,
                revealed_at=None,
            )
        )

    def reveal_shoe(self, table_id: str, shoe: int, seed: str, at: datetime) -> None:
        self.session.execute(
            update(_SHOES)
            .where(
                _SHOES.c.operator_id == self.operator_id,
                _SHOES.c.table_id == table_id,
                _SHOES.c.shoe == shoe,
                _SHOES.c.seed.is_(None),
            )
            .values(seed=seed, revealed_at=at)
        )

    def shoe_rules(self, table_id: str, shoe: int) -> dict[str, Any] | None:
        """The rules shoe ``shoe`` of the table is dealt under (its snapshot)."""
        found = self.session.execute(
            select(_SHOES.c.rules).where(
                self.owned(_SHOES.c.operator_id),
                _SHOES.c.table_id == table_id,
                _SHOES.c.shoe == shoe,
            )
        ).scalar_one_or_none()
        return None if found is None else dict(found)

    def shoes(self, table_id: str | None = None) -> list[dict[str, Any]]:
        query = select(_SHOES).where(self.owned(_SHOES.c.operator_id))
        if table_id is not None:
            query = query.where(_SHOES.c.table_id == table_id)
        rows = self.session.execute(query.order_by(_SHOES.c.table_id, _SHOES.c.shoe))
        return [dict(row._mapping) for row in rows]

    def player_bets(self, table_id: str, shoe: int, player_id: str) -> list[SharedBetRecord]:
        rows = self.session.execute(
            select(*[_BETS.c[name] for name in _BET_FIELDS])
            .where(
                self.owned(_BETS.c.operator_id),
                _BETS.c.table_id == table_id,
                _BETS.c.shoe == shoe,
                _BETS.c.player_id == player_id,
            )
            .order_by(_BETS.c.round)
        )
        return [_bet(row) for row in rows]

    def all_bets(self) -> list[SharedBetRecord]:
        """Every bet of the operator (the audit's replay), in table, shoe, round order."""
        rows = self.session.execute(
            select(*[_BETS.c[name] for name in _BET_FIELDS])
            .where(self.owned(_BETS.c.operator_id))
            .order_by(_BETS.c.table_id, _BETS.c.shoe, _BETS.c.round, _BETS.c.wallet_id)
        )
        return [_bet(row) for row in rows]

    # --- the audit (one operator's rows, in the books' snapshot) -----------------------

    def audit_rows(
        self, operator_id: str
    ) -> tuple[list[SharedTableRecord], list[dict[str, Any]], list[tuple[str, SharedBetRecord]]]:
        tables = [
            _table(row)
            for row in self.session.execute(
                select(_TABLES).where(_TABLES.c.operator_id == operator_id)
            )
        ]
        shoes = [
            dict(row._mapping)
            for row in self.session.execute(
                select(_SHOES).where(_SHOES.c.operator_id == operator_id)
            )
        ]
        bets = [
            (row.table_id, _bet(row))
            for row in self.session.execute(
                select(*[_BETS.c[name] for name in _BET_FIELDS]).where(
                    _BETS.c.operator_id == operator_id
                )
            )
        ]
        return tables, shoes, bets

    def wallet_moves(self, operator_id: str) -> dict[tuple[str, str], tuple[int, int]]:
        """(reference, player) -> (debited, credited) of every shared bet's transactions."""
        tx = _TRANSACTIONS
        rows = self.session.execute(
            select(tx.c.reference, tx.c.player_id, _POSTINGS.c.amount)
            .join(_POSTINGS, _POSTINGS.c.transaction_id == tx.c.id)
            .where(
                tx.c.operator_id == operator_id,
                tx.c.reference.like("shared:%"),
                _POSTINGS.c.account_id == tx.c.wallet_id,
            )
        )
        moves: dict[tuple[str, str], tuple[int, int]] = {}
        for reference, player_id, amount in rows:
            debited, credited = moves.get((reference, player_id), (0, 0))
            if amount < 0:
                debited -= amount
            else:
                credited += amount
            moves[(reference, player_id)] = (debited, credited)
        return moves


def _event(row: Any) -> dict[str, Any]:
    at = row.at
    return {
        "id": int(row.id),
        "type": row.type,
        "shoe": int(row.shoe),
        "round": int(row.round),
        "at": at.isoformat() if isinstance(at, datetime) else str(at),
        "data": dict(row.data),
    }
