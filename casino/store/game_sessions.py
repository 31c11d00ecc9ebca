"""Storage of game sessions (the launch flow's short-lived player credentials).

Every statement on ``game_sessions`` lives here; the use cases in
``casino.service.game_sessions`` and the token check in ``casino.service.auth`` call these.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, and_, select, update

from casino.store.models import GameSession
from casino.store.operator_models import Operator
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
    language: str | None = None
    exchanged_at: datetime | None = None
    #: The operator's own session token given at launch (a seamless wallet gets it back).
    operator_session: str | None = None


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
        operator_session=found.operator_session,
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
        operator_session: str | None = None,
    ) -> GameSessionRow:
        """A session with its launch code and no token yet (the exchange makes it)."""
        session = self.session
        record = GameSession(
            id=session_id,
            operator_id=self.operator_id,
            player_id=player_id,
            table_id=table_id,
            token_hash=None,
            launch_code_hash=launch_code_hash,
            launch_code_expires_at=launch_code_expires_at,
            language=language,
            created_at=created_at,
            expires_at=expires_at,
            revoked_at=None,
            operator_session=operator_session,
        )
        session.add(record)
        session.flush()
        return _row(record)

    def exchange(
        self, code_hash: str, token_hash: str, now: datetime
    ) -> tuple[GameSessionRow, TokenOwner] | None:
        """Trade a live launch code for a token, once: one conditional UPDATE clears the
        code as it sets the token, so of two exchanges of one code only one finds it (the
        other waits on the row lock, then matches nothing). None: no such live code. Like
        authentication, the code decides the operator: the session comes with its owner."""
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
        return self._with_owner(GameSession.id == found)

    def find_by_token_hash(self, token_hash: str) -> tuple[GameSessionRow, TokenOwner] | None:
        """Authentication: the session whose token has this hash, with its owner (before
        any operator is known: this decides it)."""
        return self._with_owner(GameSession.token_hash == token_hash)

    def _with_owner(
        self, condition: ColumnElement[bool]
    ) -> tuple[GameSessionRow, TokenOwner] | None:
        found = self.session.execute(
            select(GameSession, Operator.active)
            .join(Operator, Operator.id == GameSession.operator_id)
            .where(condition)
            .execution_options(populate_existing=True)
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

    def live_of_player(self, player_id: str, now: datetime) -> list[GameSessionRow]:
        """The player's sessions neither revoked nor expired, newest first."""
        found = self.session.execute(
            select(GameSession)
            .where(
                GameSession.player_id == player_id,
                self.owned(GameSession.operator_id),
                _live(now),
            )
            .order_by(GameSession.created_at.desc(), GameSession.id)
        ).scalars()
        return [_row(record) for record in found]

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
            .values(revoked_at=now, launch_code_hash=None, launch_code_expires_at=None)
            .execution_options(synchronize_session="fetch")
        )
        found = self._own(session_id)
        return None if found is None else _row(found)

    def revoke_player(self, player_id: str, now: datetime) -> int:
        """Revoke every live session of the player; how many were."""
        result = self.session.execute(
            update(GameSession)
            .where(
                GameSession.player_id == player_id,
                GameSession.operator_id == self.operator_id,
                _live(now),
            )
            .values(revoked_at=now, launch_code_hash=None, launch_code_expires_at=None)
            .execution_options(synchronize_session="fetch")
        )
        return int(result.rowcount or 0)  # type: ignore[attr-defined]
