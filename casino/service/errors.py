"""Errors of the service layer, one class per kind of refusal.

Each error has a stable ``code`` (the contract with API clients) and optional ``extra``
members for the problem document (e.g. the id of the round in progress). The API maps the
classes to HTTP statuses in one place; nothing here knows about HTTP.
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    code = "service_error"

    def __init__(self, detail: str, *, code: str | None = None, **extra: Any) -> None:
        super().__init__(detail)
        self.detail = detail
        if code is not None:
            self.code = code
        self.extra = extra


class NotFound(ServiceError):
    """The resource does not exist, or the caller may not know that it exists."""

    code = "not_found"


class Conflict(ServiceError):
    """The request is valid but the current state refuses it (funds, open round, ...)."""

    code = "conflict"


class Invalid(ServiceError):
    """The request is well-formed but its values break a rule (bet limits, seed format)."""

    code = "invalid_request"


class Unauthenticated(ServiceError):
    code = "unauthenticated"


class Forbidden(ServiceError):
    code = "forbidden"


class Unavailable(ServiceError):
    """A dependency (the database) cannot serve now; the client may retry with the same key."""

    code = "service_unavailable"
