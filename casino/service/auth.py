"""Who is calling: platform, operator or player, from a bearer token; and for which operator.

Tokens are high-entropy random strings, so a plain SHA-256 is enough to store them: only the
hash is kept, never the token. Operator tokens from the configuration are compared in constant
time against every configured token.

An operator token has a scope (docs/security.md): ``admin`` may do everything an operator
may, ``support`` reads players, rounds, sessions and protection and protects players (no
money), ``auditor`` reads the ledger, its export and checkpoints, reports and rounds.
A configured token is ``SCOPE:TOKEN`` or a plain ``TOKEN`` (admin).

Authentication decides the operator (the tenant) of the request once and sets it on the unit
of work (docs/operators.md): a player's or game session's token acts for the player's
operator, an operator token for its own, and the configured ``CASINO_OPERATOR_TOKENS`` for the
operator ``default``. A platform token (``CASINO_PLATFORM_TOKENS``, or stored without an
operator) acts for no operator: it manages the operators themselves. Any token of an operator
that is not active is refused (403 ``operator_inactive``).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from casino.service.errors import Forbidden, Invalid, NotFound, Unauthenticated
from casino.store.records import TokenOwner
from casino.store.tenancy import DEFAULT_OPERATOR
from casino.store.types import utcnow
from casino.store.uow import UnitOfWork

OPERATOR_PREFIX = "op_"
#: Stored platform tokens (``casino create-operator-token --platform``).
PLATFORM_PREFIX = "pt_"
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
    PLATFORM_PREFIX,
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
    role: Literal["operator", "player", "platform"]
    player_id: str | None
    subject: str
    #: The game session whose token authenticated the caller, if one did.
    session_id: str | None = None
    #: An operator's scope (admin, support, auditor); None for players.
    scope: str | None = None
    #: The table the game session was launched for (None: any table, or no session).
    session_table_id: str | None = None
    #: The operator the caller acts for (None: the platform).
    operator_id: str | None = None


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


def _inactive() -> Forbidden:
    return Forbidden("the operator is not active", code="operator_inactive")


def acting_for(uow: UnitOfWork, owner: TokenOwner | None) -> TokenOwner | None:
    """The owner of a player credential (a token, a game session, a launch code), its
    operator now the unit of work's; refused if that operator is not active."""
    if owner is None:
        return None
    if not owner.operator_active:
        raise _inactive()
    uow.act_for(owner.operator_id)
    return owner


def _configured_platform(token: str, platform_tokens: Sequence[str]) -> str | None:
    """The configured platform token ``token`` is, compared with every one (plain tokens:
    a platform token has no scope)."""
    match: str | None = None
    given = token.encode("utf-8")
    for configured in platform_tokens:
        if configured and hmac.compare_digest(given, configured.encode("utf-8")):
            match = configured
    return match


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
    platform_tokens: Sequence[str] = (),
    idempotency_key: str | None = None,
    now: datetime | None = None,
    bet_table: str | None = None,
) -> Principal:
    """The caller of ``token``; the unit of work acts for the caller's operator from here on.
    With ``idempotency_key`` (a money-moving request), a player's lookup also does the
    idempotency lock and lookup for that key on PostgreSQL, in the same round trip
    (``casino.service.idempotency.begin`` then uses it); with ``bet_table`` as well (the
    request is a bet at that table), it also claims the bet (``place_bet`` then uses it)."""
    if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_LENGTH:
        raise Unauthenticated("a valid bearer token is required", code="invalid_token")
    configured = _configured_operator(token, operator_tokens)
    if configured is not None:
        scope, secret = configured
        uow.act_for(DEFAULT_OPERATOR)
        if not uow.operators.current().active:  # one primary key read, kept for the request
            raise _inactive()
        subject = f"operator:config:{hash_token(secret)[:16]}"
        return Principal("operator", None, subject, scope=scope, operator_id=DEFAULT_OPERATOR)
    platform = _configured_platform(token, platform_tokens)
    if platform is not None:
        return Principal("platform", None, f"platform:config:{hash_token(platform)[:16]}")
    digest = hash_token(token)
    if token.startswith(GAME_SESSION_PREFIX):
        return _game_session(uow, digest, now or utcnow())
    if token.startswith(PLAYER_PREFIX):
        if idempotency_key is not None:
            # On PostgreSQL this also takes the key's lock and looks its record up.
            owner = uow.idempotency.player_and_key(
                digest, PLAYER_SUBJECT_PREFIX, idempotency_key, bet_table
            )
        else:
            owner = uow.players.owner_of_token(digest)
        player = acting_for(uow, owner)
        if player is not None:
            subject = PLAYER_SUBJECT_PREFIX + player.player_id
            return Principal("player", player.player_id, subject, operator_id=player.operator_id)
    else:
        stored = uow.operator_tokens.id_by_hash(digest, now=utcnow())
        if stored is not None:
            if stored.operator_id is None:
                return Principal("platform", None, f"platform:{stored.id}")
            if not stored.operator_active:
                raise _inactive()
            uow.act_for(stored.operator_id)
            return Principal(
                "operator",
                None,
                f"operator:{stored.id}",
                scope=stored.scope,
                operator_id=stored.operator_id,
            )
    raise Unauthenticated("a valid bearer token is required", code="invalid_token")


def _game_session(uow: UnitOfWork, digest: str, now: datetime) -> Principal:
    found = uow.game_sessions.find_by_token_hash(digest)
    if found is None or found[0].revoked_at is not None:
        raise Unauthenticated("a valid bearer token is required", code="invalid_token")
    session, owner = found
    if now >= session.expires_at:
        raise Unauthenticated("the game session has expired", code="session_expired")
    acting_for(uow, owner)
    player = PLAYER_SUBJECT_PREFIX + session.player_id
    return Principal(
        "player",
        session.player_id,
        player,
        session_id=session.id,
        session_table_id=session.table_id,
        operator_id=owner.operator_id,
    )


@dataclass(frozen=True)
class OperatorTokenView:
    id: int
    name: str
    created_at: datetime
    expires_at: datetime | None = None
    scope: str = ADMIN
    #: None: a platform token.
    operator_id: str | None = None


def list_operator_tokens(uow: UnitOfWork) -> list[OperatorTokenView]:
    """The operator tokens stored in the database (names and ids, never the tokens): the
    operator's, or every one (platform tokens too) in all-operators mode."""
    return [OperatorTokenView(*row) for row in uow.operator_tokens.all()]


def revoke_operator_token(uow: UnitOfWork, token_id: int) -> OperatorTokenView:
    """Delete a stored operator token: requests bearing it are refused from the commit on.
    (Tokens from ``CASINO_OPERATOR_TOKENS`` are revoked by removing them from there.)"""
    found = uow.operator_tokens.delete(token_id)
    if found is None:
        raise NotFound(f"no operator token with id {token_id}", code="operator_token_not_found")
    return OperatorTokenView(*found)


def create_operator_token(
    uow: UnitOfWork,
    name: str,
    expires_in: timedelta | None = None,
    scope: str = ADMIN,
    *,
    platform: bool = False,
) -> str:
    """A new token of the unit of work's operator, of ``scope`` (or, with ``platform``, a
    platform token), returned once; only its hash is stored. With ``expires_in`` it is
    refused from then on (else it lasts until revoked)."""
    check_scope(scope)
    name = (name or "").strip()
    if not 1 <= len(name) <= 200:
        raise Invalid("a token name of 1 to 200 characters is required", code="invalid_name")
    if expires_in is not None and expires_in <= timedelta(0):
        raise Invalid("a token's lifetime must be positive", code="invalid_expiry")
    token = new_token(PLATFORM_PREFIX if platform else OPERATOR_PREFIX)
    now = utcnow()
    expires_at = None if expires_in is None else now + expires_in
    uow.operator_tokens.add(name, hash_token(token), now, expires_at, scope, platform=platform)
    return token
