"""Tables of player protection (docs/player-protection.md): account status, exclusions,
session state, money limits with their usage, the history of every change, and the payment
references already used.

Every row belongs to one player; nothing here is shared between players, so the bet path
locks only rows of the player who bets. A player who never had a limit, an exclusion or a
status change has no row in any of these tables and a bet reads none.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, CheckConstraint, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from casino.store.base import Base
from casino.store.types import UTCDateTime


class PlayerProtection(Base):
    """A player's account status, exclusion, time limits and play session.

    A time limit (``session_minutes``, ``reality_check_minutes``) has a value in force and
    possibly a pending change (``*_pending`` with ``*_pending_at``: a raise or a removal,
    NULL pending value = removal) that takes effect at ``*_pending_at``. The session columns
    are kept only while a time limit is set.
    """

    __tablename__ = "player_protection"
    __table_args__ = (
        CheckConstraint("status IN ('active', 'suspended', 'closed')", name="status_known"),
        CheckConstraint(
            "exclusion_kind IS NULL OR exclusion_kind IN ('cool_off', 'self_exclusion')",
            name="exclusion_known",
        ),
        CheckConstraint(
            "(exclusion_kind IS NULL) = (exclusion_ends_at IS NULL)", name="exclusion_has_end"
        ),
    )

    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    status: Mapped[str] = mapped_column(String(16))
    status_reason: Mapped[str | None] = mapped_column(String(500))
    exclusion_kind: Mapped[str | None] = mapped_column(String(16))
    exclusion_started_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    exclusion_ends_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    session_minutes: Mapped[int | None] = mapped_column(Integer)
    session_minutes_pending: Mapped[int | None] = mapped_column(Integer)
    session_minutes_pending_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    reality_check_minutes: Mapped[int | None] = mapped_column(Integer)
    reality_check_minutes_pending: Mapped[int | None] = mapped_column(Integer)
    reality_check_minutes_pending_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    session_started_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    last_bet_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    reality_check_acked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())


class PlayerLimit(Base):
    """One money limit of a player in one currency (deposit, loss or wager per day, week or
    month) and what the player used of it in the period that starts at ``period_start``.

    ``amount`` is in force; ``pending_amount`` (NULL: removal) takes over at ``pending_at``.
    ``used`` is kept by every money movement the limit counts, in the same statement that
    moves the money (casino_commit), and never exceeds the limit.
    """

    __tablename__ = "player_limits"
    __table_args__ = (
        CheckConstraint("kind IN ('deposit', 'loss', 'wager')", name="kind_known"),
        CheckConstraint("period IN ('day', 'week', 'month')", name="period_known"),
        CheckConstraint("amount IS NULL OR amount > 0", name="amount_positive"),
        CheckConstraint(
            "pending_amount IS NULL OR pending_amount > 0", name="pending_amount_positive"
        ),
    )

    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    currency: Mapped[str] = mapped_column(String(3), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    period: Mapped[str] = mapped_column(String(8), primary_key=True)
    amount: Mapped[int | None] = mapped_column(BigInteger)
    pending_amount: Mapped[int | None] = mapped_column(BigInteger)
    pending_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    used: Mapped[int] = mapped_column(BigInteger)
    period_start: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())


class LimitChange(Base):
    """The history of limits: who asked for which change, when, and when it takes effect."""

    __tablename__ = "limit_changes"
    __table_args__ = (Index("ix_limit_changes_player_id_id", "player_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    currency: Mapped[str | None] = mapped_column(String(3))
    name: Mapped[str] = mapped_column(String(32))
    period: Mapped[str | None] = mapped_column(String(8))
    old_value: Mapped[int | None] = mapped_column(BigInteger)
    new_value: Mapped[int | None] = mapped_column(BigInteger)
    requested_at: Mapped[datetime] = mapped_column(UTCDateTime())
    effective_at: Mapped[datetime] = mapped_column(UTCDateTime())
    changed_by: Mapped[str] = mapped_column(String(16))
    actor: Mapped[str] = mapped_column(String(120))


class AccountEvent(Base):
    """The history of an account: exclusions and the operator's status changes."""

    __tablename__ = "account_events"
    __table_args__ = (Index("ix_account_events_player_id_id", "player_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    action: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str | None] = mapped_column(String(500))
    old_status: Mapped[str] = mapped_column(String(16))
    new_status: Mapped[str] = mapped_column(String(16))
    ends_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    changed_by: Mapped[str] = mapped_column(String(16))
    actor: Mapped[str] = mapped_column(String(120))


class CashReference(Base):
    """A payment reference a player's deposits (or withdrawals) used: each one once."""

    __tablename__ = "cash_references"

    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    reference: Mapped[str] = mapped_column(String(200), primary_key=True)
    transaction_id: Mapped[int] = mapped_column(BigInteger)
