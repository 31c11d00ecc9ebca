"""The seamless wallet calls that need a person (docs/integration.md §6): listed for the
operator's back office, and sent once more on its word once it has fixed its wallet.

A win or rollback the wallet refused, or never answered for the whole retry window, is
``needs_attention``: nobody retries it on their own, since sending it again blindly could
loop forever. An operator who fixed the cause asks for one more attempt (``retry``): the
call is leased to that request, sent at once and its answer recorded as any attempt's (the
protocol's ``transaction_id`` makes a second send of an applied call harmless). Still not
answered, it needs attention again.
"""

from __future__ import annotations

from datetime import UTC, timedelta
from typing import Any

from casino.service import wallet_outbox
from casino.service.errors import Conflict, NotFound
from casino.service.reconciliation import call_line, open_books_of
from casino.store.uow import UnitOfWork
from casino.store.wallet_call_records import NEEDS_ATTENTION, WalletCallRecord

#: How long a retry holds its call against the workers (the wallet's longest timeout).
RETRY_LEASE_MS = 60_000


def _view(record: WalletCallRecord) -> dict[str, Any]:
    due = record.next_attempt_at
    return {
        **call_line(record),
        "last_error": record.last_error,
        "next_attempt_at": None if due is None else due.astimezone(UTC).isoformat(),
    }


def stuck_calls(uow: UnitOfWork, operator_id: str, limit: int) -> dict[str, Any]:
    """The operator's calls that need attention, oldest first, and how many there are."""
    open_books_of(uow, operator_id)
    found, total = uow.wallet_calls.in_state(NEEDS_ATTENTION, limit)
    return {"operator_id": operator_id, "total": total, "items": [_view(r) for r in found]}


def retry_call(
    uow: UnitOfWork,
    operator_id: str,
    transaction_id: str,
    window: timedelta = wallet_outbox.RETRY_WINDOW,
) -> dict[str, Any]:
    """One more attempt of a call that needs attention; the call as it stands after it
    (not answered: pending again while within the retry ``window``, else it needs attention
    again)."""
    open_books_of(uow, operator_id)
    if uow.wallet_calls.get(transaction_id) is None:
        raise NotFound("no such wallet call", code="wallet_call_not_found")
    lease = wallet_outbox.lease(RETRY_LEASE_MS)
    if not uow.wallet_calls.reopen(transaction_id, uow.now(), lease):
        raise Conflict(
            "only a wallet call that needs attention is sent again on request",
            code="wallet_call_not_stuck",
        )
    uow.commit()
    record = uow.wallet_calls.get(transaction_id)
    assert record is not None
    wallet_outbox.attempt(uow, record, window)
    after = uow.wallet_calls.get(transaction_id)
    assert after is not None
    return _view(after)
