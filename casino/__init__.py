"""Casino War: provably fair dealing, a double-entry ledger and a REST API.

Importing ``casino`` stays cheap and dependency-free (the engine is standard library only);
Flask is imported only when an application is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from flask import Flask


def create_app(config: str | type | None = None) -> Flask:
    """The WSGI application.

    ``config``: "development", "testing", "production", a configuration class, or None to
    use ``CASINO_ENV`` (default development). The environment is read now, not at import.
    """
    from casino.api.app import build

    return build(config)
