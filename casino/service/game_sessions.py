"""Game sessions: the operator launches the game client for a player.

The operator's back end asks for a session (``create_session``) and opens the client at its
``launch_url``, which carries a one-time **launch code**, never a token: the client trades
the code (``exchange``, once, within ``LAUNCH_CODE_SECONDS``) for the session's token, which
then authenticates the player, and only as a player, until it expires or is revoked (by the
operator, one session or all of a player's, or by its holder logging out). A code that
leaked through a screen share or a log is worthless once used or two minutes old. Code and
token are each shown once and stored as their SHA-256, like every other token
(``casino.service.auth``, which also checks the token on each request).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import quote

from casino.service.auth import (
    GAME_SESSION_PREFIX,
    LAUNCH_CODE_PREFIX,
    MAX_TOKEN_LENGTH,
    acting_for,
    hash_token,
    new_token,
)
from casino.service.common import require_player
from casino.service.errors import Forbidden, Invalid, NotFound, Unauthenticated
from casino.service.tables import require_table
from casino.store.game_sessions import GameSessionRow
from casino.store.uow import UnitOfWork

DEFAULT_TTL_SECONDS = 8 * 3600
MAX_TTL_SECONDS = 24 * 3600
MIN_TTL_SECONDS = 60
#: How long a launch code may wait for its exchange.
LAUNCH_CODE_SECONDS = 120
#: The game client's languages (its ``lang`` query parameter).
LANGUAGES = ("en", "pt", "nl", "ca", "it", "el")
#: Where the game client is served (``casino.web``): the private table's, and the shared
#: (live) table's, which follows one round for every player (docs/shared-tables.md).
CLIENT_PATH = "/play/"
LIVE_CLIENT_PATH = "/play/live/"


@dataclass(frozen=True)
class GameSessionView:
    id: str
    player_id: str
    table_id: str | None
    created_at: datetime
    expires_at: datetime
    revoked: bool
    language: str | None = None
    #: When the launch code was exchanged (None: not yet).
    exchanged_at: datetime | None = None


@dataclass(frozen=True)
class Launch:
    """A new session, its one-time code (shown once) and when the code stops working."""

    view: GameSessionView
    code: str
    code_expires_at: datetime
    #: The client that plays the session's table (a shared table's is the live client).
    client_path: str = CLIENT_PATH

    @property
    def launch_url(self) -> str:
        return launch_url(self.code, self.view.table_id, self.view.language, self.client_path)


def launch_url(
    code: str,
    table_id: str | None,
    language: str | None = None,
    client_path: str = CLIENT_PATH,
) -> str:
    """The client's address with the launch code in the fragment: browsers never send a
    fragment to a server, so the code stays out of requests, access logs and Referer
    headers (and once exchanged, or two minutes old, it opens nothing)."""
    query = []
    if table_id:
        query.append(f"table={quote(table_id, safe='')}")
    if language:
        query.append(f"lang={quote(language, safe='')}")
    search = f"?{'&'.join(query)}" if query else ""
    return f"{client_path}{search}#code={code}"


def _view(row: GameSessionRow) -> GameSessionView:
    return GameSessionView(
        id=row.id,
        player_id=row.player_id,
        table_id=row.table_id,
        created_at=row.created_at,
        expires_at=row.expires_at,
        revoked=row.revoked_at is not None,
        language=row.language,
        exchanged_at=row.exchanged_at,
    )


def _not_found() -> NotFound:
    return NotFound("no such game session", code="session_not_found")


def _check_ttl(ttl: object) -> int:
    if isinstance(ttl, bool) or not isinstance(ttl, int):
        raise Invalid("ttl_seconds must be an integer", code="invalid_ttl")
    if not MIN_TTL_SECONDS <= ttl <= MAX_TTL_SECONDS:
        raise Invalid(
            f"ttl_seconds must be from {MIN_TTL_SECONDS} to {MAX_TTL_SECONDS}",
            code="invalid_ttl",
        )
    return ttl


def _check_language(language: object) -> str | None:
    if language is None:
        return None
    if language not in LANGUAGES:
        raise Invalid(f"language must be one of {', '.join(LANGUAGES)}", code="invalid_language")
    return str(language)


def create_session(
    uow: UnitOfWork,
    player_id: str,
    now: datetime,
    *,
    table_id: str | None = None,
    ttl_seconds: int | None = None,
    language: str | None = None,
    operator_session: str | None = None,
) -> Launch:
    """A new session for the player (at ``table_id`` if given) and its one-time launch code;
    ``operator_session``: the operator's own session token, kept with it."""
    ttl = _check_ttl(DEFAULT_TTL_SECONDS if ttl_seconds is None else ttl_seconds)
    language = _check_language(language)
    require_player(uow, player_id)
    client_path = CLIENT_PATH
    if table_id is not None:
        require_table(uow, table_id)
        if uow.shared.get(table_id) is not None:
            client_path = LIVE_CLIENT_PATH
    code = new_token(LAUNCH_CODE_PREFIX)
    expires_at = now + timedelta(seconds=ttl)
    # A code outliving its session would open nothing: it ends with the session at the latest.
    code_expires_at = min(now + timedelta(seconds=LAUNCH_CODE_SECONDS), expires_at)
    row = uow.game_sessions.insert(
        session_id=str(uuid.uuid4()),
        player_id=player_id,
        table_id=table_id,
        launch_code_hash=hash_token(code),
        launch_code_expires_at=code_expires_at,
        language=language,
        created_at=now,
        expires_at=expires_at,
        operator_session=operator_session,
    )
    return Launch(_view(row), code, code_expires_at, client_path)


def exchange(uow: UnitOfWork, code: str, now: datetime) -> tuple[GameSessionView, str]:
    """The session of a live launch code and its new token (shown once). The code is spent:
    a second exchange, like an unknown, expired or revoked one, is 401 (no hint which)."""
    if (
        not isinstance(code, str)
        or not code.startswith(LAUNCH_CODE_PREFIX)
        or len(code) > MAX_TOKEN_LENGTH
    ):
        raise Unauthenticated("The launch code is not valid (used, expired or unknown).")
    token = new_token(GAME_SESSION_PREFIX)
    found = uow.game_sessions.exchange(hash_token(code), hash_token(token), now)
    if found is None:
        raise Unauthenticated("The launch code is not valid (used, expired or unknown).")
    row, owner = found
    acting_for(uow, owner)  # the code is the credential: its operator's, if still active
    return _view(row), token


def revoke_session(uow: UnitOfWork, session_id: str, now: datetime) -> GameSessionView:
    """End the session at once: its token (and an unused launch code) is refused from the
    commit on. Revoking a session again changes nothing."""
    row = uow.game_sessions.revoke(session_id, now)
    if row is None:
        raise _not_found()
    return _view(row)


def revoke_player_sessions(uow: UnitOfWork, player_id: str, now: datetime) -> int:
    """End every live session of the player at once; how many there were."""
    require_player(uow, player_id)
    return uow.game_sessions.revoke_player(player_id, now)


def list_live_sessions(uow: UnitOfWork, player_id: str, now: datetime) -> list[GameSessionView]:
    """The player's sessions that are neither revoked nor expired, newest first."""
    require_player(uow, player_id)
    return [_view(row) for row in uow.game_sessions.live_of_player(player_id, now)]


def get_session(uow: UnitOfWork, session_id: str, player_id: str | None = None) -> GameSessionView:
    """A session; with ``player_id``, only one of that player's (others are not found)."""
    row = uow.game_sessions.get(session_id)
    if row is None or (player_id is not None and row.player_id != player_id):
        raise _not_found()
    return _view(row)


def check_table(session_table_id: str | None, table_id: str) -> None:
    """A game session launched for a table bets at that table only (one launched for no
    table, and a player's own token, anywhere): 403 ``session_table_mismatch``."""
    if session_table_id is not None and table_id != session_table_id:
        raise Forbidden(
            f"this game session was launched for table {session_table_id!r}",
            code="session_table_mismatch",
        )
