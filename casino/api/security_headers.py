"""Response headers every answer carries: no caching of tokens or money, no sniffing, no framing.

A JSON API answers with tokens (players, games) and money (balances, rounds), so nothing may
be kept by a browser or a shared cache: ``Cache-Control: no-store`` unless a view chose its
own caching (the docs' static assets). The rest follows the OWASP REST guidance: the
declared content type is final (``nosniff``), no page may frame a response, no referrer
leaves, and a response is no document to run scripts in (``default-src 'none'``) unless a
view set its own policy (the docs page). HSTS is sent on HTTPS requests only; the reverse
proxy that terminates TLS is the place to configure it (docs/deployment.md).
"""

from __future__ import annotations

from flask import Flask, Response, request

HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
}
HSTS = "max-age=31536000; includeSubDomains"


def _add_headers(response: Response) -> Response:
    headers = response.headers
    for name, value in HEADERS.items():
        headers.setdefault(name, value)
    if "Cache-Control" not in headers:
        headers["Cache-Control"] = "no-store"
    if request.is_secure:
        headers.setdefault("Strict-Transport-Security", HSTS)
    return response


#: What ``_add_headers`` adds, in its order, to a response that set none of these itself
#: (over plain HTTP, then over HTTPS): the hot path (casino.api.hot_path) appends them as they are.
PLAIN_RESPONSE = (*HEADERS.items(), ("Cache-Control", "no-store"))
PLAIN_SECURE_RESPONSE = (*PLAIN_RESPONSE, ("Strict-Transport-Security", HSTS))
NAMES = frozenset(name for name, _ in PLAIN_SECURE_RESPONSE)


def init_app(app: Flask) -> None:
    app.after_request(_add_headers)
