"""Game sessions: the operator launches the game client for a player.

The operator's back end asks for a session (``create_session``) and opens the client at its
``launch_url``; the session token then authenticates the player, and only as a player, until
it expires or the operator revokes it. The token is shown once and stored as its SHA-256,
like every other token (``casino.service.auth``), which also checks it on each request.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import quote

from casino.service.auth import GAME_SESSION_PREFIX, hash_token, new_token
from casino.service.common import require_player
from casino.service.errors import Invalid, NotFound
from casino.service.tables import require_table
from casino.store.game_sessions import GameSessionRow
from casino.store.uow import UnitOfWork

DEFAULT_TTL_SECONDS = 8 * 3600
MAX_TTL_SECONDS = 24 * 3600
MIN_TTL_SECONDS = 60
#: Where the game client is served (``casino.web``).
CLIENT_PATH = "/play/"


@dataclass(frozen=True)
class GameSessionView:
    id: str
    player_id: str
    table_id: str | None
    created_at: datetime
    expires_at: datetime
    revoked: bool


def launch_url(token: str, table_id: str | None) -> str:
    """The client's address with the token in the fragment: browsers never send a fragment
    to a server, so the token stays out of requests, access logs and Referer headers."""
    query = f"?table={quote(table_id, safe='')}" if table_id else ""
    return f"{CLIENT_PATH}{query}#token={token}"


def _view(row: GameSessionRow) -> GameSessionView:
    return GameSessionView(
        id=row.id,
        player_id=row.player_id,
        table_id=row.table_id,
        created_at=row.created_at,
        expires_at=row.expires_at,
        revoked=row.revoked_at is not None,
    )


def _not_found() -> NotFound:
    return NotFound("no such game session", code="session_not_found")


def create_session(
    uow: UnitOfWork,
    player_id: str,
    now: datetime,
    *,
    table_id: str | None = None,
    ttl_seconds: int | None = None,
) -> tuple[GameSessionView, str]:
    """A new session for the player (at ``table_id`` if given); the token is returned once."""
    ttl = DEFAULT_TTL_SECONDS if ttl_seconds is None else ttl_seconds
    if isinstance(ttl, bool) or not isinstance(ttl, int):
        raise Invalid("ttl_seconds must be an integer", code="invalid_ttl")
    if not MIN_TTL_SECONDS <= ttl <= MAX_TTL_SECONDS:
        raise Invalid(
            f"ttl_seconds must be from {MIN_TTL_SECONDS} to {MAX_TTL_SECONDS}",
            code="invalid_ttl",
        )
    require_player(uow, player_id)
    if table_id is not None:
        require_table(uow, table_id)
    token = new_token(GAME_SESSION_PREFIX)
    row = uow.game_sessions.insert(
        session_id=str(uuid.uuid4()),
        player_id=player_id,
        table_id=table_id,
        token_hash=hash_token(token),
        created_at=now,
        expires_at=now + timedelta(seconds=ttl),
    )
    return _view(row), token


def revoke_session(uow: UnitOfWork, session_id: str, now: datetime) -> GameSessionView:
    """End the session at once: its token is refused from the commit on. Revoking a session
    again changes nothing."""
    row = uow.game_sessions.revoke(session_id, now)
    if row is None:
        raise _not_found()
    return _view(row)


def get_session(uow: UnitOfWork, session_id: str, player_id: str | None = None) -> GameSessionView:
    """A session; with ``player_id``, only one of that player's (others are not found)."""
    row = uow.game_sessions.get(session_id)
    if row is None or (player_id is not None and row.player_id != player_id):
        raise _not_found()
    return _view(row)
