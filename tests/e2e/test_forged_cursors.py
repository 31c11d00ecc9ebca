"""Cursors are opaque, but a client can forge one: every forgery is a 422, never a 500.

Found by review: other scripts' digits and huge numbers reached ``int()`` and the database,
a timestamp at the edge of the calendar overflowed on its UTC offset, and a NUL reached
PostgreSQL.
"""

from __future__ import annotations

import base64

import pytest

from .helpers import Api, Player, assert_problem


def forged(*parts: str) -> str:
    return base64.urlsafe_b64encode("\x1f".join(parts).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "cursor",
    [forged("\u00b2"), forged("9" * 40), forged("12\x00")],
    ids=["superscript-digit", "beyond-bigint", "nul"],
)
def test_forged_transaction_cursor(api: Api, player: Player, cursor: str) -> None:
    api.deposit(player, 10)
    response = api.get(
        f"/api/v1/players/{player.id}/transactions?cursor={cursor}", auth=player.auth
    )
    assert_problem(response, 422, "invalid_cursor")


@pytest.mark.parametrize(
    "cursor",
    [
        forged("0001-01-01T00:00:00+01:00", "00000000-0000-4000-8000-000000000000"),
        forged("9999-12-31T23:59:59-01:00", "00000000-0000-4000-8000-000000000000"),
        forged("2024-01-01T00:00:00", "a\x00b"),
        forged("2024-01-01T00:00:00", "not-a-round-id"),
    ],
    ids=["year-1-with-offset", "year-9999-with-offset", "nul-in-id", "not-a-uuid"],
)
def test_forged_round_cursor(api: Api, player: Player, cursor: str) -> None:
    response = api.get(f"/api/v1/rounds?cursor={cursor}", auth=player.auth)
    assert_problem(response, 422, "invalid_cursor")
