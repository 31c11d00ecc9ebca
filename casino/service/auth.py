"""Who is calling: operator or player, from a bearer token.

Tokens are high-entropy random strings, so a plain SHA-256 is enough to store them: only the
hash is kept, never the token. Operator tokens from the configuration are compared in constant
time against every configured token.

An operator token has a scope (docs/security.md): ``admin`` may do everything an operator
may, ``support`` reads players, rounds, sessions and protection and protects players (no
money), ``auditor`` reads the ledger, its export and checkpoints, reports and rounds.
A configured token is ``SCOPE:TOKEN`` or a plain ``TOKEN`` (admin).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from casino.service.errors import Invalid, NotFound, Unauthenticated
from casino.store.types import utcnow
from casino.store.uow import UnitOfWork

OPERATOR_PREFIX = "op_"
PLAYER_PREFIX = "pl_"
#: Game session tokens (the launch flow): a player's credential for a limited time.
GAME_SESSION_PREFIX = "gs_"
#: One-time launch codes, exchanged for a game session's token (casino.service.game_sessions).
LAUNCH_CODE_PREFIX = "lc_"
#: A free-play game's own token (casino.service.free_play).
FREE_PLAY_PREFIX = "gm_"
#: Every prefix of a secret this service hands out: none is ever logged or echoed.
SECRET_PREFIXES = (
    OPERATOR_PREFIX,
    PLAYER_PREFIX,
    GAME_SESSION_PREFIX,
    LAUNCH_CODE_PREFIX,
    FREE_PLAY_PREFIX,
)
ADMIN = "admin"
SUPPORT = "support"
AUDITOR = "auditor"
#: Operator scopes, widest first.
SCOPES = (ADMIN, SUPPORT, AUDITOR)
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
    #: An operator's scope (admin, support, auditor); None for players.
    scope: str | None = None
    #: The table the game session was launched for (None: any table, or no session).
    session_table_id: str | None = None


def split_scope(entry: str) -> tuple[str, str]:
    """A ``CASINO_OPERATOR_TOKENS`` entry -> (scope, token): ``auditor:TOKEN`` or a plain
    ``TOKEN`` (admin). A colon always names a scope (generated tokens have none), so a typo
    in one is an error rather than an admin token: ValueError."""
    scope, colon, token = entry.partition(":")
    if not colon:
        return ADMIN, entry
    if scope not in SCOPES or not token:
        raise ValueError(f"an entry with ':' is SCOPE:TOKEN, the scope one of {', '.join(SCOPES)}")
    return scope, token


def check_scope(scope: str) -> str:
    if scope not in SCOPES:
        raise Invalid(f"scope must be one of {', '.join(SCOPES)}", code="invalid_scope")
    return scope


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token(prefix: str) -> str:
    return prefix + secrets.token_urlsafe(32)


def configured_tokens(operator_tokens: Sequence[str]) -> list[tuple[str, str]]:
    """(scope, token) of each well-formed configured entry (the configuration refuses the
    others at start; one slipped in here is skipped, never taken as admin)."""
    found = []
    for entry in operator_tokens:
        try:
            scope, token = split_scope(entry)
        except ValueError:
            continue
        if token:
            found.append((scope, token))
    return found


def _configured_operator(token: str, operator_tokens: Sequence[str]) -> tuple[str, str] | None:
    match: tuple[str, str] | None = None
    given = token.encode("utf-8")
    # Every entry is compared (no early exit): the time taken says nothing about which.
    for scope, configured in configured_tokens(operator_tokens):
        if hmac.compare_digest(given, configured.encode("utf-8")):
            match = (scope, configured)
    return match


def is_configured_operator(token: str, operator_tokens: Sequence[str]) -> bool:
    """Whether ``token`` is one of the configured operator tokens (no database needed)."""
    return _configured_operator(token, operator_tokens) is not None


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
    round trip (``casino.service.idempotency.begin`` then uses it)."""
    if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_LENGTH:
        raise Unauthenticated("a valid bearer token is required", code="invalid_token")
    configured = _configured_operator(token, operator_tokens)
    if configured is not None:
        scope, secret = configured
        subject = f"operator:config:{hash_token(secret)[:16]}"
        return Principal("operator", None, subject, scope=scope)
    digest = hash_token(token)
    if token.startswith(GAME_SESSION_PREFIX):
        return _game_session(uow, digest, now or utcnow())
    if token.startswith(PLAYER_PREFIX):
        if idempotency_key is not None:
            # On PostgreSQL this also takes the key's lock and looks its record up.
            player_id = uow.idempotency.player_and_key(
                digest, PLAYER_SUBJECT_PREFIX, idempotency_key
            )
        else:
            player_id = uow.players.id_by_token_hash(digest)
        if player_id is not None:
            return Principal("player", player_id, PLAYER_SUBJECT_PREFIX + player_id)
    else:
        stored = uow.operator_tokens.id_and_scope_by_hash(digest, now=utcnow())
        if stored is not None:
            operator_id, scope = stored
            return Principal("operator", None, f"operator:{operator_id}", scope=scope)
    raise Unauthenticated("a valid bearer token is required", code="invalid_token")


def _game_session(uow: UnitOfWork, digest: str, now: datetime) -> Principal:
    found = uow.game_sessions.find_by_token_hash(digest)
    if found is None or found.revoked_at is not None:
        raise Unauthenticated("a valid bearer token is required", code="invalid_token")
    if now >= found.expires_at:
        raise Unauthenticated("the game session has expired", code="session_expired")
    player = PLAYER_SUBJECT_PREFIX + found.player_id
    return Principal(
        "player", found.player_id, player, session_id=found.id, session_table_id=found.table_id
    )


@dataclass(frozen=True)
class OperatorTokenView:
    id: int
    name: str
    created_at: datetime
    expires_at: datetime | None = None
    scope: str = ADMIN


def list_operator_tokens(uow: UnitOfWork) -> list[OperatorTokenView]:
    """The operator tokens stored in the database (names and ids, never the tokens)."""
    return [OperatorTokenView(*row) for row in uow.operator_tokens.all()]


def revoke_operator_token(uow: UnitOfWork, token_id: int) -> OperatorTokenView:
    """Delete a stored operator token: requests bearing it are refused from the commit on.
    (Tokens from ``CASINO_OPERATOR_TOKENS`` are revoked by removing them from there.)"""
    found = uow.operator_tokens.delete(token_id)
    if found is None:
        raise NotFound(f"no operator token with id {token_id}", code="operator_token_not_found")
    return OperatorTokenView(*found)


def create_operator_token(
    uow: UnitOfWork, name: str, expires_in: timedelta | None = None, scope: str = ADMIN
) -> str:
    """A new operator token of ``scope``, returned once; only its hash is stored. With
    ``expires_in`` it is refused from then on (else it lasts until revoked)."""
    check_scope(scope)
    name = (name or "").strip()
    if not 1 <= len(name) <= 200:
        raise Invalid("a token name of 1 to 200 characters is required", code="invalid_name")
    if expires_in is not None and expires_in <= timedelta(0):
        raise Invalid("a token's lifetime must be positive", code="invalid_expiry")
    token = new_token(OPERATOR_PREFIX)
    now = utcnow()
    expires_at = None if expires_in is None else now + expires_in
    uow.operator_tokens.add(name, hash_token(token), now, expires_at, scope)
    return token
