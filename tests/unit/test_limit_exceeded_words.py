"""The words of a limit_exceeded refusal: each period's adjective is English ("daily")."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from casino.service.protection import limit_exceeded
from casino.store.protection_records import LimitRecord

NOW = datetime(2031, 12, 31, 23, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    "period, adjective", [("day", "daily"), ("week", "weekly"), ("month", "monthly")]
)
def test_the_detail_names_the_period_in_words(period: str, adjective: str) -> None:
    row = LimitRecord(
        player_id="p",
        currency="EUR",
        kind="loss",
        period=period,
        amount=1000,
        pending_amount=None,
        pending_at=None,
        used=0,
        period_start=NOW,
        updated_at=NOW,
    )
    refusal = limit_exceeded(row, 1000, NOW)
    assert f"the player's {adjective} loss limit of 1000 EUR" in refusal.detail
    assert refusal.extra["period"] == period
