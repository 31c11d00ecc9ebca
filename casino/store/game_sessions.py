"""Storage of game sessions (the launch flow's short-lived player credentials).

Every statement on ``game_sessions`` lives here; the use cases in
``casino.service.game_sessions`` and the token check in ``casino.service.auth`` call these.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update

from casino.store.models import GameSession, Operator
from casino.store.records import TokenOwner
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
            operator_id=self.operator_id,
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

    def find_by_token_hash(self, token_hash: str) -> tuple[GameSessionRow, TokenOwner] | None:
        """Authentication: the session whose token has this hash, with its owner (before
        any operator is known: this decides it)."""
        found = self.session.execute(
            select(GameSession, Operator.active)
            .join(Operator, Operator.id == GameSession.operator_id)
            .where(GameSession.token_hash == token_hash)
        ).one_or_none()
        if found is None:
            return None
        row, active = found
        return _row(row), TokenOwner(row.player_id, row.operator_id, bool(active))

    def _own(self, session_id: str) -> GameSession | None:
        if not isinstance(session_id, str):
            return None
        return self.session.scalars(
            select(GameSession)
            .where(GameSession.id == session_id, self.owned(GameSession.operator_id))
            .execution_options(populate_existing=True)
        ).one_or_none()

    def get(self, session_id: str) -> GameSessionRow | None:
        found = self._own(session_id)
        return None if found is None else _row(found)

    def revoke(self, session_id: str, now: datetime) -> GameSessionRow | None:
        """Mark the session revoked (the first revocation's time is kept); None if unknown."""
        session = self.session
        session.execute(
            update(GameSession)
            .where(
                GameSession.id == session_id,
                GameSession.operator_id == self.operator_id,
                GameSession.revoked_at.is_(None),
            )
            .values(revoked_at=now)
            .execution_options(synchronize_session="fetch")
        )
        found = self._own(session_id)
        return None if found is None else _row(found)
