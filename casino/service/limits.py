"""Deposit, loss and wager limits per currency and period, the session and reality-check
time limits, and their history.

A lower limit (or a first one) applies at once; a higher one, or a removal, only after
``RAISE_DELAY`` (24 hours): until then the old limit stays in force and the change is shown
as pending with its ``effective_at``. Asking again for what is in force cancels a pending
change. Every request that changes something is kept in the history: who, when, the limit in
force before, the one asked for, and when it takes effect.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from casino.service import protection as rules
from casino.service.common import (
    MAX_AMOUNT,
    check_currency,
    clamp_limit,
    decode_cursor,
    encode_cursor,
    require_player,
)
from casino.service.errors import Forbidden, Invalid
from casino.service.views import Page
from casino.store.protection_records import LimitRecord, ProtectionRecord
from casino.store.uow import UnitOfWork

MAX_MINUTES = 24 * 60


@dataclass(frozen=True)
class Pending:
    """A change waiting for its time: the value (None: removal) and when it applies."""

    value: int | None
    effective_at: datetime


@dataclass(frozen=True)
class MoneyLimitView:
    currency: str
    limit: str
    period: str
    amount: int | None
    used: int
    remaining: int | None
    period_start: datetime
    resets_at: datetime
    pending: dict[str, Any] | None


@dataclass(frozen=True)
class TimeLimitView:
    value: int | None
    pending: dict[str, Any] | None


@dataclass(frozen=True)
class LimitsView:
    player_id: str
    money: list[MoneyLimitView]
    session_minutes: TimeLimitView
    reality_check_minutes: TimeLimitView


@dataclass(frozen=True)
class LimitChangeView:
    id: int | None
    currency: str | None
    limit: str
    period: str | None
    old_value: int | None
    new_value: int | None
    requested_at: datetime
    effective_at: datetime
    changed_by: str
    actor: str


@dataclass(frozen=True)
class LimitsUpdateView:
    limits: LimitsView
    changes: list[LimitChangeView]


@dataclass(frozen=True)
class _Change:
    value: int | None  # in force from now on
    pending: Pending | None  # what follows, and when
    effective_at: datetime


def _pending(pending: int | None, at: datetime | None, now: datetime) -> Pending | None:
    """The change scheduled and not yet in force, if any."""
    if at is None or at <= now:
        return None
    return Pending(pending, at)


def decide(
    current: int | None, pending: Pending | None, wanted: int | None, now: datetime
) -> _Change | None:
    """What asking for ``wanted`` does to a limit ``current`` (in force now) with ``pending``
    scheduled; None when it changes nothing."""
    if wanted is not None and (current is None or wanted <= current):
        if wanted == current and pending is None:
            return None
        return _Change(wanted, None, now)  # lower, a first limit, or cancelling a raise
    if current is None:
        return None  # removing a limit that is not there
    if pending is not None and pending.value == wanted:
        return None  # already scheduled: the clock is not restarted
    effective_at = now + rules.RAISE_DELAY
    return _Change(current, Pending(wanted, effective_at), effective_at)


def raises(current: int | None, wanted: int | None) -> bool:
    """Whether asking for ``wanted`` loosens the limit ``current`` in force: a higher
    value, or a removal of one that is set."""
    return current is not None and (wanted is None or wanted > current)


def _refuse_raise_by_session(actor: rules.Actor, name: str, period: str | None) -> None:
    """A game session's token is in the game client, for play and for what protects the
    player; loosening a limit is asked for with the player's own token (or by the operator),
    never from inside a game."""
    if actor.session_id is not None:
        what = name if period is None else f"the {period} {name} limit"
        raise Forbidden(
            f"a game session may lower limits but not raise or remove them ({what}); "
            "ask with the player's own token"
        )


# --- views -------------------------------------------------------------------------------


def _pending_dict(pending: Pending | None) -> dict[str, Any] | None:
    if pending is None:
        return None
    return {"value": pending.value, "effective_at": pending.effective_at}


def _money_view(row: LimitRecord, now: datetime) -> MoneyLimitView | None:
    amount = rules.limit_in_force(row, now)
    pending = _pending(row.pending_amount, row.pending_at, now)
    if amount is None and pending is None:
        return None  # a removed limit (its usage row is kept for a later one)
    used = rules.used_now(row, now)
    start, end = rules.period_bounds(row.period, now)
    return MoneyLimitView(
        currency=row.currency,
        limit=row.kind,
        period=row.period,
        amount=amount,
        used=used,
        remaining=None if amount is None else max(0, amount - used),
        period_start=start,
        resets_at=end,
        pending=_pending_dict(pending),
    )


def _time_view(protection: ProtectionRecord | None, name: str, now: datetime) -> TimeLimitView:
    if protection is None:
        return TimeLimitView(None, None)
    value, pending, at = _time_columns(protection, name)
    return TimeLimitView(
        rules.in_force(value, pending, at, now), _pending_dict(_pending(pending, at, now))
    )


def _time_columns(
    protection: ProtectionRecord, name: str
) -> tuple[int | None, int | None, datetime | None]:
    if name == rules.SESSION_MINUTES:
        return (
            protection.session_minutes,
            protection.session_minutes_pending,
            protection.session_minutes_pending_at,
        )
    return (
        protection.reality_check_minutes,
        protection.reality_check_minutes_pending,
        protection.reality_check_minutes_pending_at,
    )


def _limits_view(uow: UnitOfWork, player_id: str, now: datetime) -> LimitsView:
    protection = uow.protection.get(player_id)
    money = [_money_view(row, now) for row in uow.protection.limits(player_id)]
    return LimitsView(
        player_id=player_id,
        money=[view for view in money if view is not None],
        session_minutes=_time_view(protection, rules.SESSION_MINUTES, now),
        reality_check_minutes=_time_view(protection, rules.REALITY_CHECK_MINUTES, now),
    )


def get_limits(uow: UnitOfWork, player_id: str) -> LimitsView:
    require_player(uow, player_id)
    return _limits_view(uow, player_id, uow.now())


# --- changes -----------------------------------------------------------------------------


def _check_money(money: Mapping[str, Mapping[str, int | None]]) -> None:
    for kind, periods in money.items():
        if kind not in rules.LIMIT_KINDS:
            raise Invalid(f"unknown limit {kind!r}", code="invalid_limit")
        for period, amount in periods.items():
            if period not in rules.PERIODS:
                raise Invalid(f"unknown period {period!r}", code="invalid_limit")
            if amount is not None and (type(amount) is not int or not 1 <= amount <= MAX_AMOUNT):
                raise Invalid(
                    f"a limit is an integer from 1 to {MAX_AMOUNT} or null", code="invalid_limit"
                )


def _check_minutes(times: Mapping[str, int | None]) -> None:
    for name, minutes in times.items():
        if name not in rules.TIME_LIMITS:
            raise Invalid(f"unknown limit {name!r}", code="invalid_limit")
        if minutes is not None and (type(minutes) is not int or not 1 <= minutes <= MAX_MINUTES):
            raise Invalid(
                f"{name} is an integer from 1 to {MAX_MINUTES} or null", code="invalid_limit"
            )


def set_limits(
    uow: UnitOfWork,
    player_id: str,
    actor: rules.Actor,
    *,
    currency: str | None = None,
    money: Mapping[str, Mapping[str, int | None]] | None = None,
    times: Mapping[str, int | None] | None = None,
) -> LimitsUpdateView:
    """Apply the limits asked for: each one given is set (null: removed); the others stay.

    ``money``: {"deposit"|"loss"|"wager": {"day"|"week"|"month": amount or None}} in
    ``currency``; ``times``: {"session_minutes"|"reality_check_minutes": minutes or None}.
    """
    money = {kind: dict(periods) for kind, periods in (money or {}).items() if periods}
    times = dict(times or {})
    _check_money(money)
    _check_minutes(times)
    if money:
        if currency is None:
            raise Invalid("money limits need their currency", code="invalid_currency")
        check_currency(currency, uow.currencies)
    require_player(uow, player_id)
    now = uow.now()
    changes: list[LimitChangeView] = []

    def record(
        currency: str | None, name: str, period: str | None, old: int | None, change: _Change
    ) -> None:
        wanted = change.value if change.pending is None else change.pending.value
        uow.protection.add_limit_change(
            player_id=player_id,
            currency=currency,
            name=name,
            period=period,
            old_value=old,
            new_value=wanted,
            requested_at=now,
            effective_at=change.effective_at,
            changed_by=actor.role,
            actor=actor.subject,
        )
        changes.append(
            LimitChangeView(
                None,
                currency,
                name,
                period,
                old,
                wanted,
                now,
                change.effective_at,
                actor.role,
                actor.subject,
            )
        )

    # Lock order: the protection row, then the wallet, then its limits (casino.store).
    if times:
        state = uow.protection.lock(player_id, now)
        for name, wanted in times.items():
            value, pending, at = _time_columns(state, name)
            current = rules.in_force(value, pending, at, now)
            if raises(current, wanted):
                _refuse_raise_by_session(actor, name, None)
            change = decide(current, _pending(pending, at, now), wanted, now)
            if change is None:
                continue
            state = _set_time(state, name, change)
            record(None, name, None, current, change)
        uow.protection.save(replace(state, updated_at=now))
    if money and currency is not None:
        _set_money(uow, player_id, currency, money, now, record, actor)
    return LimitsUpdateView(_limits_view(uow, player_id, now), changes)


def _set_time(state: ProtectionRecord, name: str, change: _Change) -> ProtectionRecord:
    pending = change.pending
    values = (
        change.value,
        None if pending is None else pending.value,
        None if pending is None else pending.effective_at,
    )
    if name == rules.SESSION_MINUTES:
        return replace(
            state,
            session_minutes=values[0],
            session_minutes_pending=values[1],
            session_minutes_pending_at=values[2],
        )
    return replace(
        state,
        reality_check_minutes=values[0],
        reality_check_minutes_pending=values[1],
        reality_check_minutes_pending_at=values[2],
    )


def _set_money(
    uow: UnitOfWork,
    player_id: str,
    currency: str,
    money: Mapping[str, Mapping[str, int | None]],
    now: datetime,
    record: Any,
    actor: rules.Actor,
) -> None:
    # With the wallet locked, every movement that counts has committed or waits for us: a
    # new limit's usage read from the ledger is exact and stays so.
    uow.ledger.lock_wallet(player_id, currency)
    rows = {(r.kind, r.period): r for r in uow.protection.limits(player_id, currency, lock=True)}
    totals = None
    for kind, periods in money.items():
        for period, wanted in periods.items():
            row = rows.get((kind, period))
            current = None if row is None else rules.limit_in_force(row, now)
            if raises(current, wanted):
                _refuse_raise_by_session(actor, kind, period)
            pending = None
            if row is not None:
                pending = _pending(row.pending_amount, row.pending_at, now)
            change = decide(current, pending, wanted, now)
            if change is None:
                continue
            start, _ = rules.period_bounds(period, now)
            values: dict[str, Any] = {
                "amount": change.value,
                "pending_amount": None if change.pending is None else change.pending.value,
                "pending_at": None if change.pending is None else change.pending.effective_at,
                "updated_at": now,
            }
            if row is None:
                if totals is None:
                    totals = _usage_since(uow, player_id, currency, now)
                row = LimitRecord(
                    player_id, currency, kind, period, used=totals[(kind, period)],
                    period_start=start, **values,
                )  # fmt: skip
                uow.protection.put_limit(row, new=True)
            else:
                uow.protection.put_limit(replace(row, **values), new=False)
            record(currency, kind, period, current, change)


def _usage_since(
    uow: UnitOfWork, player_id: str, currency: str, now: datetime
) -> dict[tuple[str, str], int]:
    """What the player used in each current period, from the ledger (for a new limit)."""
    used: dict[tuple[str, str], int] = {}
    for period in rules.PERIODS:
        start, _ = rules.period_bounds(period, now)
        found = uow.protection.ledger_totals(player_id, start, None, currency)
        deposits = wagered = won = 0
        if found:
            deposits, wagered, won = found[0].deposits, found[0].wagered, found[0].won
        used[(rules.DEPOSIT, period)] = deposits
        used[(rules.WAGER, period)] = wagered
        used[(rules.LOSS, period)] = wagered - won
    return used


# --- history -----------------------------------------------------------------------------


def list_limit_changes(
    uow: UnitOfWork, player_id: str, cursor: str | None = None, limit: int = 50
) -> Page[LimitChangeView]:
    """Every change asked for, newest first."""
    require_player(uow, player_id)
    size = clamp_limit(limit)
    before = _id_cursor(cursor)
    found = uow.protection.limit_changes(player_id, before, size + 1)
    more = len(found) > size
    found = found[:size]
    items = [
        LimitChangeView(
            c.id,
            c.currency,
            c.name,
            c.period,
            c.old_value,
            c.new_value,
            c.requested_at,
            c.effective_at,
            c.changed_by,
            c.actor,
        )
        for c in found
    ]
    next_cursor = encode_cursor(str(found[-1].id)) if more and found else None
    return Page(items=items, next_cursor=next_cursor)


def _id_cursor(cursor: str | None) -> int | None:
    if not cursor:
        return None
    (text,) = decode_cursor(cursor, 1)
    if not (text.isdigit() and len(text) <= 9):
        raise Invalid("malformed cursor", code="invalid_cursor")
    return int(text)
