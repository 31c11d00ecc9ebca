"""Application configuration classes, chosen by ``CASINO_ENV`` or by ``create_app``'s argument.

Class attributes are static defaults. Anything that comes from the environment is read by
``load(environ)`` when the app is created, never at import time, so importing this module has
no side effects and tests can build apps with different environments in one process.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import urlsplit

MIB = 1024 * 1024


class ConfigError(RuntimeError):
    """The environment does not allow the app to start (e.g. no database URL in production)."""


def _split_tokens(raw: str | None) -> list[str]:
    return [token.strip() for token in (raw or "").split(",") if token.strip()]


def _operator_tokens(raw: str) -> list[str]:
    """``CASINO_OPERATOR_TOKENS``: comma-separated ``TOKEN`` (admin) or ``SCOPE:TOKEN``
    (admin, support, auditor); an entry naming no known scope stops the start-up."""
    from casino.service.auth import split_scope

    entries = _split_tokens(raw)
    for position, entry in enumerate(entries, start=1):
        try:
            split_scope(entry)
        except ValueError as error:
            # Which one and why, never the token itself (this ends up in logs).
            raise ConfigError(f"CASINO_OPERATOR_TOKENS: token {position}: {error}") from None
    return entries


def _networks(raw: str) -> tuple[Any, ...]:
    """``127.0.0.1, 10.0.0.0/8`` -> IP networks; a malformed entry stops the start-up."""
    from ipaddress import ip_network

    networks = []
    for entry in (part.strip() for part in raw.split(",")):
        if not entry:
            continue
        try:
            networks.append(ip_network(entry, strict=False))
        except ValueError:
            raise ConfigError(f"CASINO_METRICS_ALLOW: not an address or range: {entry!r}") from None
    return tuple(networks)


def parse_origins(raw: str | None) -> list[str]:
    """``CASINO_CORS_ORIGINS``: comma-separated origins (``scheme://host[:port]``), exact.

    Anything else (a path, a wildcard, a pattern) stops the app: an allow-list that matches
    more than its author meant is worse than none.
    """
    origins = []
    for item in _split_tokens(raw):
        try:
            origins.append(_origin(item))
        except ValueError:
            raise ConfigError(
                f"CASINO_CORS_ORIGINS: {item!r} is not an origin (scheme://host[:port])"
            ) from None
    return origins


_ORIGIN_HOST = re.compile(r"(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def _origin(item: str) -> str:
    """An origin as a browser serialises it in ``Origin``: lower case, an IPv6 address in
    its canonical form, no default port (``http://[2001:DB8:0::1]:80`` ->
    ``http://[2001:db8::1]``). ValueError if it is not one."""
    from ipaddress import IPv6Address

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
        raise ValueError(item)
    port = parts.port  # ValueError when out of range
    host = parts.hostname.lower()
    if parts.netloc.startswith("["):
        host = f"[{IPv6Address(host).compressed}]"  # ValueError when not an address
    if port is None or port == _DEFAULT_PORTS[parts.scheme]:
        return f"{parts.scheme}://{host}"
    return f"{parts.scheme}://{host}:{port}"


def _database_url(environ: Mapping[str, str]) -> str:
    """The data layer's reading of the environment: DATABASE_URL (driver made explicit) or
    the development SQLite file instance/casino.db."""
    from casino.store import database_url

    return database_url(dict(environ))


def _currencies(raw: str) -> tuple[str, ...]:
    from casino.service.currencies import parse_list

    try:
        return parse_list(raw.split(","))
    except ValueError as error:
        raise ConfigError(f"CASINO_CURRENCIES: {error}") from None


def _key_text(environ: Mapping[str, str], name: str) -> str | None:
    """A key's text from ``name``, or from the file ``name``_FILE names."""
    text = environ.get(name, "").strip()
    if text:
        return text
    path = environ.get(f"{name}_FILE", "").strip()
    if path:
        try:
            return Path(path).read_text().strip()
        except OSError as error:
            raise ConfigError(f"{name}_FILE cannot be read: {error}") from None
    return None


def _signing_key(environ: Mapping[str, str]) -> str | None:
    """The checkpoint signing (private) key's text, 64 hex digits or PEM: only the sealer
    needs it. ``CASINO_SIGNING_KEY``, or the file ``CASINO_SIGNING_KEY_FILE`` names."""
    return _key_text(environ, "CASINO_SIGNING_KEY")


def _public_keys(settings: dict[str, Any]) -> None:
    """``SIGNING_PUBLIC_KEY`` (hex), what the web tier publishes and the audit trusts: as
    given, or derived from the private key when only that is given (both given: they must
    be one key pair). The trusted earlier keys are checked here too, so that a typo stops
    the start rather than a later audit."""
    from casino.ledger.checkpoints import SigningKey, TrustedKey, VerifyingKey

    private, public = settings.get("SIGNING_KEY"), settings.get("SIGNING_PUBLIC_KEY")
    try:
        derived = None if not private else SigningKey.parse(private).verifying
    except ValueError as error:
        raise ConfigError(f"CASINO_SIGNING_KEY: {error}") from None
    try:
        given = None if not public else VerifyingKey.parse(public)
    except ValueError as error:
        raise ConfigError(f"CASINO_SIGNING_PUBLIC_KEY: {error}") from None
    if derived is not None and given is not None and derived != given:
        raise ConfigError(
            "CASINO_SIGNING_PUBLIC_KEY is not the public key of CASINO_SIGNING_KEY: the "
            "sealer would sign with a key the service does not publish"
        )
    chosen = given or derived
    if chosen is not None:
        settings["SIGNING_PUBLIC_KEY"] = chosen.hex
    for entry in settings.get("TRUSTED_SIGNING_KEYS", []):
        try:
            TrustedKey.parse(entry)
        except ValueError as error:
            raise ConfigError(f"CASINO_TRUSTED_SIGNING_KEYS: {error}") from None


#: Development signs checkpoints with a key of its own, made on first use and kept here.
DEV_SIGNING_KEY_FILE = Path("instance") / "signing-key"
#: And its sealer records there the last checkpoint it signed.
DEV_SEALER_STATE_FILE = Path("instance") / "sealer-state.json"
# Tests without a key sign with one made for this process.
_PROCESS_KEY = secrets.token_bytes(32).hex()


def _development_key() -> str:
    path = (Path.cwd() / DEV_SIGNING_KEY_FILE).resolve()
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        # An Ed25519 private key is any 32 random bytes; written readable by the owner only.
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(secrets.token_bytes(32).hex() + "\n")
    return path.read_text().strip()


_DATABASE_TIMEOUTS = (
    "DATABASE_LOCK_TIMEOUT",
    "DATABASE_STATEMENT_TIMEOUT",
    "DATABASE_CONNECT_TIMEOUT",
    "DATABASE_CLIENT_TIMEOUT",
    "DATABASE_IDLE_IN_TRANSACTION_TIMEOUT",
)


def _seconds(name: str, raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number of seconds, not {raw!r}") from None
    if not value > 0:
        raise ConfigError(f"{name} must be positive, not {raw!r}")
    return value


_DURATION = re.compile(r"(\d+)\s*([smhdw])")
_DURATION_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def duration_seconds(text: str) -> int:
    """``24h``, ``90m``, ``1d12h``, ``3600s`` (a bare number is seconds); ValueError else."""
    value = text.strip().lower()
    if value.isdigit():
        return int(value)
    parts = _DURATION.findall(value)
    if not parts or _DURATION.sub("", value).strip():
        raise ValueError(f"not a duration: {text!r} (use e.g. 24h, 90m, 1d)")
    return sum(int(amount) * _DURATION_UNITS[unit] for amount, unit in parts)


def wallet_retry_window(environ: Mapping[str, str]) -> int:
    """Seconds a seamless wallet's win or rollback is retried before it needs attention
    (``CASINO_WALLET_RETRY_WINDOW``, default 24h): the web tier, the workers and the dealer
    read it here, so a call answered by any of them follows the same window."""
    raw = environ.get("CASINO_WALLET_RETRY_WINDOW", "").strip() or "24h"
    try:
        return duration_seconds(raw)
    except ValueError as error:
        raise ConfigError(f"CASINO_WALLET_RETRY_WINDOW: {error}") from None


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
    # Seconds a client may take to send a request's body once its headers are in (408 after).
    CLIENT_BODY_TIMEOUT = 10.0

    DATABASE_URL: str | None = None
    # Tokens of the operator ``default`` (docs/operators.md).
    CASINO_OPERATOR_TOKENS: list[str] = []
    # Tokens of the platform: they manage operators (POST/GET/PATCH /api/v1/operators).
    CASINO_PLATFORM_TOKENS: list[str] = []
    # Browser origins allowed to call the API (CORS); none by default.
    CASINO_CORS_ORIGINS: list[str] = []
    # ISO 4217 codes this operator accepts (wallets, tables, limits): CASINO_CURRENCIES.
    CASINO_CURRENCIES: tuple[str, ...] = ("EUR", "USD", "GBP")
    # Tests inject a clock (a callable returning an aware UTC datetime); None: the real one.
    CASINO_CLOCK = None

    # Throttling of failed authentications (token guessing). Counter store, a ``limits``
    # storage URI: memory:// per process, redis://... (or REDIS_URL) to share the count
    # between workers and instances.
    RATELIMIT_ENABLED = True
    RATELIMIT_STORAGE_URI: str | None = "memory://"
    AUTH_FAILURE_LIMIT = "20 per minute"
    # Number of trusted reverse proxies in front of the app (X-Forwarded-For hops).
    PROXY_FIX_X_FOR = 0

    # Pagination
    PAGE_DEFAULT_LIMIT = 50
    PAGE_MAX_LIMIT = 200

    # Seconds suggested to clients in Retry-After when the database is unavailable.
    RETRY_AFTER_SECONDS = 1

    # Bounds on every database wait, in seconds (casino.store.session.DatabaseTimeouts): past
    # one a request answers 503 service_unavailable and its worker serves on. The client
    # bound (network included) defaults to the statement bound + 0.5 s: a database that
    # stops answering on the network costs a request about 4 s.
    DATABASE_LOCK_TIMEOUT = 3.0
    DATABASE_STATEMENT_TIMEOUT = 3.5
    DATABASE_CONNECT_TIMEOUT = 3.0
    DATABASE_CLIENT_TIMEOUT: float | None = None
    DATABASE_IDLE_IN_TRANSACTION_TIMEOUT = 60.0

    LOG_LEVEL = "INFO"
    # One JSON line per request on stderr (casino.api.observability).
    REQUEST_LOG = True
    # A bet and a decision answered by casino.api.hot_path (same views, same answers, less of
    # Flask's per-request work); read per request, so a test may turn it off and on.
    HOT_PATH = True
    # Addresses (IPs, CIDR ranges) that may scrape /metrics without an operator token.
    METRICS_ALLOW: tuple[Any, ...] = ()

    # Ed25519 key that signs ledger checkpoints (casino.ledger.checkpoints): the private key
    # only where the sealer runs, its public key (hex; derived from the private key when only
    # that is given) wherever checkpoints are published or checked; and the public keys of
    # earlier signing keys whose checkpoints the audit still trusts, each with the range of
    # checkpoints it signed (``KEY@FIRST-LAST``).
    SIGNING_KEY: str | None = None
    SIGNING_PUBLIC_KEY: str | None = None
    TRUSTED_SIGNING_KEYS: list[str] = []
    # Seconds between two runs of the sealer that ``casino serve`` starts (0: none).
    SEAL_EVERY_SECONDS = 5.0
    # Where the sealer records the last checkpoint it signed (casino.store.sealer_state).
    SEALER_STATE: str | None = None
    # ``casino audit`` fails when a transaction is still unsealed this long after it was made.
    UNSEALED_MAX_AGE_SECONDS = 600.0
    # Seconds a seamless wallet's win or rollback is retried before it needs attention.
    WALLET_RETRY_WINDOW_SECONDS = 24 * 3600

    @classmethod
    def load(cls, environ: Mapping[str, str]) -> dict[str, Any]:
        """Settings read from the environment at app creation, layered over the class."""
        settings: dict[str, Any] = {}
        key = _signing_key(environ)
        if key:
            settings["SIGNING_KEY"] = key
        public = _key_text(environ, "CASINO_SIGNING_PUBLIC_KEY")
        if public:
            settings["SIGNING_PUBLIC_KEY"] = public
        if environ.get("CASINO_TRUSTED_SIGNING_KEYS", "").strip():
            settings["TRUSTED_SIGNING_KEYS"] = _split_tokens(environ["CASINO_TRUSTED_SIGNING_KEYS"])
        if environ.get("CASINO_SEAL_EVERY_SECONDS", "").strip():
            settings["SEAL_EVERY_SECONDS"] = float(environ["CASINO_SEAL_EVERY_SECONDS"])
        if environ.get("CASINO_SEALER_STATE", "").strip():
            settings["SEALER_STATE"] = environ["CASINO_SEALER_STATE"].strip()
        if environ.get("CASINO_UNSEALED_MAX_AGE_SECONDS", "").strip():
            settings["UNSEALED_MAX_AGE_SECONDS"] = _seconds(
                "CASINO_UNSEALED_MAX_AGE_SECONDS", environ["CASINO_UNSEALED_MAX_AGE_SECONDS"]
            )
        if environ.get("CASINO_WALLET_RETRY_WINDOW", "").strip():
            settings["WALLET_RETRY_WINDOW_SECONDS"] = wallet_retry_window(environ)
        if environ.get("DATABASE_URL", "").strip():
            settings["DATABASE_URL"] = _database_url(environ)
        if environ.get("CASINO_CURRENCIES", "").strip():
            settings["CASINO_CURRENCIES"] = _currencies(environ["CASINO_CURRENCIES"])
        if "CASINO_OPERATOR_TOKENS" in environ:
            settings["CASINO_OPERATOR_TOKENS"] = _operator_tokens(environ["CASINO_OPERATOR_TOKENS"])
        if "CASINO_PLATFORM_TOKENS" in environ:
            settings["CASINO_PLATFORM_TOKENS"] = _split_tokens(environ["CASINO_PLATFORM_TOKENS"])
        if "CASINO_CORS_ORIGINS" in environ:
            settings["CASINO_CORS_ORIGINS"] = parse_origins(environ["CASINO_CORS_ORIGINS"])
        if environ.get("RATELIMIT_STORAGE_URI"):
            settings["RATELIMIT_STORAGE_URI"] = environ["RATELIMIT_STORAGE_URI"]
        elif environ.get("REDIS_URL"):
            # The usual name of a platform's Redis: counters shared by every worker.
            settings["RATELIMIT_STORAGE_URI"] = environ["REDIS_URL"]
        if environ.get("CASINO_AUTH_FAILURE_LIMIT"):
            settings["AUTH_FAILURE_LIMIT"] = environ["CASINO_AUTH_FAILURE_LIMIT"]
        if environ.get("CASINO_PROXY_FIX_X_FOR"):
            settings["PROXY_FIX_X_FOR"] = int(environ["CASINO_PROXY_FIX_X_FOR"])
        for name in _DATABASE_TIMEOUTS:
            raw = environ.get(f"CASINO_{name}", "").strip()
            if raw:
                settings[name] = _seconds(f"CASINO_{name}", raw)
        if environ.get("CASINO_CLIENT_BODY_TIMEOUT"):
            settings["CLIENT_BODY_TIMEOUT"] = float(environ["CASINO_CLIENT_BODY_TIMEOUT"])
        if environ.get("LOG_LEVEL"):
            settings["LOG_LEVEL"] = environ["LOG_LEVEL"].upper()
        if environ.get("CASINO_REQUEST_LOG", "").strip():
            settings["REQUEST_LOG"] = environ["CASINO_REQUEST_LOG"].strip().lower() not in (
                "0",
                "false",
                "no",
                "off",
            )
        if environ.get("CASINO_METRICS_ALLOW", "").strip():
            settings["METRICS_ALLOW"] = _networks(environ["CASINO_METRICS_ALLOW"])
        if environ.get("CASINO_HOT_PATH", "").strip():
            settings["HOT_PATH"] = environ["CASINO_HOT_PATH"].strip().lower() not in (
                "0",
                "false",
                "no",
                "off",
            )
        return settings


class DevelopmentConfig(BaseConfig):
    ENV_NAME = "development"
    LOG_LEVEL = "DEBUG"

    @classmethod
    def load(cls, environ: Mapping[str, str]) -> dict[str, Any]:
        settings = super().load(environ)
        settings.setdefault("DATABASE_URL", _database_url(environ))
        if not settings.get("SIGNING_KEY") and not settings.get("SIGNING_PUBLIC_KEY"):
            settings["SIGNING_KEY"] = _development_key()
        settings.setdefault("SEALER_STATE", str(Path.cwd() / DEV_SEALER_STATE_FILE))
        _public_keys(settings)
        return settings


class TestingConfig(BaseConfig):
    ENV_NAME = "testing"
    TESTING = True
    # SQLite serialises writers on one lock: the concurrency tests queue many of them on a
    # loaded machine. Tests of the bound set their own.
    DATABASE_LOCK_TIMEOUT = 30.0
    # Likewise a statement (which on PostgreSQL includes its lock waits).
    DATABASE_STATEMENT_TIMEOUT = 10.0
    # Tests read simulation results in the request's answer; the job path has its own.
    FREE_PLAY_SIMULATION_WAIT_SECONDS = 120.0
    # Tests that exercise throttling enable it explicitly.
    RATELIMIT_ENABLED = False
    CASINO_OPERATOR_TOKENS = ["test-operator-token"]
    CASINO_PLATFORM_TOKENS = ["test-platform-token"]

    @classmethod
    def load(cls, environ: Mapping[str, str]) -> dict[str, Any]:
        settings = super().load(environ)
        # A test database is named by the test itself (a subclass or CASINO_TEST_DATABASE_URL);
        # never fall back to the developer's database.
        settings.pop("DATABASE_URL", None)
        url = cls.DATABASE_URL or environ.get("CASINO_TEST_DATABASE_URL")
        if url:
            settings["DATABASE_URL"] = url
        if not settings.get("SIGNING_KEY") and not settings.get("SIGNING_PUBLIC_KEY"):
            settings["SIGNING_KEY"] = _PROCESS_KEY
        _public_keys(settings)
        return settings


class ProductionConfig(BaseConfig):
    ENV_NAME = "production"
    # No default counter store: per-process counters let a guesser multiply its rate by the
    # number of workers, so serving refuses to start until one is named (RATELIMIT_STORAGE_URI
    # or REDIS_URL; memory:// only on purpose, for one process). Checked when the app is
    # built (casino.api.throttling), not here: commands without the app need no store.
    RATELIMIT_STORAGE_URI: str | None = None

    @classmethod
    def load(cls, environ: Mapping[str, str]) -> dict[str, Any]:
        settings = super().load(environ)
        if not settings.get("DATABASE_URL"):
            raise ConfigError(
                "DATABASE_URL is required in production "
                "(e.g. postgresql+psycopg://user:password@host:5432/casino)"
            )
        _public_keys(settings)
        if not settings.get("SIGNING_PUBLIC_KEY"):
            raise ConfigError(
                "the checkpoints' public key is required in production: "
                "CASINO_SIGNING_PUBLIC_KEY or CASINO_SIGNING_PUBLIC_KEY_FILE (64 hex digits or "
                "an Ed25519 PEM); the private key (CASINO_SIGNING_KEY) belongs to the sealer only"
            )
        for name in ("CASINO_OPERATOR_TOKENS", "CASINO_PLATFORM_TOKENS"):
            _refuse_weak_tokens(name, settings.get(name, getattr(cls, name)))
        _check_wallet_secrets_keys(environ)
        return settings


def _check_wallet_secrets_keys(environ: Mapping[str, str]) -> None:
    """A malformed wallet-secrets key stops the start, not the first seamless bet. The store
    reads the keys itself (casino.store.secret_box), as every command does."""
    from casino.store.secret_box import SecretBox, SecretBoxError

    try:
        SecretBox.from_environ(environ)
    except SecretBoxError as error:
        raise ConfigError(str(error)) from None


def _refuse_weak_tokens(name: str, tokens: list[str]) -> None:
    from casino.service.auth import split_scope
    from config.token_policy import weakness

    for position, entry in enumerate(tokens, start=1):
        # Operator tokens may be SCOPE:TOKEN; platform tokens are plain.
        secret = split_scope(entry)[1] if name == "CASINO_OPERATOR_TOKENS" else entry
        reason = weakness(secret)
        if reason is not None:
            # Which one and why, never the token itself (this ends up in logs).
            raise ConfigError(
                f"{name}: token {position} is guessable ({reason}); use e.g. "
                '`python -c "import secrets; print(secrets.token_urlsafe(32))"` '
                "(drawn again in the rare case it spells a placeholder word)"
            )


CONFIGS: dict[str, type[BaseConfig]] = {
    "development": DevelopmentConfig,
    "testing": TestingConfig,
    "production": ProductionConfig,
}


def settings(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Every setting of the configuration ``CASINO_ENV`` names, as the app would see them
    (for commands that run without the app)."""
    env = os.environ if environ is None else environ
    cls = resolve(None, env)
    values = {name: getattr(cls, name) for name in dir(cls) if name.isupper()}
    load = getattr(cls, "load", None)
    if callable(load):
        values.update(load(env))
    return values


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
