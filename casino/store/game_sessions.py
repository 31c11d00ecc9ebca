"""Storage of game sessions (the launch flow's short-lived player credentials).

Every statement on ``game_sessions`` lives here; the use cases in
``casino.service.game_sessions`` and the token check in ``casino.service.auth`` call these.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, and_, select, update

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
    language: str | None = None
    exchanged_at: datetime | None = None


def _row(found: GameSession) -> GameSessionRow:
    return GameSessionRow(
        id=found.id,
        player_id=found.player_id,
        table_id=found.table_id,
        created_at=found.created_at,
        expires_at=found.expires_at,
        revoked_at=found.revoked_at,
        language=found.language,
        exchanged_at=found.exchanged_at,
    )


def _live(now: datetime) -> ColumnElement[bool]:
    return and_(GameSession.revoked_at.is_(None), GameSession.expires_at > now)


class GameSessionStore(Repository):
    """Game sessions: the launch flow's short-lived player credentials."""

    def insert(
        self,
        *,
        session_id: str,
        player_id: str,
        table_id: str | None,
        launch_code_hash: str,
        launch_code_expires_at: datetime,
        language: str | None,
        created_at: datetime,
        expires_at: datetime,
    ) -> GameSessionRow:
        """A session with its launch code and no token yet (the exchange makes it)."""
        session = self.session
        record = GameSession(
            id=session_id,
            player_id=player_id,
            table_id=table_id,
            token_hash=None,
            launch_code_hash=launch_code_hash,
            launch_code_expires_at=launch_code_expires_at,
            language=language,
            created_at=created_at,
            expires_at=expires_at,
            revoked_at=None,
        )
        session.add(record)
        session.flush()
        return _row(record)

    def exchange(self, code_hash: str, token_hash: str, now: datetime) -> GameSessionRow | None:
        """Trade a live launch code for a token, once: one conditional UPDATE clears the
        code as it sets the token, so of two exchanges of one code only one finds it (the
        other waits on the row lock, then matches nothing). None: no such live code."""
        session = self.session
        found = session.execute(
            update(GameSession)
            .where(
                GameSession.launch_code_hash == code_hash,
                GameSession.launch_code_expires_at > now,
                _live(now),
            )
            .values(
                launch_code_hash=None,
                launch_code_expires_at=None,
                token_hash=token_hash,
                exchanged_at=now,
            )
            .returning(GameSession.id)
            .execution_options(synchronize_session=False)
        ).scalar_one_or_none()
        if found is None:
            return None
        record = session.get(GameSession, found, populate_existing=True)
        return None if record is None else _row(record)

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

    def live_of_player(self, player_id: str, now: datetime) -> list[GameSessionRow]:
        """The player's sessions neither revoked nor expired, newest first."""
        found = self.session.execute(
            select(GameSession)
            .where(GameSession.player_id == player_id, _live(now))
            .order_by(GameSession.created_at.desc(), GameSession.id)
        ).scalars()
        return [_row(record) for record in found]

    def revoke(self, session_id: str, now: datetime) -> GameSessionRow | None:
        """Mark the session revoked (the first revocation's time is kept); None if unknown."""
        session = self.session
        session.execute(
            update(GameSession)
            .where(GameSession.id == session_id, GameSession.revoked_at.is_(None))
            .values(revoked_at=now, launch_code_hash=None, launch_code_expires_at=None)
            .execution_options(synchronize_session="fetch")
        )
        found = session.get(GameSession, session_id, populate_existing=True)
        return None if found is None else _row(found)

    def revoke_player(self, player_id: str, now: datetime) -> int:
        """Revoke every live session of the player; how many were."""
        result = self.session.execute(
            update(GameSession)
            .where(GameSession.player_id == player_id, _live(now))
            .values(revoked_at=now, launch_code_hash=None, launch_code_expires_at=None)
            .execution_options(synchronize_session="fetch")
        )
        return int(result.rowcount or 0)  # type: ignore[attr-defined]
