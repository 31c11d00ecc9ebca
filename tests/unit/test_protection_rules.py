"""Player protection's rules on their own: calendar periods, the 24-hour rule for raises and
removals, calendar months of a self-exclusion, limits in force."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from casino.service.accounts import add_months
from casino.service.limits import Pending, decide
from casino.service.protection import RAISE_DELAY, in_force, period_bounds

NOW = datetime(2031, 12, 31, 23, 30, tzinfo=UTC)  # a Wednesday, the year's last half hour


@pytest.mark.parametrize(
    "period, start, end",
    [
        ("day", datetime(2031, 12, 31, tzinfo=UTC), datetime(2032, 1, 1, tzinfo=UTC)),
        ("week", datetime(2031, 12, 29, tzinfo=UTC), datetime(2032, 1, 5, tzinfo=UTC)),
        ("month", datetime(2031, 12, 1, tzinfo=UTC), datetime(2032, 1, 1, tzinfo=UTC)),
    ],
)
def test_periods_are_calendar_ones_in_utc(period: str, start: datetime, end: datetime) -> None:
    assert period_bounds(period, NOW) == (start, end)
    assert period_bounds(period, start) == (start, end)  # a boundary opens its period
    assert period_bounds(period, end - timedelta(microseconds=1)) == (start, end)
    # Another time zone names the same instant: the same period.
    assert period_bounds(period, NOW.astimezone(tz=None)) == (start, end)


def test_february_and_unknown_periods() -> None:
    leap = datetime(2032, 2, 29, 12, tzinfo=UTC)
    assert period_bounds("month", leap) == (
        datetime(2032, 2, 1, tzinfo=UTC),
        datetime(2032, 3, 1, tzinfo=UTC),
    )
    with pytest.raises(ValueError):
        period_bounds("year", leap)


def test_lower_at_once_higher_and_removal_after_the_delay() -> None:
    later = NOW + RAISE_DELAY
    first = decide(None, None, 500, NOW)
    assert first is not None and (first.value, first.pending, first.effective_at) == (
        500,
        None,
        NOW,
    )
    lower = decide(500, None, 300, NOW)
    assert lower is not None and (lower.value, lower.pending) == (300, None)
    higher = decide(500, None, 800, NOW)
    assert higher is not None and (higher.value, higher.pending) == (500, Pending(800, later))
    removal = decide(500, None, None, NOW)
    assert removal is not None and (removal.value, removal.pending) == (500, Pending(None, later))
    # No change: the same limit, removing nothing, the same pending change again.
    assert decide(500, None, 500, NOW) is None
    assert decide(None, None, None, NOW) is None
    assert decide(500, Pending(800, later), 800, NOW + timedelta(hours=1)) is None
    # Asking for the limit in force (or lower) cancels a pending raise, at once.
    cancel = decide(500, Pending(800, later), 500, NOW)
    assert cancel is not None and (cancel.value, cancel.pending) == (500, None)
    # Another raise restarts the clock.
    other = decide(500, Pending(800, later), 900, NOW + timedelta(hours=1))
    assert other is not None and other.pending == Pending(900, later + timedelta(hours=1))


def test_a_pending_change_is_in_force_from_its_time() -> None:
    at = NOW + RAISE_DELAY
    assert in_force(500, 800, at, at - timedelta(microseconds=1)) == 500
    assert in_force(500, 800, at, at) == 800
    assert in_force(500, None, at, at) is None  # a removal
    assert in_force(500, None, None, at) == 500


@pytest.mark.parametrize(
    "start, months, end",
    [
        (datetime(2031, 3, 5, 12, tzinfo=UTC), 6, datetime(2031, 9, 5, 12, tzinfo=UTC)),
        (datetime(2031, 8, 31, tzinfo=UTC), 6, datetime(2032, 2, 29, tzinfo=UTC)),
        (datetime(2031, 12, 15, tzinfo=UTC), 60, datetime(2036, 12, 15, tzinfo=UTC)),
        (datetime(2031, 7, 31, tzinfo=UTC), 11, datetime(2032, 6, 30, tzinfo=UTC)),
    ],
)
def test_self_exclusion_months_are_calendar_months(
    start: datetime, months: int, end: datetime
) -> None:
    assert add_months(start, months) == end
