"""SQLAlchemy model of a stored free-play War game (`FreePlayGame`).

The whole engine state is one JSON document (``WarGame.to_dict``); a move reads the row
with a lock (``SELECT … FOR UPDATE`` on PostgreSQL) and writes it back. ``version`` is the
mapper's version counter as well: an UPDATE that finds another version changed nothing and
SQLAlchemy raises, so a lost update cannot happen even where row locks do not exist (SQLite).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, CheckConstraint, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from casino.store.base import Base
from casino.store.free_play_records import (
    AWAITING_DECISION,
    FINISHED,
    IN_PROGRESS,
    SIMULATION_DONE,
    SIMULATION_FAILED,
    SIMULATION_RUNNING,
    STATUSES,
)
from casino.store.types import UTCDateTime

# The states are defined apart (casino.store.free_play_records) so that the layers above
# the store need not import a model module; re-exported here, beside the tables.
__all__ = [
    "AWAITING_DECISION",
    "FINISHED",
    "IN_PROGRESS",
    "SIMULATION_DONE",
    "SIMULATION_FAILED",
    "SIMULATION_RUNNING",
    "STATUSES",
    "FreePlayGame",
    "FreePlaySimulation",
]


class FreePlayGame(Base):
    __tablename__ = "free_play_games"
    __table_args__ = (
        CheckConstraint(
            "status IN ('in_progress', 'awaiting_decision', 'finished')", name="status_known"
        ),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    variant: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(20))
    version: Mapped[int] = mapped_column(Integer)
    state: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    # Indexed so that old games can be purged by age.
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)
    #: SHA-256 of the game token handed out at creation; only its bearer sees the game.
    #: None (games created before owners existed): nobody does.
    owner_hash: Mapped[str | None] = mapped_column(String(64))

    __mapper_args__ = {"version_id_col": version}


class FreePlaySimulation(Base):
    """A simulation job: run in a worker process's simulation pool, polled by id.

    A ``running`` row holds one of the deployment's simulation slots until it is finished
    or older than its work bound plus a grace period (its worker died; see
    ``casino.store.simulation_jobs``).
    """

    __tablename__ = "free_play_simulations"
    __table_args__ = (
        CheckConstraint("status IN ('running', 'done', 'failed')", name="status_known"),
        Index("ix_free_play_simulations_status_created_at", "status", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    status: Mapped[str] = mapped_column(String(16))
    #: SHA-256 of the requesting address: an address runs one simulation at a time.
    client_hash: Mapped[str] = mapped_column(String(64))
    #: variant, options, games, seed and the work bounds it runs under.
    request: Mapped[dict[str, Any]] = mapped_column(JSON)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    error: Mapped[str | None] = mapped_column(String(200))
    # Indexed so that old jobs can be purged by age.
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
