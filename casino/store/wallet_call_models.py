"""SQLAlchemy model of the seamless wallet's calls: what was sent to an operator's wallet and
what is still to be sent (the outbox of wins and rollbacks; docs/integration.md §6).

A row is one transaction of the protocol (``bet``, ``win`` or ``rollback``), keyed by our
``transaction_id``, stable across every attempt. ``call`` is the call itself
(casino.wallet.protocol.to_record), so a worker sends exactly what the request would have.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, CheckConstraint, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from casino.store.base import Base
from casino.store.types import UTCDateTime


class WalletCall(Base):
    __tablename__ = "wallet_calls"
    __table_args__ = (
        CheckConstraint(
            "state IN ('pending', 'ok', 'final', 'unknown', 'needs_attention')",
            name="wallet_call_state_known",
        ),
        CheckConstraint("endpoint IN ('bet', 'win', 'rollback')", name="wallet_call_endpoint"),
        CheckConstraint("amount >= 0", name="wallet_call_amount"),
        # The worker's scan: the pending calls due first.
        Index("ix_wallet_calls_due", "state", "next_attempt_at"),
        Index("ix_wallet_calls_operator_created", "operator_id", "created_at"),
        Index("ix_wallet_calls_round", "round_id"),
    )

    transaction_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    operator_id: Mapped[str] = mapped_column(ForeignKey("operators.id"))
    player_id: Mapped[str] = mapped_column(String(36))
    #: A private round's id, or a shared bettor's round (money.wallet_round); the protocol's
    #: longest id.
    round_id: Mapped[str] = mapped_column(String(200))
    endpoint: Mapped[str] = mapped_column(String(16))
    currency: Mapped[str] = mapped_column(String(3))
    amount: Mapped[int] = mapped_column(BigInteger)
    #: The bet a rollback cancels.
    reference_transaction_id: Mapped[str | None] = mapped_column(String(64))
    call: Mapped[dict[str, Any]] = mapped_column(JSON)
    state: Mapped[str] = mapped_column(String(16))
    #: The wallet's last status (OK, NOT_ENOUGH_MONEY, ... or UNKNOWN), None before a try.
    wallet_status: Mapped[str | None] = mapped_column(String(32))
    operator_transaction_id: Mapped[str | None] = mapped_column(String(200))
    attempts: Mapped[int] = mapped_column(Integer)
    last_error: Mapped[str | None] = mapped_column(String(300))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())
    #: When a pending call is due (again); a worker that claims it pushes this past its
    #: attempt, so a worker killed mid-send leaves the call to another after that lease.
    next_attempt_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
