"""Player protection rules, applied inside the money's own unit of work.

A bet, a decision and a deposit ask here whether they may go ahead, with what their claim
read (the player's protection row and limits, locked where a bet's are) and the unit of
work's clock; what they change of the limits' usage and of the play session goes to the
commit with the money (``casino_commit``), which refuses a movement that would take a usage
past its limit even if this check ran on an older state. docs/player-protection.md has the
rules and the regulatory requirements they answer.

Periods are calendar periods in UTC: the day from midnight, the week from Monday midnight,
the month from the 1st at midnight; each resets at the next boundary (``resets_at``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from casino.service.errors import Conflict, Forbidden
from casino.store.protection_records import LimitRecord, ProtectionRecord
from casino.store.uow import UnitOfWork

DEPOSIT = "deposit"
LOSS = "loss"
WAGER = "wager"
LIMIT_KINDS = (DEPOSIT, LOSS, WAGER)
PERIODS = ("day", "week", "month")
SESSION_MINUTES = "session_minutes"
REALITY_CHECK_MINUTES = "reality_check_minutes"
TIME_LIMITS = (SESSION_MINUTES, REALITY_CHECK_MINUTES)
#: A play session ends after this long without a bet; the next bet starts a new one.
SESSION_BREAK = timedelta(minutes=30)
#: A raise or removal of a limit waits this long; a lower limit applies at once.
RAISE_DELAY = timedelta(hours=24)

ACTIVE = "active"
SUSPENDED = "suspended"
CLOSED = "closed"
COOL_OFF = "cool_off"
SELF_EXCLUSION = "self_exclusion"


@dataclass(frozen=True)
class Actor:
    """Who asks for a change: ``role`` (player or operator) and the caller's subject."""

    role: str
    subject: str
    #: The game session whose token the player called with, if one did: a session may
    #: protect the player (lower a limit, exclude) but not raise its risk.
    session_id: str | None = None


# --- periods and limits in force ---------------------------------------------------------


def period_bounds(period: str, now: datetime) -> tuple[datetime, datetime]:
    """The calendar period (UTC) containing ``now``: its start and the next one's start."""
    day = now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "day":
        return day, day + timedelta(days=1)
    if period == "week":
        start = day - timedelta(days=day.weekday())
        return start, start + timedelta(days=7)
    if period == "month":
        start = day.replace(day=1)
        following = (start + timedelta(days=32)).replace(day=1)
        return start, following
    raise ValueError(f"unknown period {period!r}")


def in_force(
    value: int | None, pending: int | None, pending_at: datetime | None, now: datetime
) -> int | None:
    """A limit's value at ``now``: the pending change once its time has come."""
    if pending_at is not None and pending_at <= now:
        return pending
    return value


def limit_in_force(row: LimitRecord, now: datetime) -> int | None:
    return in_force(row.amount, row.pending_amount, row.pending_at, now)


def used_now(row: LimitRecord, now: datetime) -> int:
    """What the player used of the limit in the period containing ``now``."""
    start, _ = period_bounds(row.period, now)
    return row.used if row.period_start == start else 0


#: A period's adjective in the refusal's words ("daily", not "dayly").
PERIOD_ADJECTIVES = {"day": "daily", "week": "weekly", "month": "monthly"}


def limit_exceeded(row: LimitRecord, limit: int, now: datetime) -> Conflict:
    used = used_now(row, now)
    _, resets_at = period_bounds(row.period, now)
    return Conflict(
        f"this would exceed the player's {PERIOD_ADJECTIVES[row.period]} {row.kind} limit of "
        f"{limit} {row.currency} minor units",
        code="limit_exceeded",
        limit=row.kind,
        period=row.period,
        currency=row.currency,
        limit_amount=limit,
        used=used,
        remaining=max(0, limit - used),
        resets_at=resets_at.isoformat(),
    )


def check_limits(rows: Iterable[LimitRecord], risks: Mapping[str, int], now: datetime) -> None:
    """Refuse (409 limit_exceeded) a movement that risks ``risks[kind]`` more against a
    limit in force, given each limit's usage in the current period."""
    for row in rows:
        risk = risks.get(row.kind, 0)
        limit = limit_in_force(row, now)
        if risk > 0 and limit is not None and used_now(row, now) + risk > limit:
            raise limit_exceeded(row, limit, now)


def count(
    uow: UnitOfWork,
    rows: Iterable[LimitRecord],
    moves: Mapping[str, tuple[int, int]],
    now: datetime,
) -> None:
    """At commit, add each kind's (delta, risk) to the usage of the player's rows of it."""
    for row in rows:
        if row.kind in moves:
            delta, risk = moves[row.kind]
            start, _ = period_bounds(row.period, now)
            uow.protection.count_usage(row, period_start=start, delta=delta, risk=risk, as_of=now)


def find_exceeded(
    uow: UnitOfWork, player_id: str, currency: str, risks: Mapping[str, int]
) -> Conflict:
    """After a commit refused by a limit (``limit_guard``): the refusal, from the rows as
    they stand now."""
    now = uow.now()
    rows = uow.protection.limits(player_id, currency, list(risks))
    try:
        check_limits(rows, risks, now)
    except Conflict as error:
        return error
    return Conflict("a limit of the player was reached meanwhile; retry", code="limit_exceeded")


# --- status, exclusion, session ----------------------------------------------------------


#: The codes ``check_account`` refuses with.
BLOCKED = ("account_suspended", "account_closed", "self_excluded", "cooling_off")


def check_account(protection: ProtectionRecord | None, now: datetime) -> None:
    """403 if the account may not start a round or deposit now: suspended or closed by the
    operator, self-excluded or cooling off."""
    if protection is None:
        return
    if protection.status == SUSPENDED:
        raise Forbidden("the account is suspended", code="account_suspended")
    if protection.status == CLOSED:
        raise Forbidden("the account is closed", code="account_closed")
    ends_at = protection.exclusion_ends_at
    if ends_at is not None and ends_at > now:
        if protection.exclusion_kind == SELF_EXCLUSION:
            raise Forbidden(
                "the player is self-excluded", code="self_excluded", ends_at=ends_at.isoformat()
            )
        raise Forbidden(
            "the player is cooling off", code="cooling_off", ends_at=ends_at.isoformat()
        )


def time_limit(protection: ProtectionRecord, name: str, now: datetime) -> int | None:
    if name == SESSION_MINUTES:
        return in_force(
            protection.session_minutes,
            protection.session_minutes_pending,
            protection.session_minutes_pending_at,
            now,
        )
    return in_force(
        protection.reality_check_minutes,
        protection.reality_check_minutes_pending,
        protection.reality_check_minutes_pending_at,
        now,
    )


def tracks_session(protection: ProtectionRecord | None, now: datetime) -> bool:
    """Only players with a time limit in force have their play session kept."""
    return protection is not None and any(
        time_limit(protection, name, now) is not None for name in TIME_LIMITS
    )


def current_session_start(protection: ProtectionRecord, now: datetime) -> datetime | None:
    """When the session going on at ``now`` started; None if none is (a break ended it)."""
    last = protection.last_bet_at
    if last is None or protection.session_started_at is None or now - last >= SESSION_BREAK:
        return None
    return protection.session_started_at


def check_session(protection: ProtectionRecord | None, now: datetime) -> None:
    """403 session_time_limit once the session has lasted the player's session limit."""
    if protection is None:
        return
    minutes = time_limit(protection, SESSION_MINUTES, now)
    started = current_session_start(protection, now)
    if minutes is None or started is None or protection.last_bet_at is None:
        return
    if now - started >= timedelta(minutes=minutes):
        raise Forbidden(
            f"the session limit of {minutes} minutes is reached; play again after a break "
            f"of {int(SESSION_BREAK.total_seconds() // 60)} minutes",
            code="session_time_limit",
            session_started_at=started.isoformat(),
            resets_at=(protection.last_bet_at + SESSION_BREAK).isoformat(),
        )


def session_after_bet(
    uow: UnitOfWork, protection: ProtectionRecord | None, now: datetime
) -> ProtectionRecord | None:
    """The row as an accepted bet leaves it (kept at commit when a time limit is set)."""
    if protection is None or not tracks_session(protection, now):
        return protection
    started = current_session_start(protection, now)
    acked = protection.reality_check_acked_at
    if started is None:  # a new session: its reality checks count from its start
        started, acked = now, now
    uow.protection.keep_session(
        protection.player_id,
        session_started_at=started,
        last_bet_at=now,
        reality_check_acked_at=acked,
    )
    return _with_session(protection, started, now, acked)


def _with_session(
    protection: ProtectionRecord, started: datetime, last: datetime, acked: datetime | None
) -> ProtectionRecord:
    return replace(
        protection, session_started_at=started, last_bet_at=last, reality_check_acked_at=acked
    )


def reality_check(protection: ProtectionRecord | None, now: datetime) -> dict[str, Any] | None:
    """The reality check due now, if any: reported in round responses until acknowledged."""
    if protection is None:
        return None
    minutes = time_limit(protection, REALITY_CHECK_MINUTES, now)
    started = current_session_start(protection, now)
    if minutes is None or started is None:
        return None
    acked = protection.reality_check_acked_at
    since = started if acked is None or acked < started else acked
    due_at = since + timedelta(minutes=minutes)
    if now < due_at:
        return None
    return {
        "due_at": due_at,
        "session_started_at": started,
        "minutes_played": int((now - started).total_seconds() // 60),
        "interval_minutes": minutes,
        "acknowledge": f"/api/v1/players/{protection.player_id}/reality-check",
    }


def due_reality_check(uow: UnitOfWork, player_id: str) -> dict[str, Any] | None:
    """The reality check due now for ``player_id``, read without a lock."""
    return reality_check(uow.protection.get(player_id), uow.now())
