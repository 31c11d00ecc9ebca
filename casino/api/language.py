"""The language of a response's human texts: negotiated from ``Accept-Language`` over the
six the catalogues have (casino/i18n), English by default.

Whatever words a text for the client (a problem's title and detail, a statement's summary, a
reality check's message) asks ``request_language()``; the answer then says which language it
used (``Content-Language``), and that it depends on the header (``Vary``)."""

from __future__ import annotations

from flask import Flask, g, has_request_context, request
from flask.wrappers import Response

from casino.i18n import DEFAULT_LANGUAGE, negotiate

#: On ``flask.g``: the language a text of the response used (read by the hot path too).
USED = _USED = "content_language"


def request_language() -> str:
    """The request's language, remembered for the response's ``Content-Language``."""
    if not has_request_context():
        return DEFAULT_LANGUAGE
    language = g.get(_USED)
    if language is None:
        language = negotiate(request.headers.get("Accept-Language"))
        setattr(g, _USED, language)
    return str(language)


def _say_the_language(response: Response) -> Response:
    language = g.get(_USED)
    if language is not None:
        response.headers["Content-Language"] = language
        response.vary.add("Accept-Language")
    return response


def init_app(app: Flask) -> None:
    app.after_request(_say_the_language)
