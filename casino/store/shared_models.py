"""Tables of shared tables (docs/shared-tables.md, migration 0022).

* ``shared_tables``: a shared table's clock, its hash chain (the secret stays here; the
  commitment is published), the public value, the current round's ``RoundState`` and the
  dealer's lease (one dealer holds a table until ``lease_until``).
* ``shared_bets``: one row per bettor and round: the stakes, the decision, the result.
* ``shared_events``: every event of a table, numbered 1, 2 ... (the SSE ids), kept so a
  follower resumes and the road is read back.
* ``shared_shoes``: each shoe dealt, its seed once revealed at the shoe's end.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    Index,
    Integer,
    LargeBinary,
    String,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from casino.store.base import Base
from casino.store.types import UTCDateTime


class SharedTable(Base):
    __tablename__ = "shared_tables"
    __table_args__ = (Index("ix_shared_tables_due_at", "due_at"),)

    operator_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    table_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    betting_seconds: Mapped[int] = mapped_column(Integer)
    pause_seconds: Mapped[int] = mapped_column(Integer)
    chain_secret: Mapped[bytes] = mapped_column(LargeBinary(32))
    chain_length: Mapped[int] = mapped_column(Integer)
    chain_commitment: Mapped[str] = mapped_column(String(64))
    public_value: Mapped[dict[str, Any]] = mapped_column(JSON)
    #: ``RoundState.to_dict()`` of the current round; None before the table first opens.
    state: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    #: The last event id used (``state.seq``): the compare-and-set of every step.
    seq: Mapped[int] = mapped_column(BigInteger)
    #: When the round's next step is due (None: at once); the dealers' scan.
    due_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    lease_holder: Mapped[str | None] = mapped_column(String(120))
    lease_until: Mapped[datetime | None] = mapped_column(UTCDateTime())
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class SharedBetRow(Base):
    __tablename__ = "shared_bets"
    __table_args__ = (
        UniqueConstraint("operator_id", "table_id", "shoe", "round", "player_id"),
        Index("ix_shared_bets_round_status", "operator_id", "table_id", "shoe", "round", "status"),
        CheckConstraint(
            "status IN ('open', 'awaiting_decision', 'settled', 'refunded')", name="status_known"
        ),
        CheckConstraint(
            "ante >= 0 AND tie_bet >= 0 AND raise_amount >= 0 AND war_tie_bet >= 0",
            name="stakes_not_negative",
        ),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    operator_id: Mapped[str] = mapped_column(String(64))
    table_id: Mapped[str] = mapped_column(String(64))
    shoe: Mapped[int] = mapped_column(Integer)
    round: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[str] = mapped_column(String(36), index=True)
    wallet_id: Mapped[int] = mapped_column(Integer)
    currency: Mapped[str] = mapped_column(String(3))
    status: Mapped[str] = mapped_column(String(20))
    ante: Mapped[int] = mapped_column(BigInteger)
    tie_bet: Mapped[int] = mapped_column(BigInteger)
    raise_amount: Mapped[int] = mapped_column(BigInteger)
    war_tie_bet: Mapped[int] = mapped_column(BigInteger)
    decision: Mapped[str | None] = mapped_column(String(16))
    decided_by: Mapped[str | None] = mapped_column(String(16))
    payouts: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    returned: Mapped[int | None] = mapped_column(BigInteger)
    net: Mapped[int | None] = mapped_column(BigInteger)
    transaction_ids: Mapped[list[int]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    settled_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class SharedEventRow(Base):
    __tablename__ = "shared_events"

    operator_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    table_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    type: Mapped[str] = mapped_column(String(20))
    shoe: Mapped[int] = mapped_column(Integer)
    round: Mapped[int] = mapped_column(Integer)
    at: Mapped[datetime] = mapped_column(UTCDateTime())
    data: Mapped[dict[str, Any]] = mapped_column(JSON)


class SharedShoeRow(Base):
    __tablename__ = "shared_shoes"

    operator_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    table_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    shoe: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    commitment: Mapped[str] = mapped_column(String(64))
    #: The shoe's chain seed (hex), once the shoe is over; None while it is dealt.
    seed: Mapped[str | None] = mapped_column(String(64))
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime())
    revealed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
