"""Who is calling: operator or player, from a bearer token.

Tokens are high-entropy random strings, so a plain SHA-256 is enough to store them: only the
hash is kept, never the token. Operator tokens from the configuration are compared in constant
time against every configured token.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import select

from casino.service import idempotency
from casino.service.errors import Invalid, NotFound, Unauthenticated
from casino.service.uow import UnitOfWork
from casino.store import direct, game_sessions
from casino.store.models import OperatorToken, Player, utcnow

OPERATOR_PREFIX = "op_"
PLAYER_PREFIX = "pl_"
#: Game session tokens (the launch flow): a player's credential for a limited time.
GAME_SESSION_PREFIX = "gs_"
#: The one failed authentication told apart: the client should ask for a new launch.
SESSION_EXPIRED = "session_expired"
#: A player's ``Principal.subject`` (the idempotency caller) is this followed by its id.
PLAYER_SUBJECT_PREFIX = "player:"
MAX_TOKEN_LENGTH = 512


@dataclass(frozen=True)
class Principal:
    role: Literal["operator", "player"]
    player_id: str | None
    subject: str
    #: The game session whose token authenticated the caller, if one did.
    session_id: str | None = None


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token(prefix: str) -> str:
    return prefix + secrets.token_urlsafe(32)


def _configured_operator(token: str, operator_tokens: Sequence[str]) -> str | None:
    match: str | None = None
    given = token.encode("utf-8")
    for configured in operator_tokens:
        if configured and hmac.compare_digest(given, configured.encode("utf-8")):
            match = configured
    return match


def authenticate(
    uow: UnitOfWork,
    token: str,
    operator_tokens: Sequence[str],
    *,
    idempotency_key: str | None = None,
    now: datetime | None = None,
) -> Principal:
    """The caller of ``token``. With ``idempotency_key`` (a money-moving request), a player's
    lookup also does the idempotency lock and lookup for that key on PostgreSQL, in the same
    round trip (``idempotency.begin`` then uses it)."""
    if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_LENGTH:
        raise Unauthenticated("a valid bearer token is required", code="invalid_token")
    configured = _configured_operator(token, operator_tokens)
    if configured is not None:
        return Principal("operator", None, f"operator:config:{hash_token(configured)[:16]}")
    digest = hash_token(token)
    if token.startswith(GAME_SESSION_PREFIX):
        return _game_session(uow, digest, now or utcnow())
    postgres = uow.dialect == "postgresql"
    if token.startswith(PLAYER_PREFIX):
        if postgres and idempotency_key is not None:
            player_id = idempotency.find_player_and_begin(
                uow, digest, PLAYER_SUBJECT_PREFIX, idempotency_key
            )
        elif postgres:
            player_id = _scalar(direct.execute(uow.session, _PLAYER_BY_TOKEN, {"digest": digest}))
        else:
            player_id = uow.session.execute(
                select(Player.id).where(Player.token_hash == digest)
            ).scalar_one_or_none()
        if player_id is not None:
            return Principal("player", player_id, PLAYER_SUBJECT_PREFIX + player_id)
    else:
        operator_id = uow.session.execute(
            select(OperatorToken.id).where(OperatorToken.token_hash == digest)
        ).scalar_one_or_none()
        if operator_id is not None:
            return Principal("operator", None, f"operator:{operator_id}")
    raise Unauthenticated("a valid bearer token is required", code="invalid_token")


def _game_session(uow: UnitOfWork, digest: str, now: datetime) -> Principal:
    found = game_sessions.find_by_token_hash(uow.session, digest)
    if found is None or found.revoked_at is not None:
        raise Unauthenticated("a valid bearer token is required", code="invalid_token")
    if now >= found.expires_at:
        raise Unauthenticated("the game session has expired", code=SESSION_EXPIRED)
    player = PLAYER_SUBJECT_PREFIX + found.player_id
    return Principal("player", found.player_id, player, session_id=found.id)


_PLAYER_BY_TOKEN = "SELECT id FROM players WHERE token_hash = %(digest)s"


def _scalar(rows: list[tuple[Any, ...]]) -> Any:
    return rows[0][0] if rows else None


@dataclass(frozen=True)
class OperatorTokenView:
    id: int
    name: str
    created_at: datetime


def list_operator_tokens(uow: UnitOfWork) -> list[OperatorTokenView]:
    """The operator tokens stored in the database (names and ids, never the tokens)."""
    rows = uow.session.execute(
        select(OperatorToken.id, OperatorToken.name, OperatorToken.created_at).order_by(
            OperatorToken.id
        )
    )
    return [OperatorTokenView(int(i), str(n), c) for i, n, c in rows]


def revoke_operator_token(uow: UnitOfWork, token_id: int) -> OperatorTokenView:
    """Delete a stored operator token: requests bearing it are refused from the commit on.
    (Tokens from ``CASINO_OPERATOR_TOKENS`` are revoked by removing them from there.)"""
    token = uow.session.get(OperatorToken, token_id)
    if token is None:
        raise NotFound(f"no operator token with id {token_id}", code="operator_token_not_found")
    view = OperatorTokenView(token.id, token.name, token.created_at)
    uow.session.delete(token)
    uow.session.flush()
    return view


def create_operator_token(uow: UnitOfWork, name: str) -> str:
    """A new operator token, returned once; only its hash is stored."""
    name = (name or "").strip()
    if not 1 <= len(name) <= 200:
        raise Invalid("a token name of 1 to 200 characters is required", code="invalid_name")
    token = new_token(OPERATOR_PREFIX)
    uow.session.add(OperatorToken(name=name, token_hash=hash_token(token), created_at=utcnow()))
    uow.session.flush()
    return token
