"""Plain records of player protection that the store hands to the service layer."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime


@dataclass(frozen=True)
class ProtectionRecord:
    """A player's row of ``player_protection`` (see casino.store.protection_models)."""

    player_id: str
    status: str
    status_reason: str | None
    exclusion_kind: str | None
    exclusion_started_at: datetime | None
    exclusion_ends_at: datetime | None
    session_minutes: int | None
    session_minutes_pending: int | None
    session_minutes_pending_at: datetime | None
    reality_check_minutes: int | None
    reality_check_minutes_pending: int | None
    reality_check_minutes_pending_at: datetime | None
    session_started_at: datetime | None
    last_bet_at: datetime | None
    reality_check_acked_at: datetime | None
    updated_at: datetime


PROTECTION_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(ProtectionRecord))
PROTECTION_TIMES = frozenset(name for name in PROTECTION_COLUMNS if name.endswith("_at"))


@dataclass(frozen=True)
class LimitRecord:
    """A money limit (``player_limits``) with the usage of the period at ``period_start``."""

    player_id: str
    currency: str
    kind: str
    period: str
    amount: int | None
    pending_amount: int | None
    pending_at: datetime | None
    used: int
    period_start: datetime
    updated_at: datetime


LIMIT_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(LimitRecord))
LIMIT_TIMES = frozenset({"pending_at", "period_start", "updated_at"})


@dataclass(frozen=True)
class CashState:
    """What a deposit or withdrawal needs to know about its player before moving money:
    the protection row (None: the player has none) and whether the player has deposit limits
    in the currency (read after the wallet is locked, only then)."""

    protection: ProtectionRecord | None
    has_deposit_limits: bool


@dataclass(frozen=True)
class LimitChangeRecord:
    id: int
    player_id: str
    currency: str | None
    name: str
    period: str | None
    old_value: int | None
    new_value: int | None
    requested_at: datetime
    effective_at: datetime
    changed_by: str
    actor: str


@dataclass(frozen=True)
class AccountEventRecord:
    id: int
    player_id: str
    action: str
    reason: str | None
    old_status: str
    new_status: str
    ends_at: datetime | None
    created_at: datetime
    changed_by: str
    actor: str


@dataclass(frozen=True)
class LedgerTotals:
    """One currency's movements of a player's wallet over a span of time, from the ledger:
    deposits, withdrawals, what the rounds took from the wallet (wagered) and paid into it
    (won), and how many rounds started."""

    currency: str
    deposits: int
    withdrawals: int
    wagered: int
    won: int
    rounds: int
