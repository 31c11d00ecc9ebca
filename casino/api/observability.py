"""Per request: a request id, the request metrics, and one JSON log line.

The request id is the client's ``X-Request-Id`` when it is sane (1-128 characters of
``A-Z a-z 0-9 . _ : / + = @ -``, not looking like a token of any kind: see ``_secret``),
else a new one (32 hex digits:
a random prefix per process and a counter); it is returned in the response's
``X-Request-Id``. The log line goes to the ``casino.requests`` logger (stderr, which
gunicorn sends to its error log) as one JSON object:

    {"ts": "2026-11-30T12:00:00.123Z", "level": "info", "msg": "request",
     "request_id": "...", "method": "POST", "route": "/api/v1/rounds", "status": 201,
     "duration_ms": 12.3, "player_id": "...", "role": "player", "code": null, "pid": 1234}

``code`` is the problem document's code of a refused request. Neither the path (ids only
through ``route``'s template) nor the query string, headers or body are logged: no token or
seed can get in, and the log scrubber (``casino.api.logging_filters``) still runs on every
record. ``CASINO_REQUEST_LOG=0`` turns the line off; the metrics stay.

The bet path is performance-critical: per request this costs two clock reads, a few dict
lookups, three counter writes and the log line (see ``bench/bench_observability.py``).
"""

from __future__ import annotations

import json
import logging
import os
import re
import sys
from collections.abc import Iterator
from itertools import count
from time import gmtime, perf_counter, strftime, time
from typing import Any

from flask import Flask, current_app, g, request
from flask.wrappers import Request, Response

from casino.api import metrics
from casino.api.errors import PROBLEM_MIMETYPE
from casino.service.auth import SECRET_PREFIXES

REQUEST_ID_HEADER = "X-Request-Id"
LOGGER_NAME = "casino.requests"
_SANE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/+=@-]{0,127}")
# A secret shorter than this inside an id would match by chance (configured tokens of
# development and tests can be short; production ones are at least 32 characters).
_MIN_SECRET = 8
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_CONVERTER = re.compile(r"<(?:[^:<>]+:)?([^<>]+)>")
_STARTED = "_casino_started"

log = logging.getLogger(LOGGER_NAME)
_routes: dict[str, tuple[str, str]] = {}


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is when a line is written (gunicorn's error log,
    or a test's capture), not to the one there was at start-up."""

    def __init__(self) -> None:
        super().__init__(sys.stderr)

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, _value: Any) -> None:
        pass

    def format(self, record: logging.LogRecord) -> str:
        # The message is the whole line; a Formatter would cost half of the logging's CPU.
        return record.getMessage()


def _install_log_handler() -> None:
    if any(isinstance(handler, _StderrHandler) for handler in log.handlers):
        return
    log.addHandler(_StderrHandler())
    log.setLevel(logging.INFO)
    log.propagate = False


def init_app(app: Flask) -> None:
    # First of the before-request functions: a refusal by any other one is timed and logged.
    app.before_request_funcs.setdefault(None, []).insert(0, _begin)
    app.after_request(_finish)
    if app.config.get("REQUEST_LOG", True):
        _install_log_handler()


def _begin() -> None:
    setattr(g, _STARTED, perf_counter())


# Made ids: a random prefix per process and a counter (no system call per request); the
# prefix is drawn again in a forked worker.
_ids: tuple[int, str, Iterator[int]] = (-1, "", count())


def _new_id() -> str:
    global _ids
    pid, prefix, counter = _ids
    if pid != os.getpid():
        pid, prefix, counter = _ids = (os.getpid(), os.urandom(8).hex(), count(1))
    return f"{prefix}{next(counter):016x}"


def _request_id(req: Request) -> str:
    given = req.headers.get(REQUEST_ID_HEADER)
    if given is not None and _SANE_ID.fullmatch(given) and not _secret(req, given):
        return given
    return _new_id()


def _secret(req: Request, value: str) -> bool:
    """Something a client should not have put there: anything shaped like one of our
    secrets (operator, player, game session, launch code, free-play game: any case), the
    request's own bearer token, or one of the configured operator tokens (with or without
    its ``scope:``)."""
    folded = value.lower()
    if any(prefix in folded for prefix in SECRET_PREFIXES):
        return True
    secrets = [req.headers.get("Authorization", "").strip().partition(" ")[2].strip()]
    secrets += current_app.config.get("CASINO_OPERATOR_TOKENS", ())
    return any(_overlap(value, secret) for secret in secrets if secret)


def _overlap(value: str, secret: str) -> bool:
    """Either holds the other (a piece shorter than ``_MIN_SECRET`` is no secret's)."""
    if value == secret:
        return True
    return (len(value) >= _MIN_SECRET and value in secret) or (
        len(secret) >= _MIN_SECRET and secret in value
    )


def route_label(rule: str) -> str:
    """``/api/v1/rounds/<uuid_str:round_id>`` -> ``/api/v1/rounds/<round_id>``."""
    return _route(rule)[0]


def _route(rule: str) -> tuple[str, str]:
    """The rule's label, and the label as a JSON string."""
    known = _routes.get(rule)
    if known is None:
        label = _CONVERTER.sub(r"<\1>", rule)
        known = _routes[rule] = (label, json.dumps(label))
    return known


_UNMATCHED = (metrics.UNMATCHED, json.dumps(metrics.UNMATCHED))
_stamp: tuple[int, str] = (-1, "")


def _timestamp(now: float) -> str:
    """ISO 8601 UTC with milliseconds; the part up to the second is formatted once a second."""
    global _stamp
    whole = int(now)
    if _stamp[0] != whole:
        _stamp = (whole, strftime("%Y-%m-%dT%H:%M:%S", gmtime(whole)))
    return f"{_stamp[1]}.{int((now - whole) * 1000):03d}Z"


def _problem_code(response: Response) -> str:
    try:
        code = json.loads(response.get_data())["code"]
    except (ValueError, KeyError, TypeError):
        return "unknown"
    return code if isinstance(code, str) else "unknown"


def _finish(response: Response) -> Response:
    ctx = g._get_current_object()  # one context lookup instead of one per access
    req = request._get_current_object()  # type: ignore[attr-defined]
    response.headers[REQUEST_ID_HEADER] = record(ctx, req, response)
    return response


def record(ctx: Any, req: Request, response: Response) -> str:
    """The request's metrics and log line; its request id. Shared by ``_finish`` and the
    hot path (casino.api.hot_path), which writes the id into its own header list."""
    started = getattr(ctx, _STARTED, None)
    duration = perf_counter() - started if started is not None else 0.0
    request_id = _request_id(req)
    ctx.request_id = request_id
    rule = req.url_rule
    route, route_json = _UNMATCHED if rule is None else _route(rule.rule)
    method = req.method if req.method in _METHODS else "OTHER"
    status = response.status_code
    metrics.requests_by(method, route, str(status)).inc()
    metrics.latency_by(method, route).observe(duration)
    code = None
    if response.headers.get("Content-Type", "").startswith(PROBLEM_MIMETYPE):
        code = _problem_code(response)
        metrics.refused_by(code).inc()
    metrics.count_round(response, ctx)
    if current_app.config.get("REQUEST_LOG", True) and log.isEnabledFor(logging.INFO):
        principal = getattr(ctx, "principal", None)
        if principal is None:
            player_id = role = "null"
        else:
            role = f'"{principal.role}"'
            player_id = "null" if principal.player_id is None else f'"{principal.player_id}"'
        # Every value is ours or checked (the id's characters, the uuid, the rule), so the
        # line is written directly; json.dumps only for the problem code.
        line = (
            f'{{"ts":"{_timestamp(time())}","level":"info","msg":"request",'
            f'"request_id":"{request_id}","method":"{method}","route":{route_json},'
            f'"status":{status},"duration_ms":{duration * 1000:.3f},'
            f'"player_id":{player_id},"role":{role},'
            f'"code":{"null" if code is None else json.dumps(code)},"pid":{os.getpid()}}}'
        )
        # makeRecord and handle: the record factory (the scrubber) still runs, without the
        # stack walk that log.info() does to find its caller.
        log.handle(log.makeRecord(LOGGER_NAME, logging.INFO, __file__, 0, line, (), None))
    return request_id
