"""The real app in this process (Flask test client), for tests that need no server."""

from __future__ import annotations

from typing import Any

OPERATOR_TOKEN = "system-test-operator-token"


def build_app(
    url: str,
    *,
    operator_tokens: tuple[str, ...] = (OPERATOR_TOKEN,),
    auth_failure_limit: str | None = None,
) -> Any:
    """``create_app`` with the testing configuration pointed at ``url``.

    Throttling of failed authentications stays off unless ``auth_failure_limit`` is given
    (flask-limiter syntax, e.g. ``"5 per minute"``).
    """
    from casino import create_app
    from config import TestingConfig

    attrs: dict[str, Any] = {
        "DATABASE_URL": url,
        "CASINO_OPERATOR_TOKENS": list(operator_tokens),
        "RATELIMIT_ENABLED": auth_failure_limit is not None,
    }
    if auth_failure_limit is not None:
        attrs["AUTH_FAILURE_LIMIT"] = auth_failure_limit
    config = type("SystemTestConfig", (TestingConfig,), attrs)
    return create_app(config)


def dispose(app: Any) -> None:
    """Close the app's connection pool (a test database is dropped right after)."""
    database = app.extensions.get("casino.database")
    if database is not None:
        database.engine.dispose()
