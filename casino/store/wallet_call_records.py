"""Plain records of the seamless wallet's calls, as the store hands them to the service layer."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

#: The states of a call (docs/integration.md §6).
PENDING = "pending"  # a win or rollback still to be sent (or sent again)
OK = "ok"  # the wallet applied it
FINAL = "final"  # a definite refusal, or a rollback of a bet the wallet never saw: done
UNKNOWN = "unknown"  # a bet whose outcome is unknown: its rollback is queued
NEEDS_ATTENTION = "needs_attention"  # retried for the whole window without a final answer
STATES = (PENDING, OK, FINAL, UNKNOWN, NEEDS_ATTENTION)


@dataclass(frozen=True)
class WalletCallRecord:
    transaction_id: str
    operator_id: str
    player_id: str
    round_id: str
    endpoint: str
    currency: str
    amount: int
    reference_transaction_id: str | None
    call: dict[str, Any]
    state: str
    wallet_status: str | None
    operator_transaction_id: str | None
    attempts: int
    last_error: str | None
    created_at: datetime
    updated_at: datetime
    next_attempt_at: datetime | None
