"""SQLAlchemy model of a stored free-play War game (`FreePlayGame`).

The whole engine state is one JSON document (``WarGame.to_dict``); a move reads the row
with a lock (``SELECT … FOR UPDATE`` on PostgreSQL) and writes it back. ``version`` is the
mapper's version counter as well: an UPDATE that finds another version changed nothing and
SQLAlchemy raises, so a lost update cannot happen even where row locks do not exist (SQLite).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, CheckConstraint, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from casino.store.base import Base
from casino.store.types import UTCDateTime

IN_PROGRESS = "in_progress"
AWAITING_DECISION = "awaiting_decision"
FINISHED = "finished"
STATUSES = (IN_PROGRESS, AWAITING_DECISION, FINISHED)


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

    __mapper_args__ = {"version_id_col": version}
