"""The commit itself refuses a movement that would take a limit's usage past the limit in
force (casino_commit on PostgreSQL, the same statements on SQLite), whatever the check
before it saw: the guard reads the row as it stands when it writes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from casino.service import limits as limit_service
from casino.service.errors import Conflict
from casino.service.protection import Actor, period_bounds
from casino.store.uow import UnitOfWork
from casino.store.writes import LIMIT_GUARD

from .conftest import Svc

NOW = datetime(2031, 3, 5, 12, 0, tzinfo=UTC)
OPERATOR = Actor("operator", "operator:test")


def clocked(svc: Svc, now: datetime) -> UnitOfWork:
    return UnitOfWork(svc.factory, clock=lambda: now, operator=svc.operator)


def set_wager_limit(svc: Svc, player_id: str, amount: int | None, now: datetime) -> None:
    with clocked(svc, now) as uow:
        limit_service.set_limits(
            uow, player_id, OPERATOR, currency="EUR", money={"wager": {"day": amount}}
        )
        uow.commit()


def count(svc: Svc, player_id: str, delta: int, risk: int, now: datetime) -> None:
    """Count a movement at commit, with no check before: only the guard decides."""
    with clocked(svc, now) as uow:
        (row,) = uow.protection.limits(player_id, "EUR", ["wager"])
        start, _ = period_bounds("day", now)
        uow.protection.count_usage(row, period_start=start, delta=delta, risk=risk, as_of=now)
        uow.on_conflict(LIMIT_GUARD, lambda: Conflict("refused", code="limit_exceeded"))
        uow.commit()


def used(svc: Svc, player_id: str, now: datetime) -> int:
    with clocked(svc, now) as uow:
        view = limit_service.get_limits(uow, player_id)
    return next(m.used for m in view.money if m.limit == "wager")


def test_the_commit_refuses_usage_past_the_limit(svc: Svc) -> None:
    player_id = svc.player()
    set_wager_limit(svc, player_id, 1_000, NOW)
    count(svc, player_id, 900, 900, NOW)
    with pytest.raises(Conflict):
        count(svc, player_id, 200, 200, NOW)
    assert used(svc, player_id, NOW) == 900
    count(svc, player_id, 100, 100, NOW)  # exactly at the limit
    # What really moved may be less than what was risked; a risk of 0 always passes.
    count(svc, player_id, -300, 0, NOW)
    assert used(svc, player_id, NOW) == 700


def test_the_guard_knows_periods_and_pending_changes(svc: Svc) -> None:
    player_id = svc.player()
    set_wager_limit(svc, player_id, 1_000, NOW)
    count(svc, player_id, 1_000, 1_000, NOW)
    tomorrow = NOW + timedelta(days=1)
    count(svc, player_id, 1_000, 1_000, tomorrow)  # a new day starts from nothing
    assert used(svc, player_id, tomorrow) == 1_000
    set_wager_limit(svc, player_id, 5_000, tomorrow)  # a raise: pending for 24 hours
    before = tomorrow + timedelta(hours=23)  # the next day, 11:00: the old limit holds
    count(svc, player_id, 1_000, 1_000, before)
    with pytest.raises(Conflict):
        count(svc, player_id, 1, 1, before)
    raised = tomorrow + timedelta(hours=24)
    count(svc, player_id, 3_000, 3_000, raised)
    assert used(svc, player_id, raised) == 4_000
    with pytest.raises(Conflict):
        count(svc, player_id, 1_001, 1_001, raised)
    set_wager_limit(svc, player_id, None, raised)  # removal: pending for 24 hours
    with pytest.raises(Conflict):  # the next day: 5,000 still in force
        count(svc, player_id, 5_001, 5_001, raised + timedelta(hours=23, minutes=59))
    count(svc, player_id, 10**9, 10**9, raised + timedelta(hours=24))  # nothing to exceed
