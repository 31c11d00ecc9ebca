"""A player's account status, exclusions, session and reality checks.

- Exclusions: a cool-off of 1 to 42 days or a self-exclusion of 6 to 60 months, asked for
  by the player or the operator. Nobody can shorten or lift one through the service: a new
  request may only end later than the one in force (409 ``exclusion_in_force`` otherwise).
- The operator suspends, reactivates or closes an account, always with a reason.
- While any of these holds, the account starts no round and takes no deposit (403); it may
  still withdraw, read its rounds and statements, and finish a round awaiting a decision.
"""

from __future__ import annotations

import calendar
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from casino.service import protection as rules
from casino.service.common import clamp_limit, decode_cursor, encode_cursor, require_player
from casino.service.errors import Conflict, Invalid
from casino.service.views import Page
from casino.store.protection_records import AccountEventRecord, ProtectionRecord
from casino.store.uow import UnitOfWork

COOL_OFF_DAYS = (1, 42)
SELF_EXCLUSION_MONTHS = (6, 60)
MAX_REASON = 500
#: Operator actions and the status each one leads to.
STATUS_ACTIONS = {"suspend": rules.SUSPENDED, "reactivate": rules.ACTIVE, "close": rules.CLOSED}
ACCOUNT_ACTIONS = (*STATUS_ACTIONS, rules.COOL_OFF, rules.SELF_EXCLUSION)


@dataclass(frozen=True)
class ProtectionView:
    """``exclusion``: {"kind", "started_at", "ends_at"} while one is in force, else None.
    ``session``: {"started_at", "last_bet_at", "minutes_played", "limit_minutes", "ends_at"}
    while a session goes on for a player with a time limit, else None. ``reality_check``:
    the one due now, if any (casino.service.protection.reality_check)."""

    player_id: str
    status: str
    status_reason: str | None
    exclusion: dict[str, Any] | None
    session: dict[str, Any] | None
    reality_check: dict[str, Any] | None


@dataclass(frozen=True)
class AccountEventView:
    id: int
    action: str
    reason: str | None
    old_status: str
    new_status: str
    ends_at: datetime | None
    created_at: datetime
    changed_by: str
    actor: str


def add_months(moment: datetime, months: int) -> datetime:
    """The same day and time ``months`` calendar months later (the month's last day when it
    is shorter)."""
    index = moment.month - 1 + months
    year, month = moment.year + index // 12, index % 12 + 1
    day = min(moment.day, calendar.monthrange(year, month)[1])
    return moment.replace(year=year, month=month, day=day)


def protection_view(
    player_id: str, state: ProtectionRecord | None, now: datetime
) -> ProtectionView:
    if state is None:
        return ProtectionView(player_id, rules.ACTIVE, None, None, None, None)
    exclusion = None
    if state.exclusion_ends_at is not None and state.exclusion_ends_at > now:
        exclusion = {
            "kind": state.exclusion_kind,
            "started_at": state.exclusion_started_at,
            "ends_at": state.exclusion_ends_at,
        }
    session = None
    started = rules.current_session_start(state, now)
    if started is not None and rules.tracks_session(state, now):
        minutes = rules.time_limit(state, rules.SESSION_MINUTES, now)
        session = {
            "started_at": started,
            "last_bet_at": state.last_bet_at,
            "minutes_played": int((now - started).total_seconds() // 60),
            "limit_minutes": minutes,
            "ends_at": None if minutes is None else started + timedelta(minutes=minutes),
        }
    return ProtectionView(
        player_id=player_id,
        status=state.status,
        status_reason=state.status_reason,
        exclusion=exclusion,
        session=session,
        reality_check=rules.reality_check(state, now),
    )


def get_protection(uow: UnitOfWork, player_id: str) -> ProtectionView:
    require_player(uow, player_id)
    return protection_view(player_id, uow.protection.get(player_id), uow.now())


def exclude(
    uow: UnitOfWork,
    player_id: str,
    actor: rules.Actor,
    kind: str,
    *,
    days: int | None = None,
    months: int | None = None,
) -> ProtectionView:
    """Start a cool-off (``days``) or a self-exclusion (``months``) now."""
    now = uow.now()
    if kind == rules.COOL_OFF:
        low, high = COOL_OFF_DAYS
        if months is not None or type(days) is not int or not low <= days <= high:
            raise Invalid(f"a cool-off lasts {low} to {high} days (days)", code="invalid_exclusion")
        ends_at = now + timedelta(days=days)
    elif kind == rules.SELF_EXCLUSION:
        low, high = SELF_EXCLUSION_MONTHS
        if days is not None or type(months) is not int or not low <= months <= high:
            raise Invalid(
                f"a self-exclusion lasts {low} to {high} months (months)",
                code="invalid_exclusion",
            )
        ends_at = add_months(now, months)
    else:
        raise Invalid("kind is cool_off or self_exclusion", code="invalid_exclusion")
    require_player(uow, player_id)
    state = uow.protection.lock(player_id, now)
    current = state.exclusion_ends_at
    if current is not None and current > now:
        if ends_at <= current:
            raise Conflict(
                "an exclusion is in force until later; it cannot be shortened",
                code="exclusion_in_force",
                kind=state.exclusion_kind,
                ends_at=current.isoformat(),
            )
        started = state.exclusion_started_at
        if state.exclusion_kind == rules.SELF_EXCLUSION:
            kind = rules.SELF_EXCLUSION  # extended, never downgraded to a cool-off
    else:
        started = now
    state = replace(
        state,
        exclusion_kind=kind,
        exclusion_started_at=started,
        exclusion_ends_at=ends_at,
        updated_at=now,
    )
    uow.protection.save(state)
    uow.protection.add_account_event(
        player_id=player_id,
        action=kind,
        reason=None,
        old_status=state.status,
        new_status=state.status,
        ends_at=ends_at,
        created_at=now,
        changed_by=actor.role,
        actor=actor.subject,
    )
    return protection_view(player_id, state, now)


def change_status(
    uow: UnitOfWork, player_id: str, actor: rules.Actor, action: str, reason: str
) -> ProtectionView:
    """The operator's suspend / reactivate / close, with its reason."""
    status = STATUS_ACTIONS.get(action)
    if status is None:
        raise Invalid("action is suspend, reactivate or close", code="invalid_status_change")
    if not isinstance(reason, str) or not 1 <= len(reason.strip()) <= MAX_REASON:
        raise Invalid(
            f"a reason of 1 to {MAX_REASON} characters is required", code="invalid_reason"
        )
    require_player(uow, player_id)
    now = uow.now()
    state = uow.protection.lock(player_id, now)
    if state.status == status:
        raise Conflict(f"the account is already {status}", code="account_status_unchanged")
    old = state.status
    state = replace(state, status=status, status_reason=reason, updated_at=now)
    uow.protection.save(state)
    uow.protection.add_account_event(
        player_id=player_id,
        action=action,
        reason=reason,
        old_status=old,
        new_status=status,
        ends_at=None,
        created_at=now,
        changed_by=actor.role,
        actor=actor.subject,
    )
    return protection_view(player_id, state, now)


def acknowledge_reality_check(uow: UnitOfWork, player_id: str) -> ProtectionView:
    """The player saw the reality check: the next one is due an interval from now."""
    require_player(uow, player_id)
    now = uow.now()
    state = uow.protection.lock(player_id, now)
    state = replace(state, reality_check_acked_at=now, updated_at=now)
    uow.protection.save(state)
    return protection_view(player_id, state, now)


def list_account_events(
    uow: UnitOfWork, player_id: str, cursor: str | None = None, limit: int = 50
) -> Page[AccountEventView]:
    """Exclusions and status changes, newest first."""
    require_player(uow, player_id)
    size = clamp_limit(limit)
    before = None
    if cursor:
        (text,) = decode_cursor(cursor, 1)
        if not (text.isdigit() and len(text) <= 9):
            raise Invalid("malformed cursor", code="invalid_cursor")
        before = int(text)
    found: list[AccountEventRecord] = uow.protection.account_events(player_id, before, size + 1)
    more = len(found) > size
    found = found[:size]
    items = [
        AccountEventView(
            e.id,
            e.action,
            e.reason,
            e.old_status,
            e.new_status,
            e.ends_at,
            e.created_at,
            e.changed_by,
            e.actor,
        )
        for e in found
    ]
    return Page(items, encode_cursor(str(found[-1].id)) if more and found else None)
