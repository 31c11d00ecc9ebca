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


class BadGateway(ServiceError):
    """A dependency (an operator's wallet) answered, but not with anything we can use."""

    code = "bad_gateway"


class WalletUnavailable(Unavailable):
    """The operator's wallet gave no definite answer (docs/integration.md §6). What the use
    case recorded about it (the bet of unknown outcome, its queued rollback) must still
    commit: ``keep(uow)`` writes it again after the request's other work is rolled back, and
    the answer (503) is stored under the request's Idempotency-Key like a success."""

    code = "wallet_unavailable"

    def __init__(self, detail: str, keep: Any = None, **extra: Any) -> None:
        super().__init__(detail, **extra)
        self.keep = keep
