"""A player's statement over a span of time, per currency, from the ledger itself.

``opening_balance`` is the wallet after its last transaction before ``from``,
``closing_balance`` after its last one before ``to`` (the span is ``from <= t < to``);
between them: deposits, withdrawals, what the rounds took from the wallet (``wagered``: antes,
tie bets and raises) and paid into it (``won``: stakes returned included), ``net`` = won -
wagered, and the rounds started. For every currency closing = opening + deposits -
withdrawals + net, as the ledger's own wallet postings add up.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from casino.service.common import require_player
from casino.service.errors import Invalid
from casino.store.protection_records import LedgerTotals
from casino.store.uow import UnitOfWork


@dataclass(frozen=True)
class StatementLine:
    currency: str
    opening_balance: int
    closing_balance: int
    deposits: int
    withdrawals: int
    wagered: int
    won: int
    net: int
    rounds: int


@dataclass(frozen=True)
class StatementView:
    player_id: str
    start: datetime
    end: datetime
    currencies: list[StatementLine]


def statement(uow: UnitOfWork, player_id: str, start: datetime, end: datetime) -> StatementView:
    if start.tzinfo is None or end.tzinfo is None:
        raise Invalid("from and to need a time zone", code="invalid_period")
    if not start < end:
        raise Invalid("from must be before to", code="invalid_period")
    try:
        start.astimezone(UTC), end.astimezone(UTC)
    except OverflowError:  # year 1 ahead of UTC, year 9999 behind it: no such moment in UTC
        raise Invalid(
            "from and to must fall within the years 1 to 9999 in UTC", code="invalid_period"
        ) from None
    require_player(uow, player_id)
    store = uow.protection
    totals = {t.currency: t for t in store.ledger_totals(player_id, start, end)}
    opening = store.balances_before(player_id, start)
    closing = store.balances_before(player_id, end)
    lines = []
    for currency in sorted(set(opening) | set(closing) | set(totals)):
        moved = totals.get(currency) or LedgerTotals(currency, 0, 0, 0, 0, 0)
        lines.append(
            StatementLine(
                currency=currency,
                opening_balance=opening.get(currency, 0),
                closing_balance=closing.get(currency, 0),
                deposits=moved.deposits,
                withdrawals=moved.withdrawals,
                wagered=moved.wagered,
                won=moved.won,
                net=moved.won - moved.wagered,
                rounds=moved.rounds,
            )
        )
    return StatementView(player_id, start, end, lines)
