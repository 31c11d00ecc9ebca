"""The one place where failures become HTTP responses: RFC 9457 ``application/problem+json``.

Every problem document has ``type``, ``title``, ``status``, ``detail`` and a stable ``code``;
validation failures add per-field ``errors``; domain errors add their ``extra`` members (for
example ``round_id`` of the round in progress). Nothing unexpected leaks: a 500 says only
that something went wrong, and the traceback goes to the log.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from flask import Flask, current_app, json
from flask.wrappers import Response
from sqlalchemy import exc as sa_exc
from werkzeug.exceptions import HTTPException

from casino.engine import errors as engine_errors
from casino.service import errors as service_errors
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
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE_PREFIX + code,
        "title": HTTPStatus(status).phrase,
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
    return problem(status, error.code, error.detail, extra=error.extra, headers=headers)


def handle_engine_error(error: engine_errors.EngineError) -> Response:
    status = _status_for(error, _ENGINE_STATUS, 422)
    return problem(status, error.code, error.detail)


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
    code = _HTTP_CODES.get(status, HTTPStatus(status).phrase.lower().replace(" ", "_"))
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


def handle_database_unavailable(error: sa_exc.SQLAlchemyError) -> Response:
    log.warning("database unavailable: %s", type(error).__name__)
    return problem(
        503,
        "service_unavailable",
        "The database is unavailable; retry later (a write with the same Idempotency-Key).",
        headers=_retry_after(),
    )


def handle_integrity_error(error: sa_exc.IntegrityError) -> Response:
    # A constraint refused a write that raced another request (the service layer handles
    # the expected races itself); the transaction was rolled back and nothing changed.
    log.warning("integrity error reached the API: %s", type(error.orig).__name__)
    return problem(409, "conflict", "The request conflicts with the current state; retry.")


def handle_unexpected(error: Exception) -> Response:
    if isinstance(error, HTTPException):
        return handle_http_exception(error)
    log.exception("unhandled error")
    return problem(500, "internal_error", "The server could not complete the request.")


def _is_unavailable(error: sa_exc.DBAPIError) -> bool:
    return (
        bool(error.connection_invalidated)
        or isinstance(error, sa_exc.OperationalError)
        or refused_as_read_only(error)  # a standby, or writes frozen: retry later
    )


def handle_dbapi_error(error: sa_exc.DBAPIError) -> Response:
    if _is_unavailable(error):
        return handle_database_unavailable(error)
    if isinstance(error, sa_exc.IntegrityError):
        return handle_integrity_error(error)
    return handle_unexpected(error)


def register(app: Flask) -> None:
    """Install the handlers; call after flask-smorest's Api so these take precedence."""
    app.register_error_handler(ApiError, handle_api_error)
    app.register_error_handler(service_errors.ServiceError, handle_service_error)
    app.register_error_handler(engine_errors.EngineError, handle_engine_error)
    app.register_error_handler(HTTPException, handle_http_exception)
    app.register_error_handler(sa_exc.DBAPIError, handle_dbapi_error)
    app.register_error_handler(sa_exc.DisconnectionError, handle_database_unavailable)
    app.register_error_handler(sa_exc.TimeoutError, handle_database_unavailable)
    app.register_error_handler(Exception, handle_unexpected)
