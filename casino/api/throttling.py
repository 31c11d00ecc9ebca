"""Per-address request counters: failed authentications everywhere, free play's own limits.

Failed authentications: each refused token (or launch code) counts against the client
address; past ``AUTH_FAILURE_LIMIT`` the address is refused with 429 before its token costs
a database lookup (``refuse_blocked_client``, called by authentication: the one counter read
per request). A configured operator token is checked without the database and always
served. A stored token that authenticated recently still goes through a blocked address, so
a player already playing behind the guesser's address (a shared NAT, a proxy) is not locked
out: the worker that served it remembers it for ``KNOWN_GOOD_SECONDS``, and once the
address has failures in its window every worker does (its digest is noted in the counter
store, a write paid only by addresses with failures). Any other token from a blocked
address waits until the window ends. The address is the peer's, or the one a trusted proxy
put in X-Forwarded-For when ``CASINO_PROXY_FIX_X_FOR`` says how many proxies there are.

Built on ``limits`` (fixed windows, counters in ``RATELIMIT_STORAGE_URI``: ``memory://`` per
process by default, ``redis://...`` to share them across workers and instances; production
names one or refuses to start, and takes ``memory://`` only when it is set explicitly). The check
is one counter lookup per request; a framework-wide limiter evaluated every limit, scope and
exemption on every request, which cost more than a bet's own validation.

A counter store that is down must not take the API down: counting falls back to memory
(per process) until the store answers again.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import time
from collections import OrderedDict
from functools import lru_cache

from flask import Flask, Response, current_app, g, request
from limits import RateLimitItem, RateLimitItemPerHour, parse_many
from limits.storage import MemoryStorage, storage_from_string
from limits.strategies import FixedWindowRateLimiter

from casino.api.errors import ApiError, problem
from config import ConfigError

log = logging.getLogger(__name__)
EXTENSION_KEY = "casino.throttle"
AUTH_SCOPE = "auth-failures"

# Endpoints that never count as, nor are blocked by, failed authentications.
UNTHROTTLED = frozenset(
    {
        "health.Health",
        "health.Ready",
        "api-docs.openapi_json",
        "docs.page",
        "docs.asset",
        "docs.init_script",
    }
)


@lru_cache(maxsize=64)
def parse(text: str) -> tuple[RateLimitItem, ...]:
    """``"20 per minute; 100 per hour"`` -> limit items (flask-limiter's syntax)."""
    return tuple(parse_many(text)) if text else ()


class Throttle:
    def __init__(self, storage_uri: str, enabled: bool = True) -> None:
        self.enabled = enabled
        self._primary = FixedWindowRateLimiter(storage_from_string(storage_uri))
        self._fallback = FixedWindowRateLimiter(MemoryStorage())

    def _call(self, method: str, *args: object) -> object:
        try:
            return getattr(self._primary, method)(*args)
        except Exception:  # the store is unreachable: count in this process meanwhile
            log.warning("rate limit store unavailable; counting in memory")
            return getattr(self._fallback, method)(*args)

    def hit(self, item: RateLimitItem, scope: str, key: str) -> bool:
        """Count one; False when that goes over the limit."""
        return bool(self._call("hit", item, scope, key))

    def allows(self, item: RateLimitItem, scope: str, key: str) -> bool:
        """Whether one more would stay within the limit, counting nothing."""
        return bool(self._call("test", item, scope, key))

    def remaining(self, item: RateLimitItem, scope: str, key: str) -> int:
        """How many more ``key`` may have in the current window (0: over the limit): one
        read of the store (the window's statistics would cost a second, for its expiry)."""
        counter = item.key_for(scope, key)
        try:
            used = self._primary.storage.get(counter)
        except Exception:  # the store is unreachable: count in this process meanwhile
            log.warning("rate limit store unavailable; counting in memory")
            used = self._fallback.storage.get(counter)
        return max(0, item.amount - int(used))

    def retry_after(self, item: RateLimitItem, scope: str, key: str) -> int:
        stats = self._call("get_window_stats", item, scope, key)
        reset = float(getattr(stats, "reset_time", time.time() + item.get_expiry()))
        return max(1, math.ceil(reset - time.time()))

    def refuse_over_limit(self, scope: str, limits: str, key: str, detail: str) -> None:
        """Count a request against ``limits``; over one -> 429 ``rate_limited``."""
        for item in parse(limits):
            if not self.hit(item, scope, key):
                raise rate_limited(detail, self.retry_after(item, scope, key))


def rate_limited(detail: str, retry_after: int) -> ApiError:
    return ApiError(429, "rate_limited", detail, headers={"Retry-After": str(retry_after)})


def client_address() -> str:
    # ProxyFix, when configured, has already put the client's address here.
    return request.remote_addr or "127.0.0.1"


def current_throttle() -> Throttle | None:
    throttle = current_app.extensions.get(EXTENSION_KEY)
    return throttle if isinstance(throttle, Throttle) and throttle.enabled else None


#: How long a token seen valid by this process passes a blocked address's check.
KNOWN_GOOD_SECONDS = 3600.0
#: Tokens remembered per process (the oldest are forgotten first).
KNOWN_GOOD_MAX = 10_000


class _KnownGood:
    """Digests of tokens that authenticated in this process recently (never the tokens)."""

    def __init__(self) -> None:
        self._seen: OrderedDict[bytes, float] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def _digest(token: str) -> bytes:
        return hashlib.sha256(token.encode("utf-8")).digest()

    def add(self, token: str) -> None:
        digest, now = self._digest(token), time.monotonic()
        with self._lock:
            self._seen[digest] = now
            self._seen.move_to_end(digest)
            while len(self._seen) > KNOWN_GOOD_MAX:
                self._seen.popitem(last=False)

    def __contains__(self, token: str) -> bool:
        seen = self._seen.get(self._digest(token))
        return seen is not None and time.monotonic() - seen < KNOWN_GOOD_SECONDS


_known_good = _KnownGood()


#: Tokens seen valid from an address with failures, shared by the workers (counter store).
KNOWN_SCOPE = "auth-known"
_KNOWN = RateLimitItemPerHour(1_000_000_000)
#: Set on ``g`` when the caller's address has failures in its window.
_SUSPECT = "_casino_address_has_failures"


def _known_key(address: str, token: str) -> str:
    return f"{address}/{hashlib.sha256(token.encode('utf-8')).hexdigest()[:32]}"


def remember_valid(token: str) -> None:
    """``token`` authenticated: a block of its address does not refuse it later (in this
    process; in every worker when its address has failures already)."""
    throttle = current_throttle()
    if throttle is None:
        return
    _known_good.add(token)
    if g.get(_SUSPECT):
        throttle.hit(_KNOWN, KNOWN_SCOPE, _known_key(client_address(), token))


def _known(throttle: Throttle, address: str, token: str | None) -> bool:
    if token is None:
        return False
    if token in _known_good:
        return True
    key = _known_key(address, token)
    return throttle.remaining(_KNOWN, KNOWN_SCOPE, key) < _KNOWN.amount


def refuse_blocked_client(token: str | None) -> None:
    """429 ``rate_limited`` when the client's address is over its failed authentication
    limit, before any database work; ``token``, if recently valid, is let through."""
    throttle = current_throttle()
    if throttle is None:
        return
    address = client_address()
    for item in parse(current_app.config["AUTH_FAILURE_LIMIT"]):
        remaining = throttle.remaining(item, AUTH_SCOPE, address)
        if remaining < item.amount:
            setattr(g, _SUSPECT, True)
        if remaining <= 0:
            if _known(throttle, address, token):
                return
            raise rate_limited(
                "Too many failed authentication attempts; retry later.",
                throttle.retry_after(item, AUTH_SCOPE, address),
            )


#: On ``flask.g``: the request was refused for bringing no credential at all (set by
#: casino.api.auth), which ``_count_failed_authentication`` does not count.
NO_CREDENTIAL = "_casino_no_credential"


def no_credential() -> None:
    setattr(g, NO_CREDENTIAL, True)


def _count_failed_authentication(response: Response) -> Response:
    """Count a refused token against the address; past the limit the refusal becomes 429.

    Only failures are counted and only failures are refused: a valid token is served
    whatever others sent from the same address (behind a proxy, or on a shared network, one
    guesser must not lock everyone out). Guessing a 256-bit token is hopeless anyway; the
    limit keeps a guesser's rate, and the database lookups it costs, down.
    """
    if response.status_code != 401 or request.endpoint in UNTHROTTLED:
        return response
    if g.get(NO_CREDENTIAL):
        # No credential, no guess: it cost no lookup, and a client that forgot its header
        # (a misconfigured probe behind the players' NAT) must not lock the address out.
        return response
    throttle = current_throttle()
    if throttle is None:
        return response
    address = client_address()
    for item in parse(current_app.config["AUTH_FAILURE_LIMIT"]):
        if not throttle.hit(item, AUTH_SCOPE, address):
            error = rate_limited(
                "Too many failed authentication attempts; retry later.",
                throttle.retry_after(item, AUTH_SCOPE, address),
            )
            return problem(429, "rate_limited", error.detail, headers=error.headers)
    return response


def init_app(app: Flask) -> None:
    uri = app.config.get("RATELIMIT_STORAGE_URI")
    production = app.config.get("ENV_NAME") == "production"
    if not uri:
        if production:
            raise ConfigError(
                "production needs a counter store shared by every worker for failed "
                "authentications: set RATELIMIT_STORAGE_URI (e.g. redis://host:6379/0) or "
                "REDIS_URL; a single-process deployment may set "
                "RATELIMIT_STORAGE_URI=memory:// (counters per process)"
            )
        uri = "memory://"
    app.extensions[EXTENSION_KEY] = Throttle(uri, bool(app.config.get("RATELIMIT_ENABLED", True)))
    if production and uri_is_per_process(uri):
        # Asked for explicitly (see above): say what it means, once per worker.
        log.warning(
            "rate limit counters are per worker process (RATELIMIT_STORAGE_URI=%s): with "
            "several workers or instances a guesser gets the limit once per process",
            uri,
        )
    app.after_request(_count_failed_authentication)


def uri_is_per_process(uri: str) -> bool:
    return uri.strip().lower().startswith("memory://")
