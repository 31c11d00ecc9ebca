"""Bearer tokens -> ``Principal`` on ``flask.g``; role, scope and ownership checks for views.

No/invalid token -> 401 ``unauthenticated``; a valid token of the wrong role -> 403
``forbidden`` (a platform token manages operators and does nothing else); an operator token
whose scope does not include the operation -> 403 ``insufficient_scope``; a player naming
another player's resource, or an operator another operator's, -> 404, exactly as if it did
not exist (the unit of work acts for the caller's operator: casino.service.auth). Tokens are
never logged or echoed. A client address over its failed authentication limit is refused
(429) before the token costs a database lookup.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import wraps
from typing import Any, Literal, TypeVar, cast

from flask import current_app, g, request

from casino.api import clock, throttling
from casino.api.database import request_uow, retry_on_disconnect
from casino.api.idempotency_key import request_key
from casino.api.json_body import request_json
from casino.api.openapi import (
    ROLES_EXTENSION,
    SCOPES_EXTENSION,
    SECURITY_SCHEME,
    add_doc,
    error_responses,
)
from casino.service import auth as service_auth
from casino.service.auth import ADMIN, AUDITOR, SCOPES, SUPPORT, Principal
from casino.service.errors import Forbidden, NotFound, Unauthenticated

F = TypeVar("F", bound=Callable[..., Any])
Role = Literal["operator", "player", "platform"]
OPERATOR: Role = "operator"
PLAYER: Role = "player"
#: The platform: manages operators (docs/operators.md).
PLATFORM: Role = "platform"
#: Which operator scopes an operation takes (docs/security.md). Admin takes everything.
ADMIN_ONLY = (ADMIN,)
#: Support staff: read players, rounds, sessions, protection; protect; revoke sessions.
WITH_SUPPORT = (ADMIN, SUPPORT)
#: Auditors: the ledger, its export and checkpoints, reports.
WITH_AUDITOR = (ADMIN, AUDITOR)
#: Rounds are read by support and auditors alike.
EVERY_SCOPE = SCOPES

# Visible ASCII only: anything else cannot be a token we issued, and refusing it here keeps
# odd bytes away from hashing and constant-time comparison.
_TOKEN = re.compile(r"[\x21-\x7e]{1,512}")


def _bearer_token() -> str:
    header = request.headers.get("Authorization", "")
    if not header.strip():
        throttling.no_credential()
    scheme, _, token = header.strip().partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token:
        raise Unauthenticated("A bearer token is required (Authorization: Bearer <token>).")
    if not _TOKEN.fullmatch(token):
        raise Unauthenticated("The bearer token is not valid.")
    return token


def authenticate_request() -> Principal:
    cached = g.get("principal")
    if cached is not None:
        return cast(Principal, cached)
    token = _bearer_token()
    operator_tokens = current_app.config.get("CASINO_OPERATOR_TOKENS", [])
    platform_tokens = current_app.config.get("CASINO_PLATFORM_TOKENS", [])
    configured = service_auth.is_configured_operator(
        token, operator_tokens
    ) or service_auth.is_configured_operator(token, platform_tokens)
    if not configured:
        # Before the database: a blocked address's guesses cost no lookup.
        throttling.refuse_blocked_client(token)
    # A money-moving request's key is looked up with the token, in one round trip.
    key = request_key() if request.method == "POST" else None
    try:
        # Authentication is each request's first database statement.
        principal = retry_on_disconnect(
            lambda: service_auth.authenticate(
                request_uow(),
                token,
                operator_tokens,
                platform_tokens=platform_tokens,
                idempotency_key=key,
                now=clock.now(),
                bet_table=g.get(BET_TABLE) if key is not None else None,
            )
        )
    except Unauthenticated as error:
        if error.code == service_auth.SESSION_EXPIRED:
            # Only the holder of a once valid token learns this: it should ask for a relaunch.
            raise Unauthenticated("The game session has expired.", code="session_expired") from None
        # One code for every failed authentication: no hint about which part was wrong.
        raise Unauthenticated("The bearer token is not valid.") from None
    if not configured:
        throttling.remember_valid(token)
    g.principal = principal
    return principal


#: On ``flask.g``: the table a bet names in its body (set by ``claims_bet``), so that the
#: authentication's round trip claims the bet as well.
BET_TABLE = "casino_bet_table"


def claims_bet(func: F) -> F:
    """Outside ``requires``: a bet's claim travels with its authentication (one round trip
    less). Only a hint: taken from the raw body before validation, and only when the body
    names a table and brings no client seed (which is set before the claim); the bet's
    validation, checks and errors are the same whether it was used or not."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        body = request_json()
        if isinstance(body, dict) and "client_seed" not in body:
            table_id = body.get("table_id")
            if isinstance(table_id, str) and 0 < len(table_id) <= 64:
                setattr(g, BET_TABLE, table_id)
        return func(*args, **kwargs)

    return cast(F, wrapper)


def current_principal() -> Principal:
    principal = g.get("principal")
    if principal is None:
        raise RuntimeError("view reached without authentication")
    return cast(Principal, principal)


def requires(*roles: Role, scopes: tuple[str, ...] = ADMIN_ONLY) -> Callable[[F], F]:
    """Authenticate the caller before anything else (body validation included).

    ``scopes``: the operator scopes the operation takes, when operators may call it (admin
    always); declared in the spec as ``x-scopes`` (empty for player-only operations).
    """
    if ADMIN not in scopes or not set(scopes) <= set(SCOPES):
        raise ValueError(f"scopes must include admin and name only {SCOPES}: {scopes}")
    allowed = tuple(scope for scope in SCOPES if scope in scopes)

    def decorator(func: F) -> F:
        @wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            principal = authenticate_request()
            if roles and principal.role not in roles:
                raise Forbidden(f"This operation is for {' or '.join(roles)}s only.")
            if principal.role == OPERATOR and principal.scope not in allowed:
                raise Forbidden(
                    f"This operation needs an operator token of scope {' or '.join(allowed)}.",
                    code="insufficient_scope",
                )
            return func(*args, **kwargs)

        operators = OPERATOR in roles
        declared = list(allowed) if operators else []
        # 403: a token of another role, or an operator token of another scope.
        narrowed = operators and len(allowed) < len(SCOPES)
        statuses = (401, 403) if (roles and len(set(roles)) < 2) or narrowed else (401,)
        # 429: an address that failed authentication too often; 503: the token lookup
        # needs the database.
        add_doc(
            wrapper,
            security=[{SECURITY_SCHEME: []}],
            responses=error_responses(*statuses, 429, 503),
            **{ROLES_EXTENSION: list(roles), SCOPES_EXTENSION: declared},
        )
        return cast(F, wrapper)

    return decorator


def player_not_found(player_id: str) -> NotFound:
    # Word for word what the service says about an unknown id: nothing tells them apart.
    return NotFound("no such player", code="player_not_found")


def ensure_visible_player(player_id: str) -> None:
    """Operators see every player; a player only itself (others answer as not found)."""
    principal = current_principal()
    if principal.role == PLAYER and principal.player_id != player_id:
        raise player_not_found(player_id)


def scope_player_id() -> str | None:
    """The player a query is restricted to: None for operators (they see everyone)."""
    principal = current_principal()
    return principal.player_id if principal.role == PLAYER else None


def acting_player_id() -> str:
    principal = current_principal()
    if principal.role != PLAYER or principal.player_id is None:
        raise Forbidden("This operation is for players only.")
    return principal.player_id
