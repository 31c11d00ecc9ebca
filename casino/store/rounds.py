"""Casino War rounds: the claims a bet and a decision start with, the writes they end with,
and recall.

A claim takes in one go what the use case needs and locks only the player's own rows: for a
bet, the next nonce of the player's active seed (the UPDATE's row lock serialises a player's
bets) and the wallet of the table's currency; for a decision, the round and its wallet. On
PostgreSQL each claim is one statement; rows are always locked seed (or round) first, wallet
last, so two requests of one player cannot deadlock over them.

Rounds are their operator's: a claim finds the player, the table and the round of the
operator the unit of work acts for only, inside its one statement (the player's operator is
one primary key probe; a table's key is the operator and its id).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, func, select, update

from casino.ledger.transactions import WalletState
from casino.store import direct
from casino.store.bet_claim_sql import CLAIM_BET, PREFETCHED_BET_CLAIM
from casino.store.ledger import LedgerStore
from casino.store.models import (
    AWAITING_DECISION,
    Account,
    CasinoTable,
    LedgerTransaction,
    Round,
    ServerSeed,
    as_utc,
)
from casino.store.operators import OPERATOR_COLUMNS, OperatorStore
from casino.store.protection import (
    ROUND_LIMIT_KINDS,
    ProtectionStore,
    limits_from_json,
    protection_from_json,
)
from casino.store.records import (
    DECISION_COLUMNS,
    ROUND_COLUMNS,
    BetClaim,
    DecisionClaim,
    LimitRecord,
    RoundRecord,
    RoundRow,
    TableRecord,
    Wallet,
)
from casino.store.repository import Repository
from casino.store.shared_models import SharedTable
from casino.store.tenancy import Tenancy
from casino.store.writes import PendingWrites

_SEEDS = cast(Table, ServerSeed.__table__)
_ROUNDS = cast(Table, Round.__table__)
_TABLES = cast(Table, CasinoTable.__table__)
_ACCOUNTS = cast(Table, Account.__table__)
_TRANSACTIONS = cast(Table, LedgerTransaction.__table__)
_SHARED = cast(Table, SharedTable.__table__)
_DATETIME_COLUMNS = frozenset({"created_at", "settled_at", "decision_deadline"})
#: A round's columns as its record has them (its operator stays in the store).
_ROUND_SELECT = [_ROUNDS.c[name] for name in ROUND_COLUMNS]
OPEN_ROUND_INDEX = "uq_rounds_one_open_per_player"

# The round and its wallet, locked in that order, with the seed and the round's transactions,
# and the operator (its wallet mode chooses the wallet adapter: a statement less).
_CLAIM_DECISION = (
    "SELECT "
    + ", ".join(f"r.{name}" for name in ROUND_COLUMNS)
    + """, s.seed, s.seed_hash, s.active, s.revealed_at,
    ARRAY(SELECT t.id FROM ledger_transactions AS t WHERE t.round_id = r.id ORDER BY t.id),
    w.id, w.key, w.balance, w.chain_length, w.chain_hash,
    nextval('ledger_transaction_id_seq'),
    (SELECT json_agg(l) FROM player_limits AS l WHERE l.player_id = r.player_id
        AND l.currency = r.currency AND l.kind IN ('loss', 'wager')),
    (SELECT row_to_json(p) FROM player_protection AS p WHERE p.player_id = r.player_id),
    """
    + ", ".join(f"o.{name}" for name in OPERATOR_COLUMNS)
    + """
FROM rounds AS r
JOIN server_seeds AS s ON s.id = r.server_seed_id
JOIN operators AS o ON o.id = r.operator_id
JOIN accounts AS w ON w.player_id = r.player_id AND w.kind = 'wallet' AND w.currency = r.currency
WHERE r.id = %(round_id)s AND r.operator_id = %(operator_id)s
FOR UPDATE OF r, w"""
)


def _record(values: dict[str, Any]) -> RoundRecord:
    for name in _DATETIME_COLUMNS:
        if values.get(name) is not None:
            values[name] = as_utc(values[name])
    return RoundRecord(**values)


def _wallet(row: Sequence[Any]) -> Wallet | None:
    wallet_id, key, balance, length, chain_hash = row
    if wallet_id is None:
        return None
    return Wallet(int(wallet_id), str(key), WalletState(int(balance), int(length), str(chain_hash)))


class RoundStore(Repository):
    def __init__(
        self,
        session: Any,
        postgres: bool,
        writes: PendingWrites,
        ledger: LedgerStore,
        protection: ProtectionStore,
        tenancy: Tenancy | None = None,
        operators: OperatorStore | None = None,
    ) -> None:
        super().__init__(session, postgres, tenancy)
        self._writes = writes
        self._ledger = ledger
        self._protection = protection
        self._operators = operators

    # --- the bet ---------------------------------------------------------------------

    def claim_bet(self, player_id: str, table_id: str) -> BetClaim | None:
        """None when the player has no active seed: no such player, or a rotation committed
        between this statement's snapshot and its update (the next statement sees it)."""
        if self.postgres:
            prefetched = self.session.info.pop(PREFETCHED_BET_CLAIM, None)
            if prefetched is not None and prefetched[0] == (player_id, self.operator_id, table_id):
                rows = prefetched[1]  # claimed with the authentication (bet_claim_sql)
            else:
                rows = direct.execute(
                    self.session,
                    CLAIM_BET,
                    {"player_id": player_id, "table_id": table_id, "operator_id": self.operator_id},
                )
            if not rows:
                return None
            row = rows[0]
            table = None
            if row[6] is not None:
                table = TableRecord(
                    row[6], row[7], dict(row[8]), bool(row[9]), as_utc(row[10]), as_utc(row[11])
                )
            wallet = _wallet(row[12:17])
            if self._operators is not None and row[21] is not None:
                self._operators.remember_row(row[21:])
            return BetClaim(
                seed_id=int(row[0]),
                server_seed=bytes(row[1]),
                seed_hash=str(row[2]),
                client_seed=str(row[3]),
                nonce=int(row[4]),
                open_round_id=row[5],
                table=table,
                wallet=None if wallet is None else self._ledger.adopt(wallet),
                tx_id=int(row[17]),
                protection=protection_from_json(row[18]),
                limits=limits_from_json(row[19]),
                shared=bool(row[20]),
            )
        return self._claim_bet_sqlite(player_id, table_id)

    def _claim_bet_sqlite(self, player_id: str, table_id: str) -> BetClaim | None:
        claim = self.session.execute(
            update(_SEEDS)
            .where(
                _SEEDS.c.player_id == player_id,
                _SEEDS.c.active.is_(True),
                self.owned_player(_SEEDS.c.player_id),
            )
            .values(next_nonce=_SEEDS.c.next_nonce + 1)
            .returning(
                _SEEDS.c.id,
                _SEEDS.c.seed,
                _SEEDS.c.seed_hash,
                _SEEDS.c.client_seed,
                _SEEDS.c.next_nonce,
            )
        ).one_or_none()
        if claim is None:
            return None
        protection = self._protection.get(player_id)
        table_row = self.session.execute(
            select(_TABLES).where(
                _TABLES.c.operator_id == self.operator_id, _TABLES.c.id == table_id
            )
        ).one_or_none()
        table = None
        wallet = None
        if table_row is not None:
            m = table_row._mapping
            table = TableRecord(
                m["id"], m["currency"], dict(m["rules"]), bool(m["active"]),
                m["created_at"], m["updated_at"],
            )  # fmt: skip
            wallet = self._ledger.lock_wallet(player_id, table.currency)
        limits: tuple[LimitRecord, ...] = ()
        if wallet is not None and table is not None:
            limits = tuple(self._protection.limits(player_id, table.currency, ROUND_LIMIT_KINDS))
        return BetClaim(
            seed_id=int(claim[0]),
            server_seed=bytes(claim[1]),
            seed_hash=str(claim[2]),
            client_seed=str(claim[3]),
            nonce=int(claim[4]) - 1,
            open_round_id=self.open_round_id(player_id),
            table=table,
            wallet=wallet,
            tx_id=self._ledger.reserve_id(),
            protection=protection,
            limits=limits,
            shared=self._is_shared(table_id),
        )

    def _is_shared(self, table_id: str) -> bool:
        found = self.session.execute(
            select(_SHARED.c.table_id).where(
                _SHARED.c.operator_id == self.operator_id, _SHARED.c.table_id == table_id
            )
        ).first()
        return found is not None

    def add(self, record: RoundRecord, in_progress: Callable[[], Exception]) -> None:
        """Insert the round at commit. Should another round of the player have opened after
        the claim's snapshot, the partial unique index refuses this one and the commit raises
        ``in_progress()`` instead."""
        self._writes.rounds.append({**record.values(), "operator_id": self.operator_id})
        self._writes.conflicts[OPEN_ROUND_INDEX] = in_progress

    # --- the decision ------------------------------------------------------------------

    def claim_decision(self, round_id: str) -> DecisionClaim | None:
        """The round and its wallet, locked; None if there is no such round."""
        if self.postgres:
            rows = direct.execute(
                self.session,
                _CLAIM_DECISION,
                {"round_id": round_id, "operator_id": self.operator_id},
            )
            if not rows:
                return None
            row = rows[0]
            width = len(ROUND_COLUMNS)
            record = _record(dict(zip(ROUND_COLUMNS, row[:width], strict=True)))
            seed, seed_hash, active, revealed_at, tx_ids = row[width : width + 5]
            wallet = _wallet(row[width + 5 : width + 10])
            assert wallet is not None  # an inner join
            if self._operators is not None:
                self._operators.remember_row(row[width + 13 :])
            return DecisionClaim(
                round=record,
                server_seed=bytes(seed),
                seed_hash=str(seed_hash),
                revealed=None if active or revealed_at is None else bytes(seed).hex(),
                transaction_ids=[int(value) for value in tx_ids],
                wallet=self._ledger.adopt(wallet),
                tx_id=int(row[width + 10]),
                limits=limits_from_json(row[width + 11]),
                protection=protection_from_json(row[width + 12]),
            )
        found = self.session.execute(
            select(*_ROUND_SELECT)
            .where(_ROUNDS.c.id == round_id, _ROUNDS.c.operator_id == self.operator_id)
            .with_for_update()
        ).one_or_none()
        if found is None:
            return None
        record = _record(dict(found._mapping))
        seed = self.session.execute(
            select(_SEEDS.c.seed, _SEEDS.c.seed_hash, _SEEDS.c.active, _SEEDS.c.revealed_at).where(
                _SEEDS.c.id == record.server_seed_id
            )
        ).one()
        wallet = self._ledger.lock_wallet(record.player_id, record.currency)
        if wallet is None:
            raise RuntimeError(f"round {round_id} has no wallet")
        return DecisionClaim(
            round=record,
            server_seed=bytes(seed[0]),
            seed_hash=str(seed[1]),
            revealed=None if seed[2] or seed[3] is None else bytes(seed[0]).hex(),
            transaction_ids=self._ledger.round_transaction_ids([round_id]).get(round_id, []),
            wallet=wallet,
            tx_id=self._ledger.reserve_id(),
            limits=tuple(
                self._protection.limits(record.player_id, record.currency, ROUND_LIMIT_KINDS)
            ),
            protection=self._protection.get(record.player_id),
        )

    def save_decision(self, record: RoundRecord) -> None:
        """Write the decision's columns at commit (the round must still await it)."""
        self.tenancy.require()  # the round came from the operator's claim
        values = {name: getattr(record, name) for name in DECISION_COLUMNS}
        self._writes.round_updates.append({"id": record.id, **values})

    def stale_ids(self, cutoff: datetime) -> list[str]:
        """Rounds awaiting a decision since ``cutoff`` or earlier, oldest first; rounds that
        someone is deciding right now (locked) are skipped, not waited for."""
        query = (
            select(_ROUNDS.c.id)
            .where(
                _ROUNDS.c.status == AWAITING_DECISION,
                _ROUNDS.c.created_at <= cutoff,
                # The decision clock decides those (``due_ids``), not the system.
                _ROUNDS.c.decision_deadline.is_(None),
                self.owned(_ROUNDS.c.operator_id),
            )
            .order_by(_ROUNDS.c.created_at)
        )
        if self.postgres:
            query = query.with_for_update(skip_locked=True)
        return [str(value) for value in self.session.scalars(query)]

    def due_ids(self, now: datetime, player_id: str | None = None) -> list[str]:
        """Rounds awaiting a decision whose decision deadline is ``now`` or earlier (one
        player's, or all), earliest first; rounds locked right now are skipped."""
        query = select(_ROUNDS.c.id).where(
            _ROUNDS.c.status == AWAITING_DECISION,
            _ROUNDS.c.decision_deadline <= now,
            self.owned(_ROUNDS.c.operator_id),
        )
        if player_id is not None:
            query = query.where(_ROUNDS.c.player_id == player_id)
        query = query.order_by(_ROUNDS.c.decision_deadline)
        if self.postgres:
            query = query.with_for_update(skip_locked=True)
        return [str(value) for value in self.session.scalars(query)]

    # --- recall ------------------------------------------------------------------------

    def open_round_id(self, player_id: str) -> str | None:
        return self.session.execute(
            select(_ROUNDS.c.id).where(
                _ROUNDS.c.player_id == player_id,
                _ROUNDS.c.status == AWAITING_DECISION,
                self.owned(_ROUNDS.c.operator_id),
            )
        ).scalar_one_or_none()

    def get(self, round_id: str) -> RoundRow | None:
        rows = self._rows(select(*_ROUND_SELECT).where(_ROUNDS.c.id == round_id))
        return rows[0] if rows else None

    def page(
        self,
        *,
        player_id: str | None,
        status: str | None,
        before: tuple[datetime, str] | None,
        limit: int,
        table_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[RoundRow]:
        """Rounds newest first (created_at, then id), after the cursor ``before``; created
        from ``since`` (included) to ``until`` (excluded) when given."""
        query = select(*_ROUND_SELECT)
        if player_id is not None:
            query = query.where(_ROUNDS.c.player_id == player_id)
        if status is not None:
            query = query.where(_ROUNDS.c.status == status)
        if table_id is not None:
            query = query.where(_ROUNDS.c.table_id == table_id)
        if since is not None:
            query = query.where(_ROUNDS.c.created_at >= since)
        if until is not None:
            query = query.where(_ROUNDS.c.created_at < until)
        if before is not None:
            created, last_id = before
            query = query.where(
                (_ROUNDS.c.created_at < created)
                | ((_ROUNDS.c.created_at == created) & (_ROUNDS.c.id < last_id))
            )
        return self._rows(
            query.order_by(_ROUNDS.c.created_at.desc(), _ROUNDS.c.id.desc()).limit(limit)
        )

    def count_open(self) -> int:
        return int(
            self.session.execute(
                select(func.count()).where(
                    _ROUNDS.c.status == AWAITING_DECISION, self.owned(_ROUNDS.c.operator_id)
                )
            ).scalar_one()
        )

    def _rows(self, query: Any) -> list[RoundRow]:
        query = query.where(self.owned(_ROUNDS.c.operator_id))
        records = [_record(dict(row._mapping)) for row in self.session.execute(query)]
        if not records:
            return []
        seeds = {
            int(row[0]): (str(row[1]), None if row[2] or row[3] is None else bytes(row[4]).hex())
            for row in self.session.execute(
                select(
                    _SEEDS.c.id,
                    _SEEDS.c.seed_hash,
                    _SEEDS.c.active,
                    _SEEDS.c.revealed_at,
                    _SEEDS.c.seed,
                ).where(_SEEDS.c.id.in_({r.server_seed_id for r in records}))
            )
        }
        tx_ids = self._ledger.round_transaction_ids([r.id for r in records])
        return [
            RoundRow(
                round=r,
                seed_hash=seeds[r.server_seed_id][0],
                revealed=seeds[r.server_seed_id][1],
                transaction_ids=tx_ids.get(r.id, []) + self._ledger.pending_ids(r.id),
            )
            for r in records
        ]
