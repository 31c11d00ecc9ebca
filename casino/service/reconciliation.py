"""Reconciliation of a seamless operator's wallet calls (docs/integration.md §7).

``day_summary``: per currency, the bets, wins and rollbacks the wallet applied (count and
amount), what is still pending and what needs a person. ``day_lines``: every call of the
day as NDJSON. ``compare``: our calls against the operator's own records of them (the demo
wallet's CSV, or any file with its first eight columns), every difference listed.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from casino.service.errors import Invalid, NotFound
from casino.store.uow import UnitOfWork
from casino.store.wallet_call_records import (
    FINAL,
    NEEDS_ATTENTION,
    OK,
    PENDING,
    UNKNOWN,
    WalletCallRecord,
)

MEDIA_TYPE = "application/x-ndjson"
_KINDS = {"bet": "bets", "win": "wins", "rollback": "rollbacks"}


def day_bounds(day: Any) -> tuple[date, datetime, datetime]:
    """The UTC day ``day`` (YYYY-MM-DD) as [since, until)."""
    try:
        parsed = day if isinstance(day, date) else date.fromisoformat(str(day))
        if not isinstance(day, date) and len(str(day)) != 10:
            raise ValueError(day)
    except ValueError:
        raise Invalid("date must be a day written YYYY-MM-DD", code="invalid_date") from None
    since = datetime.combine(parsed, time(), UTC)
    return parsed, since, since + timedelta(days=1)


def open_books_of(uow: UnitOfWork, operator_id: str) -> None:
    """Read ``operator_id``'s calls: the platform any operator's (the unit of work then acts
    for it), an operator its own only (another id: 404 like a missing one)."""
    if uow.operator_id is None:
        if not isinstance(operator_id, str) or uow.operators.get(operator_id) is None:
            raise NotFound("no such operator", code="operator_not_found")
        uow.act_for(operator_id)
    elif uow.operator_id != operator_id:
        raise NotFound("no such operator", code="operator_not_found")


def day_summary(uow: UnitOfWork, day: Any) -> dict[str, Any]:
    parsed, since, until = day_bounds(day)
    by_currency: dict[str, dict[str, dict[str, int]]] = {}
    for row in uow.wallet_calls.day_summary(since, until):
        entry = by_currency.setdefault(
            row.currency,
            {
                name: {"count": 0, "amount": 0}
                for name in (
                    "bets",
                    "wins",
                    "rollbacks",
                    "unknown_bets",
                    "pending",
                    "needs_attention",
                )
            },
        )
        if row.state == OK:
            target = _KINDS[row.endpoint]
        elif row.state == PENDING:
            target = "pending"
        elif row.state == NEEDS_ATTENTION:
            target = "needs_attention"
        elif row.state == UNKNOWN:
            target = "unknown_bets"
        else:
            continue  # refused: moved nothing
        entry[target]["count"] += row.count
        entry[target]["amount"] += row.amount
    return {
        "operator_id": uow.operator_id,
        "date": parsed.isoformat(),
        "currencies": [
            {"currency": currency, **totals} for currency, totals in sorted(by_currency.items())
        ],
    }


def call_line(record: WalletCallRecord) -> dict[str, Any]:
    return {
        "transaction_id": record.transaction_id,
        "operator_transaction_id": record.operator_transaction_id,
        "kind": record.endpoint,
        "bet_kind": record.call.get("kind"),
        "round_id": record.round_id,
        "player": record.call.get("player"),
        "player_id": record.player_id,
        "currency": record.currency,
        "amount": record.amount,
        "reference_transaction_id": record.reference_transaction_id,
        "status": record.state,
        "wallet_status": record.wallet_status,
        "attempts": record.attempts,
        "created_at": record.created_at.astimezone(UTC).isoformat(),
        "updated_at": record.updated_at.astimezone(UTC).isoformat(),
    }


def day_lines(uow: UnitOfWork, day: Any) -> Iterator[bytes]:
    _, since, until = day_bounds(day)
    for record in uow.wallet_calls.day_calls(since, until):
        yield json.dumps(call_line(record), separators=(",", ":")).encode() + b"\n"


# ------------------------------------------------------------------- against their records


@dataclass(frozen=True)
class Theirs:
    transaction_id: str
    kind: str
    amount: int
    status: str
    round_id: str
    player: str
    currency: str
    created_at: str


def read_theirs(lines: Iterable[str]) -> dict[str, Theirs]:
    """The operator's records (a CSV with a header row; the first eight columns of the
    demo wallet's export: transaction_id, kind, amount, status, round_id, player, currency,
    created_at)."""
    found = {}
    for row in csv.DictReader(lines):
        record = Theirs(
            transaction_id=row["transaction_id"],
            kind=row["kind"],
            amount=int(row["amount"]),
            status=row["status"],
            round_id=row["round_id"],
            player=row["player"],
            currency=row["currency"],
            created_at=row["created_at"],
        )
        found[record.transaction_id] = record
    return found


def compare(uow: UnitOfWork, day: Any, theirs: dict[str, Theirs]) -> list[str]:
    """Every difference between our calls of the day and the operator's records."""
    parsed, since, until = day_bounds(day)
    ours = {r.transaction_id: r for r in uow.wallet_calls.day_calls(since, until)}
    rollbacks: dict[str, WalletCallRecord] = {
        r.reference_transaction_id: r
        for r in ours.values()
        if r.endpoint == "rollback" and r.reference_transaction_id
    }
    differences = []
    for tx_id, record in ours.items():
        other = theirs.get(tx_id)
        applied_there = other is not None and other.status == "OK"
        where = f"{record.endpoint} {tx_id} (round {record.round_id})"
        if other is not None and (other.kind, other.amount) != (record.endpoint, record.amount):
            mine = f"{record.endpoint} {record.amount}"
            differences.append(f"{where}: ours {mine}, theirs {other.kind} {other.amount}")
            continue
        if record.state == OK and not applied_there:
            differences.append(f"{where}: applied here, {_their_status(other)} there")
        elif record.state in (PENDING, NEEDS_ATTENTION):
            differences.append(f"{where}: {record.state} here, {_their_status(other)} there")
        elif record.state == FINAL and applied_there:
            differences.append(f"{where}: refused here ({record.wallet_status}), OK there")
        elif record.state == UNKNOWN:
            rollback = rollbacks.get(tx_id)
            if rollback is None or rollback.state in (PENDING, NEEDS_ATTENTION):
                differences.append(f"{where}: outcome unknown and its rollback not done")
            elif rollback.state == FINAL and applied_there:
                # TRANSACTION_NOT_FOUND here, yet the wallet kept the bet: a late bet.
                differences.append(f"{where}: rolled back as never seen, yet applied there")
    day_text = parsed.isoformat()
    for tx_id, other in theirs.items():
        if tx_id not in ours and other.status == "OK" and other.created_at.startswith(day_text):
            differences.append(
                f"{other.kind} {tx_id} (round {other.round_id}): applied there, unknown here"
            )
    return differences


def _their_status(other: Theirs | None) -> str:
    return "missing" if other is None else other.status


def totals_by_kind(records: Iterable[WalletCallRecord]) -> dict[str, int]:
    """Amounts the wallet applied, by kind (bets, wins, rollbacks)."""
    totals: dict[str, int] = defaultdict(int)
    for record in records:
        if record.state == OK:
            totals[_KINDS[record.endpoint]] += record.amount
    return dict(totals)
