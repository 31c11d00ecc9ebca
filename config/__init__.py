"""Application configuration classes, chosen by ``CASINO_ENV`` or by ``create_app``'s argument.

Class attributes are static defaults. Anything that comes from the environment is read by
``load(environ)`` when the app is created, never at import time, so importing this module has
no side effects and tests can build apps with different environments in one process.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any, ClassVar
from urllib.parse import urlsplit

MIB = 1024 * 1024


class ConfigError(RuntimeError):
    """The environment does not allow the app to start (e.g. no database URL in production)."""


def _split_tokens(raw: str | None) -> list[str]:
    return [token.strip() for token in (raw or "").split(",") if token.strip()]


def parse_origins(raw: str | None) -> list[str]:
    """``CASINO_CORS_ORIGINS``: comma-separated origins (``scheme://host[:port]``), exact.

    Anything else (a path, a wildcard, a pattern) stops the app: an allow-list that matches
    more than its author meant is worse than none.
    """
    origins = []
    for item in _split_tokens(raw):
        parts = urlsplit(item)
        if (
            parts.scheme not in ("http", "https")
            or not parts.hostname
            or parts.path not in ("", "/")
            or parts.query
            or parts.fragment
            or parts.username is not None
            or not _ORIGIN_HOST.fullmatch(parts.netloc)
        ):
            raise ConfigError(
                f"CASINO_CORS_ORIGINS: {item!r} is not an origin (scheme://host[:port])"
            )
        origins.append(f"{parts.scheme}://{parts.netloc.lower()}")
    return origins


_ORIGIN_HOST = re.compile(r"(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")


def _database_url(environ: Mapping[str, str]) -> str:
    """The data layer's reading of the environment: DATABASE_URL (driver made explicit) or
    the development SQLite file instance/casino.store."""
    from casino.store import database_url

    return database_url(dict(environ))


class BaseConfig:
    ENV_NAME: ClassVar[str] = "base"

    # flask-smorest / OpenAPI
    API_TITLE = "Casino War"
    API_VERSION = "v1"
    OPENAPI_VERSION = "3.0.3"
    OPENAPI_URL_PREFIX = "/api/v1"
    OPENAPI_JSON_PATH = "openapi.json"
    # The browsable docs are served by casino.api.docs from vendored assets (no CDN).
    OPENAPI_SWAGGER_UI_PATH = None

    JSON_SORT_KEYS = False
    # Bodies are small JSON documents; anything larger is refused with 413 before parsing.
    MAX_CONTENT_LENGTH = 1 * MIB

    DATABASE_URL: str | None = None
    CASINO_OPERATOR_TOKENS: list[str] = []
    # Browser origins allowed to call the API (CORS); none by default.
    CASINO_CORS_ORIGINS: list[str] = []

    # Throttling of failed authentications (token guessing). Counter store, a ``limits``
    # storage URI: memory:// per process, redis://... to share the count between workers.
    RATELIMIT_ENABLED = True
    RATELIMIT_STORAGE_URI = "memory://"
    AUTH_FAILURE_LIMIT = "20 per minute"
    # Number of trusted reverse proxies in front of the app (X-Forwarded-For hops).
    PROXY_FIX_X_FOR = 0

    # Pagination
    PAGE_DEFAULT_LIMIT = 50
    PAGE_MAX_LIMIT = 200

    # Seconds suggested to clients in Retry-After when the database is unavailable.
    RETRY_AFTER_SECONDS = 1

    LOG_LEVEL = "INFO"

    @classmethod
    def load(cls, environ: Mapping[str, str]) -> dict[str, Any]:
        """Settings read from the environment at app creation, layered over the class."""
        settings: dict[str, Any] = {}
        if environ.get("DATABASE_URL", "").strip():
            settings["DATABASE_URL"] = _database_url(environ)
        if "CASINO_OPERATOR_TOKENS" in environ:
            settings["CASINO_OPERATOR_TOKENS"] = _split_tokens(environ["CASINO_OPERATOR_TOKENS"])
        if "CASINO_CORS_ORIGINS" in environ:
            settings["CASINO_CORS_ORIGINS"] = parse_origins(environ["CASINO_CORS_ORIGINS"])
        if environ.get("RATELIMIT_STORAGE_URI"):
            settings["RATELIMIT_STORAGE_URI"] = environ["RATELIMIT_STORAGE_URI"]
        if environ.get("CASINO_AUTH_FAILURE_LIMIT"):
            settings["AUTH_FAILURE_LIMIT"] = environ["CASINO_AUTH_FAILURE_LIMIT"]
        if environ.get("CASINO_PROXY_FIX_X_FOR"):
            settings["PROXY_FIX_X_FOR"] = int(environ["CASINO_PROXY_FIX_X_FOR"])
        if environ.get("LOG_LEVEL"):
            settings["LOG_LEVEL"] = environ["LOG_LEVEL"].upper()
        return settings


class DevelopmentConfig(BaseConfig):
    ENV_NAME = "development"
    LOG_LEVEL = "DEBUG"

    @classmethod
    def load(cls, environ: Mapping[str, str]) -> dict[str, Any]:
        settings = super().load(environ)
        settings.setdefault("DATABASE_URL", _database_url(environ))
        return settings


class TestingConfig(BaseConfig):
    ENV_NAME = "testing"
    TESTING = True
    # Tests that exercise throttling enable it explicitly.
    RATELIMIT_ENABLED = False
    CASINO_OPERATOR_TOKENS = ["test-operator-token"]

    @classmethod
    def load(cls, environ: Mapping[str, str]) -> dict[str, Any]:
        settings = super().load(environ)
        # A test database is named by the test itself (a subclass or CASINO_TEST_DATABASE_URL);
        # never fall back to the developer's database.
        settings.pop("DATABASE_URL", None)
        url = cls.DATABASE_URL or environ.get("CASINO_TEST_DATABASE_URL")
        if url:
            settings["DATABASE_URL"] = url
        return settings


class ProductionConfig(BaseConfig):
    ENV_NAME = "production"

    @classmethod
    def load(cls, environ: Mapping[str, str]) -> dict[str, Any]:
        settings = super().load(environ)
        if not settings.get("DATABASE_URL"):
            raise ConfigError(
                "DATABASE_URL is required in production "
                "(e.g. postgresql+psycopg://user:password@host:5432/casino)"
            )
        return settings


CONFIGS: dict[str, type[BaseConfig]] = {
    "development": DevelopmentConfig,
    "testing": TestingConfig,
    "production": ProductionConfig,
}


def resolve(config: str | type | None, environ: Mapping[str, str] | None = None) -> type:
    """The configuration class for ``config`` (a name, a class, or None = ``CASINO_ENV``)."""
    env = os.environ if environ is None else environ
    if isinstance(config, type):
        return config
    name = config if config is not None else env.get("CASINO_ENV", "development")
    try:
        return CONFIGS[name.strip().lower()]
    except KeyError:
        known = ", ".join(sorted(CONFIGS))
        raise ConfigError(f"unknown configuration {name!r}; expected one of: {known}") from None
