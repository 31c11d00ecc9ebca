"""Cross-origin access to the API for browser clients on the origins of an allow-list.

``CASINO_CORS_ORIGINS`` (app config, from the environment) lists exact origins; none by
default, and then nothing here is installed. Each is matched whole, character for character
(case aside), never as a pattern. flask-cors answers the preflights: an allowed
origin gets the methods and request headers the API uses and sees the response headers a
client needs (a replayed payment, when to retry, where a created game lives); any other
origin gets no CORS header at all, so the browser keeps the response from its page.
No credentials mode: the API takes bearer tokens, never cookies.
"""

from __future__ import annotations

import re

from flask import Flask, Response, request
from flask_cors import CORS

API_PATHS = r"/api/.*"
METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
ALLOWED_HEADERS = ["Authorization", "Content-Type", "Idempotency-Key"]
EXPOSED_HEADERS = ["Idempotent-Replayed", "Retry-After", "Location"]
PREFLIGHT_MAX_AGE = 600


def exact(origin: str) -> re.Pattern[str]:
    """The one origin, and nothing else. flask-cors reads an origin holding a regex
    character (``[`` of an IPv6 address, ``.`` ...) as a pattern matched at the start only:
    ``http://[2001:db8::1]`` would allow ``http://d.attacker.example``, and
    ``http://[::1]:8080`` would not match itself. A compiled pattern is used as it is."""
    return re.compile(re.escape(origin) + r"\Z", re.IGNORECASE)


def init_app(app: Flask) -> None:
    origins = list(app.config.get("CASINO_CORS_ORIGINS") or [])
    if not origins:
        return
    CORS(
        app,
        resources={API_PATHS: {}},
        origins=[exact(origin) for origin in origins],
        methods=METHODS,
        allow_headers=ALLOWED_HEADERS,
        expose_headers=EXPOSED_HEADERS,
        max_age=PREFLIGHT_MAX_AGE,
        supports_credentials=False,
        send_wildcard=False,
    )
    app.after_request(_vary_on_origin)


def _vary_on_origin(response: Response) -> Response:
    # The headers depend on Origin even with one allowed origin (flask-cors adds Vary only
    # for several): a cache must not hand one origin's answer to another.
    if request.path.startswith("/api/"):
        response.vary.add("Origin")
    return response
