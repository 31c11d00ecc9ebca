"""SQLAlchemy model of the operators (tenants) of the deployment (docs/operators.md).

Every tenant-owned table names its operator in ``operator_id`` (casino.store.models); the
operators' own settings live here. The records the store hands out are
casino.store.operator_records.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Boolean, CheckConstraint, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from casino.store.base import Base
from casino.store.types import UTCDateTime


class Operator(Base):
    """A tenant: a casino that offers the game to its own players (docs/operators.md).

    ``currencies``: the ISO 4217 codes it may use; None means the deployment's configured
    ones (``CASINO_CURRENCIES``; the operator ``default`` of migration 0019). A ``seamless``
    operator keeps its players' money in its own wallet at ``wallet_url``; requests to it
    are signed with ``wallet_secret``, and a secret replaced less than the grace period ago
    stays valid as ``wallet_previous_secret`` until ``wallet_previous_secret_until``. The
    secrets never leave the service (no view, no log shows them).
    """

    __tablename__ = "operators"
    __table_args__ = (
        CheckConstraint("wallet_mode IN ('transfer', 'seamless')", name="wallet_mode_known"),
        CheckConstraint(
            "wallet_mode <> 'seamless' OR (wallet_url IS NOT NULL AND wallet_secret IS NOT NULL)",
            name="seamless_has_wallet",
        ),
        CheckConstraint("wallet_timeout_ms > 0", name="timeout_positive"),
    )

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    currencies: Mapped[list[str] | None] = mapped_column(JSON)
    wallet_mode: Mapped[str] = mapped_column(String(16))
    wallet_url: Mapped[str | None] = mapped_column(String(500))
    wallet_secret: Mapped[str | None] = mapped_column(String(512))
    wallet_previous_secret: Mapped[str | None] = mapped_column(String(512))
    wallet_previous_secret_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    wallet_timeout_ms: Mapped[int] = mapped_column(Integer)
    close_losing_round_with_zero_win: Mapped[bool] = mapped_column(Boolean)
    active: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())
