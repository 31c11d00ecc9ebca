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
from typing import Literal

from sqlalchemy import select

from casino.db.models import OperatorToken, Player, utcnow
from casino.service.errors import Invalid, Unauthenticated
from casino.service.uow import UnitOfWork

OPERATOR_PREFIX = "op_"
PLAYER_PREFIX = "pl_"
MAX_TOKEN_LENGTH = 512


@dataclass(frozen=True)
class Principal:
    role: Literal["operator", "player"]
    player_id: str | None
    subject: str


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


def authenticate(uow: UnitOfWork, token: str, operator_tokens: Sequence[str]) -> Principal:
    if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_LENGTH:
        raise Unauthenticated("a valid bearer token is required", code="invalid_token")
    configured = _configured_operator(token, operator_tokens)
    if configured is not None:
        return Principal("operator", None, f"operator:config:{hash_token(configured)[:16]}")
    digest = hash_token(token)
    session = uow.session
    if token.startswith(PLAYER_PREFIX):
        player_id = session.execute(
            select(Player.id).where(Player.token_hash == digest)
        ).scalar_one_or_none()
        if player_id is not None:
            return Principal("player", player_id, f"player:{player_id}")
    else:
        operator_id = session.execute(
            select(OperatorToken.id).where(OperatorToken.token_hash == digest)
        ).scalar_one_or_none()
        if operator_id is not None:
            return Principal("operator", None, f"operator:{operator_id}")
    raise Unauthenticated("a valid bearer token is required", code="invalid_token")


def create_operator_token(uow: UnitOfWork, name: str) -> str:
    """A new operator token, returned once; only its hash is stored."""
    name = (name or "").strip()
    if not 1 <= len(name) <= 200:
        raise Invalid("a token name of 1 to 200 characters is required", code="invalid_name")
    token = new_token(OPERATOR_PREFIX)
    uow.session.add(OperatorToken(name=name, token_hash=hash_token(token), created_at=utcnow()))
    uow.session.flush()
    return token
