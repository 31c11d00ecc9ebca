"""Stored free-play War games: the engine's JSON record, its status and version, its owner.

A move reads the row with a lock (``SELECT … FOR UPDATE`` on PostgreSQL; SQLite
transactions hold the write lock already) and writes it back; ``version`` is the mapper's
version counter as well, so a write based on a stale read changes nothing and is refused
(``StaleGame``) even where row locks do not exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm.exc import StaleDataError

from casino.store.free_play_models import FreePlayGame
from casino.store.repository import Repository


class StaleGame(Exception):
    """Another request changed the game since it was read; nothing was written."""


@dataclass(frozen=True)
class GameRecord:
    id: str
    variant: str
    status: str
    version: int
    state: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    owner_hash: str | None


def _record(row: FreePlayGame) -> GameRecord:
    return GameRecord(
        id=row.id,
        variant=row.variant,
        status=row.status,
        version=int(row.version),
        state=row.state,
        created_at=row.created_at,
        updated_at=row.updated_at,
        owner_hash=row.owner_hash,
    )


class FreePlayStore(Repository):
    def add(
        self,
        *,
        game_id: str,
        variant: str,
        status: str,
        state: dict[str, Any],
        created_at: datetime,
        owner_hash: str,
    ) -> GameRecord:
        row = FreePlayGame(
            id=game_id,
            variant=variant,
            status=status,
            state=state,
            created_at=created_at,
            updated_at=created_at,
            owner_hash=owner_hash,
        )
        self.session.add(row)
        self.session.flush()
        return _record(row)

    def get(self, game_id: str, *, lock: bool) -> GameRecord | None:
        statement = select(FreePlayGame).where(FreePlayGame.id == game_id)
        if lock:
            statement = statement.with_for_update()
        row = self.session.scalars(statement).one_or_none()
        return None if row is None else _record(row)

    def save(
        self, game: GameRecord, *, state: dict[str, Any], status: str, updated_at: datetime
    ) -> GameRecord:
        """Write the game back; ``StaleGame`` if its version moved since ``game`` was read."""
        row = self.session.get(FreePlayGame, game.id)
        if row is None or row.version != game.version:
            raise StaleGame(game.id)
        row.state, row.status, row.updated_at = state, status, updated_at
        try:
            self.session.flush()
        except StaleDataError:
            raise StaleGame(game.id) from None
        return _record(row)

    def purge(self, cutoff: datetime) -> int:
        """Delete the games untouched since ``cutoff``; how many."""
        result = self.session.execute(delete(FreePlayGame).where(FreePlayGame.updated_at < cutoff))
        return int(result.rowcount or 0)  # type: ignore[attr-defined]
