"""Bearer tokens -> ``Principal`` on ``flask.g``; role and ownership checks for views.

No/invalid token -> 401 ``unauthenticated``; a valid token of the wrong role -> 403
``forbidden`` (a platform token manages operators and does nothing else); a player naming
another player's resource, or an operator another operator's, -> 404, exactly as if it did
not exist (the unit of work acts for the caller's operator: casino.service.auth). Tokens are
never logged or echoed.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import wraps
from typing import Any, Literal, TypeVar, cast

from flask import current_app, g, request

from casino.api import clock
from casino.api.database import request_uow, retry_on_disconnect
from casino.api.idempotency_key import request_key
from casino.api.openapi import ROLES_EXTENSION, SECURITY_SCHEME, add_doc, error_responses
from casino.service import auth as service_auth
from casino.service.auth import Principal
from casino.service.errors import Forbidden, NotFound, Unauthenticated

F = TypeVar("F", bound=Callable[..., Any])
Role = Literal["operator", "player", "platform"]
OPERATOR: Role = "operator"
PLAYER: Role = "player"
#: The platform: manages operators (docs/operators.md).
PLATFORM: Role = "platform"

# Visible ASCII only: anything else cannot be a token we issued, and refusing it here keeps
# odd bytes away from hashing and constant-time comparison.
_TOKEN = re.compile(r"[\x21-\x7e]{1,512}")


def _bearer_token() -> str:
    header = request.headers.get("Authorization", "")
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
            )
        )
    except Unauthenticated as error:
        if error.code == service_auth.SESSION_EXPIRED:
            # Only the holder of a once valid token learns this: it should ask for a relaunch.
            raise Unauthenticated("The game session has expired.", code="session_expired") from None
        # One code for every failed authentication: no hint about which part was wrong.
        raise Unauthenticated("The bearer token is not valid.") from None
    g.principal = principal
    return principal


def current_principal() -> Principal:
    principal = g.get("principal")
    if principal is None:
        raise RuntimeError("view reached without authentication")
    return cast(Principal, principal)


def requires(*roles: Role) -> Callable[[F], F]:
    """Authenticate the caller before anything else (body validation included)."""

    def decorator(func: F) -> F:
        @wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            principal = authenticate_request()
            if roles and principal.role not in roles:
                raise Forbidden(f"This operation is for {' or '.join(roles)}s only.")
            return func(*args, **kwargs)

        statuses = (401, 403) if roles and len(set(roles)) < 2 else (401,)
        # 429: an address that failed authentication too often; 503: the token lookup
        # needs the database.
        add_doc(
            wrapper,
            security=[{SECURITY_SCHEME: []}],
            responses=error_responses(*statuses, 429, 503),
            **{ROLES_EXTENSION: list(roles)},
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
