"""Storage of game sessions (the launch flow's short-lived player credentials).

Every statement on ``game_sessions`` lives here; the use cases in
``casino.service.game_sessions`` and the token check in ``casino.service.auth`` call these.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update

from casino.store.models import GameSession
from casino.store.repository import Repository


@dataclass(frozen=True)
class GameSessionRow:
    id: str
    player_id: str
    table_id: str | None
    created_at: datetime
    expires_at: datetime
    revoked_at: datetime | None


def _row(found: GameSession) -> GameSessionRow:
    return GameSessionRow(
        id=found.id,
        player_id=found.player_id,
        table_id=found.table_id,
        created_at=found.created_at,
        expires_at=found.expires_at,
        revoked_at=found.revoked_at,
    )


class GameSessionStore(Repository):
    """Game sessions: the launch flow's short-lived player credentials."""

    def insert(
        self,
        *,
        session_id: str,
        player_id: str,
        table_id: str | None,
        token_hash: str,
        created_at: datetime,
        expires_at: datetime,
    ) -> GameSessionRow:
        session = self.session
        record = GameSession(
            id=session_id,
            player_id=player_id,
            table_id=table_id,
            token_hash=token_hash,
            created_at=created_at,
            expires_at=expires_at,
            revoked_at=None,
        )
        session.add(record)
        session.flush()
        return _row(record)

    def find_by_token_hash(self, token_hash: str) -> GameSessionRow | None:
        session = self.session
        found = session.execute(
            select(GameSession).where(GameSession.token_hash == token_hash)
        ).scalar_one_or_none()
        return None if found is None else _row(found)

    def get(self, session_id: str) -> GameSessionRow | None:
        session = self.session
        found = session.get(GameSession, session_id)
        return None if found is None else _row(found)

    def revoke(self, session_id: str, now: datetime) -> GameSessionRow | None:
        """Mark the session revoked (the first revocation's time is kept); None if unknown."""
        session = self.session
        session.execute(
            update(GameSession)
            .where(GameSession.id == session_id, GameSession.revoked_at.is_(None))
            .values(revoked_at=now)
            .execution_options(synchronize_session="fetch")
        )
        found = session.get(GameSession, session_id, populate_existing=True)
        return None if found is None else _row(found)
