"""The one place where failures become HTTP responses: RFC 9457 ``application/problem+json``.

Every problem document has ``type``, ``title``, ``status``, ``detail`` and a stable ``code``;
validation failures add per-field ``errors``; domain errors add their ``extra`` members (for
example ``round_id`` of the round in progress). Nothing unexpected leaks: a 500 says only
that something went wrong, and the traceback goes to the log. ``title`` and ``detail`` are in
the language ``Accept-Language`` asks for (casino/api/problem_texts.py), said in
``Content-Language``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from flask import Flask, current_app, json
from flask.wrappers import Response
from werkzeug.exceptions import HTTPException, default_exceptions

from casino.api.language import request_language
from casino.api.problem_texts import title_and_detail
from casino.engine import errors as engine_errors
from casino.service import errors as service_errors
from casino.store import errors as db_errors
from casino.store.read_only import refused_as_read_only

log = logging.getLogger(__name__)

PROBLEM_MIMETYPE = "application/problem+json"
PROBLEM_TYPE_PREFIX = "urn:casino:problem:"

# Most specific first: the first matching class decides the status.
_SERVICE_STATUS: tuple[tuple[type[service_errors.ServiceError], int], ...] = (
    (service_errors.NotFound, 404),
    (service_errors.Conflict, 409),
    (service_errors.Invalid, 422),
    (service_errors.Unauthenticated, 401),
    (service_errors.Forbidden, 403),
    (service_errors.Unavailable, 503),
    (service_errors.BadGateway, 502),
)
_ENGINE_STATUS: tuple[tuple[type[engine_errors.EngineError], int], ...] = (
    (engine_errors.InvalidBet, 422),
    (engine_errors.InvalidRules, 422),
    (engine_errors.InvalidSeed, 422),
    (engine_errors.IllegalAction, 409),
)
# Codes for plain HTTP errors raised by werkzeug/flask (routing, body size, media type...).
_HTTP_CODES = {
    400: "bad_request",
    401: "unauthenticated",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    411: "length_required",
    413: "payload_too_large",
    415: "unsupported_media_type",
    422: "validation_failed",
    429: "rate_limited",
    500: "internal_error",
    503: "service_unavailable",
}
_RESERVED = frozenset({"type", "title", "status", "detail", "code", "errors", "instance"})


def http_code(status: int) -> str:
    """The code of a plain HTTP error: ours, else the status phrase ("gateway_timeout")."""
    code = _HTTP_CODES.get(status)
    return code or re.sub(r"[^a-z0-9]+", "_", HTTPStatus(status).phrase.lower()).strip("_")


# The codes raised by the engine, the service and this API layer, by where they come from.
# A code raised anywhere must be listed: tests/unit/test_problem_codes.py reads the source
# for every code raised and checks it is here.
_RAISED_CODES = (
    # engine: table rules and bets
    "invalid_rules",
    "rules_not_integer",
    "rules_not_boolean",
    "unknown_rule",
    "decks_out_of_range",
    "tie_pays_not_allowed",
    "bet_increment_invalid",
    "min_ante_invalid",
    "max_ante_invalid",
    "max_tie_bet_invalid",
    "invalid_bet",
    "bet_not_integer",
    "ante_out_of_range",
    "ante_not_multiple_of_increment",
    "tie_bet_out_of_range",
    "tie_bet_not_multiple_of_increment",
    "tie_bet_not_offered",
    # engine: rounds, seeds, games
    "engine_error",
    "illegal_action",
    "round_not_awaiting_decision",
    "betting_closed",
    "table_not_shared",
    "table_is_shared",
    "shoe_not_found",
    "surrender_not_allowed",
    "unknown_decision",
    "round_not_settled",
    "invalid_seed",
    "corrupt_game_record",
    # service
    "service_error",
    "invalid_request",
    "invalid_token",
    "invalid_name",
    "invalid_expiry",
    "operator_token_not_found",
    "player_not_found",
    "duplicate_external_ref",
    "invalid_external_ref",
    "invalid_display_name",
    "invalid_currency",
    "invalid_amount",
    "invalid_reference",
    "insufficient_funds",
    "invalid_cursor",
    "invalid_table_id",
    "invalid_active",
    "duplicate_table",
    "table_not_found",
    "table_inactive",
    "round_not_found",
    "round_in_progress",
    "seed_rotation_in_progress",
    "client_seed_fixed",
    "invalid_status",
    "invalid_duration",
    "invalid_period",
    # service: game sessions (the launch flow)
    "invalid_ttl",
    "session_expired",
    "session_not_found",
    "invalid_language",
    "session_table_mismatch",
    # service: operator token scopes
    "insufficient_scope",
    "invalid_scope",
    "invalid_idempotency_key",
    "idempotency_key_reused",
    "request_in_progress",
    # service: the ledger's checkpoints and proofs
    "checkpoint_not_found",
    "transaction_not_found",
    "transaction_not_sealed",
    # service: player protection and accounts
    "unsupported_currency",
    "duplicate_reference",
    "limit_exceeded",
    "invalid_limit",
    "account_suspended",
    "account_closed",
    "self_excluded",
    "cooling_off",
    "session_time_limit",
    "invalid_exclusion",
    "exclusion_in_force",
    "invalid_status_change",
    "invalid_reason",
    "account_status_unchanged",
    "invalid_period",
    # service: game sessions (the launch flow)
    "invalid_ttl",
    "session_expired",
    "session_not_found",
    # service: operators' reads across players and the ledger export
    "invalid_range",
    "invalid_kind",
    # service: free play
    "game_not_found",
    "game_finished",
    "game_unreplayable",
    "illegal_move",
    "concurrent_update",
    "seat_required",
    "invalid_seat",
    "invalid_until",
    "invalid_games",
    "simulation_not_found",
    "simulations_busy",
    "invalid_age",
    # service: operators (tenants) and the platform
    "operator_inactive",
    "operator_not_found",
    "wallet_call_not_found",
    "wallet_call_not_stuck",
    "duplicate_operator",
    "invalid_operator_id",
    "invalid_operator",
    "invalid_wallet_settings",
    "table_currency_mismatch",
    "invalid_operator_session",
    # service: the seamless wallet (docs/integration.md)
    "wallet_error",
    "wallet_unavailable",
    "operator_wallet",
    "player_blocked",
    "invalid_date",
    # API layer
    "malformed_json",
    "idempotency_key_required",
    "idempotency_key_invalid",
)
#: Every ``code`` a problem document can carry (the enum of ``Problem.code`` in the spec).
PROBLEM_CODES: tuple[str, ...] = tuple(
    dict.fromkeys(
        [*_RAISED_CODES, *_HTTP_CODES.values(), *(http_code(s) for s in sorted(default_exceptions))]
    )
)


class ApiError(Exception):
    """A refusal decided by the HTTP layer itself (missing Idempotency-Key, bad JSON...)."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        *,
        headers: Mapping[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = dict(headers or {})
        self.extra = extra


def problem(
    status: int,
    code: str,
    detail: str,
    *,
    errors: Mapping[str, Any] | None = None,
    extra: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
) -> Response:
    title, detail = title_and_detail(request_language(), status, code, detail, extra or {})
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE_PREFIX + code,
        "title": title,
        "status": status,
        "detail": detail,
        "code": code,
    }
    if errors is not None:
        body["errors"] = dict(errors)
    for key, value in (extra or {}).items():
        if key not in _RESERVED:
            body[key] = value
    response = current_app.response_class(
        json.dumps(body), status=status, mimetype=PROBLEM_MIMETYPE
    )
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def _retry_after() -> dict[str, str]:
    return {"Retry-After": str(current_app.config.get("RETRY_AFTER_SECONDS", 1))}


def _status_for(error: Exception, table: tuple[tuple[type, int], ...], default: int) -> int:
    for cls, status in table:
        if isinstance(error, cls):
            return status
    return default


def handle_api_error(error: ApiError) -> Response:
    return problem(error.status, error.code, error.detail, extra=error.extra, headers=error.headers)


def handle_service_error(error: service_errors.ServiceError) -> Response:
    status = _status_for(error, _SERVICE_STATUS, 400)
    headers: dict[str, str] = {}
    if status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    elif status == 503:
        headers.update(_retry_after())
        if "retry_after" in error.extra:
            headers["Retry-After"] = str(error.extra["retry_after"])
    return problem(status, error.code, error.detail, extra=error.extra, headers=headers)


def handle_engine_error(error: engine_errors.EngineError) -> Response:
    status = _status_for(error, _ENGINE_STATUS, 422)
    rule = getattr(error, "rule", None)  # InvalidRules names the rule at fault
    return problem(status, error.code, error.detail, extra=None if rule is None else {"rule": rule})


def _validation_errors(messages: Any) -> dict[str, Any]:
    """webargs nests messages by location ({"json": {...}, "query": {...}}); flatten them."""
    if not isinstance(messages, Mapping):
        return {"_schema": messages}
    flat: dict[str, Any] = {}
    for location, fields in messages.items():
        if isinstance(fields, Mapping):
            flat.update(fields)
        else:
            flat[str(location)] = fields
    return flat


def handle_http_exception(error: HTTPException) -> Response:
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    messages = data.get("messages") or data.get("errors")
    if status == 422 and messages is not None:
        errors = _validation_errors(messages)
        return problem(422, "validation_failed", "The request has invalid fields.", errors=errors)
    if status == 400 and messages is not None:
        # webargs reports undecodable JSON as a 400 with messages under "json".
        return problem(400, "malformed_json", "The request body is not valid JSON.")
    code = http_code(status)
    headers: dict[str, str] = {}
    if status == 405 and getattr(error, "valid_methods", None):
        headers["Allow"] = ", ".join(error.valid_methods)  # type: ignore[attr-defined]
    if status == 429:
        headers.update(_rate_limit_headers(error))
        detail = "Too many failed authentication attempts; retry later."
    elif status == 401:
        headers["WWW-Authenticate"] = "Bearer"
        detail = "A valid bearer token is required."
    elif status >= 500:
        detail = "The server could not complete the request."
    else:
        detail = error.description or HTTPStatus(status).phrase
    return problem(status, code, detail, headers=headers)


def _rate_limit_headers(error: HTTPException) -> dict[str, str]:
    limit = getattr(error, "limit", None)
    seconds = 60
    item = getattr(limit, "limit", None)
    if item is not None and hasattr(item, "get_expiry"):
        seconds = int(item.get_expiry())
    return {"Retry-After": str(seconds)}


def handle_database_unavailable(error: db_errors.SQLAlchemyError) -> Response:
    log.warning("database unavailable: %s", type(error).__name__)
    return problem(
        503,
        "service_unavailable",
        "The database is unavailable; retry later (a write with the same Idempotency-Key).",
        headers=_retry_after(),
    )


def handle_integrity_error(error: db_errors.IntegrityError) -> Response:
    # A constraint refused a write that raced another request (the service layer handles
    # the expected races itself); the transaction was rolled back and nothing changed.
    log.warning("integrity error reached the API: %s", type(error.orig).__name__)
    return problem(409, "conflict", "The request conflicts with the current state; retry.")


def handle_unexpected(error: Exception) -> Response:
    if isinstance(error, HTTPException):
        return handle_http_exception(error)
    log.exception("unhandled error")
    return problem(500, "internal_error", "The server could not complete the request.")


def _is_unavailable(error: db_errors.DBAPIError) -> bool:
    return (
        bool(error.connection_invalidated)
        or isinstance(error, db_errors.OperationalError)
        or refused_as_read_only(error)  # a standby, or writes frozen: retry later
    )


def handle_dbapi_error(error: db_errors.DBAPIError) -> Response:
    if _is_unavailable(error):
        return handle_database_unavailable(error)
    if isinstance(error, db_errors.IntegrityError):
        return handle_integrity_error(error)
    return handle_unexpected(error)


def register(app: Flask) -> None:
    """Install the handlers; call after flask-smorest's Api so these take precedence."""
    app.register_error_handler(ApiError, handle_api_error)
    app.register_error_handler(service_errors.ServiceError, handle_service_error)
    app.register_error_handler(engine_errors.EngineError, handle_engine_error)
    app.register_error_handler(HTTPException, handle_http_exception)
    app.register_error_handler(db_errors.DBAPIError, handle_dbapi_error)
    app.register_error_handler(db_errors.DisconnectionError, handle_database_unavailable)
    app.register_error_handler(db_errors.PoolTimeout, handle_database_unavailable)
    app.register_error_handler(Exception, handle_unexpected)
