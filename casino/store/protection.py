"""Player protection's rows: account status and exclusion, time limits and the play session,
money limits with their usage, the history of changes, and payment references.

What a bet needs of them is read by the bet's claim itself (casino.store.rounds, parsed by
``protection_from_json`` / ``limits_from_json``), in the claim's one statement; what it
changes (usage, session) is written by ``casino_commit`` with the money. Everything else
here serves the protection use cases, which are not on the bet path.

Lock order, shared with casino.store.rounds and the ledger: a player's protection row
before any of its wallets, a wallet before its limits.

These rows are a player's, so its operator's: reads and changes reach the operator's players
only (casino.store.tenancy); rows are added for a player the use case found among them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, and_, case, distinct, func, insert, literal, select, update
from sqlalchemy.dialects import postgresql, sqlite

from casino.ledger.transactions import BET, DECISION, DEPOSIT, STAKE, WITHDRAWAL
from casino.store.models import LedgerTransaction, Player, Posting
from casino.store.protection_models import (
    AccountEvent,
    CashReference,
    LimitChange,
    PlayerLimit,
    PlayerProtection,
)
from casino.store.protection_records import (
    LIMIT_COLUMNS,
    LIMIT_TIMES,
    PROTECTION_COLUMNS,
    PROTECTION_TIMES,
    AccountEventRecord,
    CashState,
    LedgerTotals,
    LimitChangeRecord,
    LimitRecord,
    ProtectionRecord,
)
from casino.store.repository import Repository
from casino.store.tenancy import Tenancy
from casino.store.types import as_utc
from casino.store.writes import PendingWrites

_PROTECTION = cast(Table, PlayerProtection.__table__)
_LIMITS = cast(Table, PlayerLimit.__table__)
_CHANGES = cast(Table, LimitChange.__table__)
_EVENTS = cast(Table, AccountEvent.__table__)
_REFERENCES = cast(Table, CashReference.__table__)
_PLAYERS = cast(Table, Player.__table__)
_TRANSACTIONS = cast(Table, LedgerTransaction.__table__)
_POSTINGS = cast(Table, Posting.__table__)
GAME_KINDS = (BET, STAKE, DECISION)
#: Limits a round counts against (a deposit counts against the ``deposit`` ones).
ROUND_LIMIT_KINDS = ("loss", "wager")


def _time(value: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, str):  # a timestamp inside a JSON row
        value = datetime.fromisoformat(value)
    return as_utc(value)


def protection_from_json(values: Mapping[str, Any] | None) -> ProtectionRecord | None:
    """A ``player_protection`` row as the bet's claim returns it (``row_to_json``)."""
    if values is None:
        return None
    return _protection(values)


def limits_from_json(rows: Iterable[Mapping[str, Any]] | None) -> tuple[LimitRecord, ...]:
    """``player_limits`` rows as a claim returns them (``json_agg``)."""
    return tuple(_limit(row) for row in rows or ())


def _protection(values: Mapping[Any, Any]) -> ProtectionRecord:
    return ProtectionRecord(
        **{
            name: _time(values[name]) if name in PROTECTION_TIMES else values[name]
            for name in PROTECTION_COLUMNS
        }
    )


def _limit(values: Mapping[Any, Any]) -> LimitRecord:
    return LimitRecord(
        **{
            name: _time(values[name]) if name in LIMIT_TIMES else values[name]
            for name in LIMIT_COLUMNS
        }
    )


class ProtectionStore(Repository):
    def __init__(
        self, session: Any, postgres: bool, writes: PendingWrites, tenancy: Tenancy | None = None
    ) -> None:
        super().__init__(session, postgres, tenancy)
        self._writes = writes

    # --- status, exclusion, time limits, session ------------------------------------------

    def get(self, player_id: str) -> ProtectionRecord | None:
        row = self.session.execute(
            select(_PROTECTION).where(
                _PROTECTION.c.player_id == player_id, self.owned_player(_PROTECTION.c.player_id)
            )
        ).one_or_none()
        return None if row is None else _protection(row._mapping)

    def lock(self, player_id: str, now: datetime) -> ProtectionRecord:
        """The player's row, created (active, nothing set) if missing, locked until commit."""
        dialect: Any = postgresql if self.postgres else sqlite
        self.tenancy.require()
        updated_at = literal(now, _PROTECTION.c.updated_at.type)
        new = select(literal(player_id), literal("active"), updated_at)
        self.session.execute(
            dialect.insert(_PROTECTION)
            .from_select(
                ["player_id", "status", "updated_at"],
                new.where(self.owned_player(literal(player_id))),
            )
            .on_conflict_do_nothing(index_elements=["player_id"])
        )
        row = self.session.execute(
            select(_PROTECTION)
            .where(_PROTECTION.c.player_id == player_id, self.owned_player(_PROTECTION.c.player_id))
            .with_for_update()
        ).one()
        return _protection(row._mapping)

    def save(self, record: ProtectionRecord) -> None:
        """Write a row this unit of work holds (``lock``)."""
        values = asdict(record)
        del values["player_id"]
        self.session.execute(
            update(_PROTECTION)
            .where(
                _PROTECTION.c.player_id == record.player_id,
                self.owned_player(_PROTECTION.c.player_id),
            )
            .values(values)
        )

    def keep_session(
        self,
        player_id: str,
        *,
        session_started_at: datetime | None,
        last_bet_at: datetime | None,
        reality_check_acked_at: datetime | None,
    ) -> None:
        """At commit: the play session as a bet leaves it (the claim holds the row)."""
        self.tenancy.require()
        self._writes.sessions.append(
            {
                "player_id": player_id,
                "session_started_at": session_started_at,
                "last_bet_at": last_bet_at,
                "reality_check_acked_at": reality_check_acked_at,
            }
        )

    def cash_state(self, player_id: str, currency: str) -> CashState | None:
        """For a deposit or withdrawal, in one statement: None if there is no such player,
        else its protection row (if any) and whether it has deposit limits in ``currency``."""
        if not isinstance(player_id, str):
            return None
        has_limits = (
            select(_LIMITS.c.player_id)
            .where(
                _LIMITS.c.player_id == _PLAYERS.c.id,
                _LIMITS.c.currency == currency,
                _LIMITS.c.kind == "deposit",
            )
            .exists()
        )
        row = self.session.execute(
            select(_PLAYERS.c.id, has_limits, *(_PROTECTION.c[n] for n in PROTECTION_COLUMNS))
            .select_from(_PLAYERS.outerjoin(_PROTECTION, _PROTECTION.c.player_id == _PLAYERS.c.id))
            .where(_PLAYERS.c.id == player_id, self.owned(_PLAYERS.c.operator_id))
        ).one_or_none()
        if row is None:
            return None
        values = dict(zip(PROTECTION_COLUMNS, row[2:], strict=True))
        protection = None if values["player_id"] is None else _protection(values)
        return CashState(protection, bool(row[1]))

    # --- money limits ------------------------------------------------------------------

    def limits(
        self,
        player_id: str,
        currency: str | None = None,
        kinds: Sequence[str] | None = None,
        *,
        lock: bool = False,
    ) -> list[LimitRecord]:
        query = select(_LIMITS).where(
            _LIMITS.c.player_id == player_id, self.owned_player(_LIMITS.c.player_id)
        )
        if currency is not None:
            query = query.where(_LIMITS.c.currency == currency)
        if kinds is not None:
            query = query.where(_LIMITS.c.kind.in_(list(kinds)))
        if lock:
            query = query.with_for_update()
        query = query.order_by(_LIMITS.c.currency, _LIMITS.c.kind, _LIMITS.c.period)
        return [_limit(row._mapping) for row in self.session.execute(query)]

    def limits_of(
        self, player_ids: Sequence[str], kinds: Sequence[str]
    ) -> dict[tuple[str, str], list[LimitRecord]]:
        """The ``kinds`` limits of many players in one statement, by (player, currency)."""
        found: dict[tuple[str, str], list[LimitRecord]] = {}
        if not player_ids:
            return found
        query = select(_LIMITS).where(
            _LIMITS.c.player_id.in_(sorted(set(player_ids))),
            _LIMITS.c.kind.in_(list(kinds)),
            self.owned_player(_LIMITS.c.player_id),
        )
        for row in self.session.execute(query):
            record = _limit(row._mapping)
            found.setdefault((record.player_id, record.currency), []).append(record)
        return found

    def put_limit(self, record: LimitRecord, *, new: bool) -> None:
        values = asdict(record)
        self.tenancy.require()
        if new:
            self.session.execute(insert(_LIMITS).values(values))
            return
        self.session.execute(
            update(_LIMITS)
            .where(
                self.owned_player(_LIMITS.c.player_id),
                _LIMITS.c.player_id == record.player_id,
                _LIMITS.c.currency == record.currency,
                _LIMITS.c.kind == record.kind,
                _LIMITS.c.period == record.period,
            )
            .values(values)
        )

    def count_usage(
        self,
        limit: LimitRecord,
        *,
        period_start: datetime,
        delta: int,
        risk: int,
        as_of: datetime,
    ) -> None:
        """At commit, with the money: add ``delta`` to the limit's usage in the period at
        ``period_start``; refused (``limit_guard``) if ``risk`` would take the usage past
        the limit in force at ``as_of``."""
        self.tenancy.require()
        self._writes.limit_usage.append(
            {
                "player_id": limit.player_id,
                "currency": limit.currency,
                "kind": limit.kind,
                "period": limit.period,
                "period_start": period_start,
                "delta": delta,
                "risk": risk,
                "as_of": as_of,
            }
        )

    # --- history -----------------------------------------------------------------------

    def add_limit_change(
        self,
        *,
        player_id: str,
        currency: str | None,
        name: str,
        period: str | None,
        old_value: int | None,
        new_value: int | None,
        requested_at: datetime,
        effective_at: datetime,
        changed_by: str,
        actor: str,
    ) -> None:
        self.tenancy.require()
        self.session.execute(
            insert(_CHANGES).values(
                player_id=player_id,
                currency=currency,
                name=name,
                period=period,
                old_value=old_value,
                new_value=new_value,
                requested_at=requested_at,
                effective_at=effective_at,
                changed_by=changed_by,
                actor=actor,
            )
        )

    def limit_changes(
        self, player_id: str, before_id: int | None, size: int
    ) -> list[LimitChangeRecord]:
        query = select(_CHANGES).where(
            _CHANGES.c.player_id == player_id, self.owned_player(_CHANGES.c.player_id)
        )
        if before_id is not None:
            query = query.where(_CHANGES.c.id < before_id)
        rows = self.session.execute(query.order_by(_CHANGES.c.id.desc()).limit(size))
        return [LimitChangeRecord(**dict(row._mapping)) for row in rows]

    def add_account_event(
        self,
        *,
        player_id: str,
        action: str,
        reason: str | None,
        old_status: str,
        new_status: str,
        ends_at: datetime | None,
        created_at: datetime,
        changed_by: str,
        actor: str,
    ) -> None:
        self.tenancy.require()
        self.session.execute(
            insert(_EVENTS).values(
                player_id=player_id,
                action=action,
                reason=reason,
                old_status=old_status,
                new_status=new_status,
                ends_at=ends_at,
                created_at=created_at,
                changed_by=changed_by,
                actor=actor,
            )
        )

    def account_events(
        self, player_id: str, before_id: int | None, size: int
    ) -> list[AccountEventRecord]:
        query = select(_EVENTS).where(
            _EVENTS.c.player_id == player_id, self.owned_player(_EVENTS.c.player_id)
        )
        if before_id is not None:
            query = query.where(_EVENTS.c.id < before_id)
        rows = self.session.execute(query.order_by(_EVENTS.c.id.desc()).limit(size))
        return [AccountEventRecord(**dict(row._mapping)) for row in rows]

    # --- payment references ------------------------------------------------------------

    def use_cash_reference(
        self, player_id: str, kind: str, reference: str, transaction_id: int
    ) -> None:
        """At commit: ``reference`` is used for ``kind`` by the player; refused
        (``pk_cash_references``) if it was already."""
        self.tenancy.require()
        self._writes.cash_references.append(
            {
                "player_id": player_id,
                "kind": kind,
                "reference": reference,
                "transaction_id": transaction_id,
            }
        )

    def cash_reference(self, player_id: str, kind: str, reference: str) -> int | None:
        """The transaction that used ``reference`` for ``kind``, if any."""
        found = self.session.execute(
            select(_REFERENCES.c.transaction_id).where(
                self.owned_player(_REFERENCES.c.player_id),
                _REFERENCES.c.player_id == player_id,
                _REFERENCES.c.kind == kind,
                _REFERENCES.c.reference == reference,
            )
        ).scalar_one_or_none()
        return None if found is None else int(found)

    # --- the ledger, summed ------------------------------------------------------------

    def ledger_totals(
        self,
        player_id: str,
        since: datetime | None,
        until: datetime | None,
        currency: str | None = None,
    ) -> list[LedgerTotals]:
        """Per currency, the player's wallet movements with ``since <= created_at < until``
        (either bound open when None), from the ledger's wallet postings."""
        t, p = _TRANSACTIONS, _POSTINGS
        game = t.c.kind.in_(GAME_KINDS)
        query = (
            select(
                t.c.currency,
                func.sum(case((t.c.kind == DEPOSIT, p.c.amount), else_=0)),
                func.sum(case((t.c.kind == WITHDRAWAL, -p.c.amount), else_=0)),
                func.sum(case((and_(game, p.c.amount < 0), -p.c.amount), else_=0)),
                func.sum(case((and_(game, p.c.amount > 0), p.c.amount), else_=0)),
                func.count(distinct(case((t.c.kind.in_((BET, STAKE)), t.c.round_id)))),
            )
            .select_from(
                t.join(p, and_(p.c.transaction_id == t.c.id, p.c.account_id == t.c.wallet_id))
            )
            .where(t.c.player_id == player_id, self.owned(t.c.operator_id))
            .group_by(t.c.currency)
            .order_by(t.c.currency)
        )
        if since is not None:
            query = query.where(t.c.created_at >= since)
        if until is not None:
            query = query.where(t.c.created_at < until)
        if currency is not None:
            query = query.where(t.c.currency == currency)
        return [
            LedgerTotals(str(row[0]), *(int(value or 0) for value in row[1:]))
            for row in self.session.execute(query)
        ]

    def balances_before(self, player_id: str, at: datetime) -> dict[str, int]:
        """Per currency, the player's wallet balance after its last transaction before
        ``at`` (currencies with none are left out)."""
        t = _TRANSACTIONS
        last = (
            select(t.c.wallet_id, func.max(t.c.wallet_seq).label("seq"))
            .where(t.c.player_id == player_id, t.c.created_at < at, self.owned(t.c.operator_id))
            .group_by(t.c.wallet_id)
            .subquery()
        )
        rows = self.session.execute(
            select(t.c.currency, t.c.wallet_balance_after).select_from(
                t.join(last, and_(t.c.wallet_id == last.c.wallet_id, t.c.wallet_seq == last.c.seq))
            )
        )
        return {str(currency): int(balance) for currency, balance in rows}
