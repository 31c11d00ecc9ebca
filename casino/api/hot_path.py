"""The two hot requests, a bet and a decision, with less of Flask's per-request work.

A WSGI layer in front of Flask's own ``wsgi_app`` (issue 24, item 3). It takes only ``POST
/api/v1/rounds`` and ``POST /api/v1/rounds/<id>/decision`` and runs them through the same
request context, the same before-request functions, the same view (authentication, the
claim, idempotency, the schema's validation and dump) and the same error handlers as Flask
does. What it does not do is Flask's generic after-request pass over a werkzeug
``Response``: a success (200 or 201 JSON, nothing but the view's own headers) is finished
here, in one pass that writes the same headers the after-request functions would (the
request id, the security headers, ``Content-Language``) into a plain list, records the
same metrics and the same log line (``observability.record``), and hands the body to the
server directly. Everything else — a problem document, a replayed 503, a response a view
or hook added headers to, an app with other after-request functions (CORS configured, a
test's hook), a session that is not the null one — is finished by Flask itself
(``finalize_request``), so any answer that is not the plain success is Flask's own, byte
for byte; ``tests/e2e/test_hot_path_contract.py`` sends one matrix of requests through both
and compares them.

``HOT_PATH`` (config, ``CASINO_HOT_PATH=0`` turns it off) is read per request.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask, g, request_finished, request_started
from flask.wrappers import Response

from casino.api import language, observability, security_headers, throttling

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

#: The bet and the decision (any id: the router decides what it is, as for Flask).
_PATHS = re.compile(r"/api/v1/rounds(?:/[^/]+/decision)?")
#: The after-request functions whose work ``_finish`` does, in the order Flask runs them
#: (last registered first). Any other set: Flask finishes the response.
_FINISHERS = (
    observability._finish,
    throttling._count_failed_authentication,
    security_headers._add_headers,
    language._say_the_language,
)
#: The headers a view's plain JSON success may carry for ``_finish`` to take it.
_VIEW_HEADERS = frozenset({"Content-Type", "Content-Length", "Idempotent-Replayed"})
_HOT_STATUSES = frozenset({200, 201})


class HotPath:
    """WSGI middleware over ``app.wsgi_app``: the bet and the decision, finished in one pass."""

    def __init__(self, app: Flask, wsgi_app: WSGIApp) -> None:
        self.app = app
        self.wsgi_app = wsgi_app

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        if (
            environ.get("REQUEST_METHOD") != "POST"
            or not _PATHS.fullmatch(environ.get("PATH_INFO", ""))
            or not self.app.config.get("HOT_PATH", True)
        ):
            return self.wsgi_app(environ, start_response)
        return self._serve(environ, start_response)

    def _serve(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        # Flask.wsgi_app, with full_dispatch_request replaced by _dispatch.
        app = self.app
        ctx = app.request_context(environ)
        error: BaseException | None = None
        try:
            try:
                ctx.push()
                answer = self._dispatch(ctx)
            except Exception as e:
                error = e
                answer = app.handle_exception(e)
            except:
                error = sys.exc_info()[1]
                raise
            if isinstance(answer, tuple):
                status, headers, body = answer
                start_response(status, headers)
                return [body]
            return answer(environ, start_response)
        finally:
            if error is not None and app.should_ignore_error(error):
                error = None
            ctx.pop(error)

    def _dispatch(self, ctx: Any) -> Response | tuple[str, list[tuple[str, str]], bytes]:
        # Flask.full_dispatch_request, with the success finished by _finish.
        app = self.app
        app._got_first_request = True
        try:
            request_started.send(app, _async_wrapper=app.ensure_sync)
            rv = app.preprocess_request()
            if rv is None:
                rv = app.dispatch_request()
        except Exception as e:
            rv = app.handle_user_exception(e)
        response = app.make_response(rv)
        if self._plain_success(ctx, response):
            answer = self._finish(ctx, response)
            request_finished.send(app, _async_wrapper=app.ensure_sync, response=response)
            return answer
        return app.finalize_request(response)

    def _plain_success(self, ctx: Any, response: Response) -> bool:
        app = self.app
        hooks = app.after_request_funcs
        return (
            response.status_code in _HOT_STATUSES
            and response.mimetype == "application/json"
            and not response.direct_passthrough
            and response.is_sequence
            and all(name in _VIEW_HEADERS for name, _ in response.headers.items())
            and not ctx._after_request_functions
            and len(hooks) == 1
            and tuple(reversed(hooks.get(None, ()))) == _FINISHERS
            # No secret key: Flask's session is a null session that saving writes nothing
            # for (the API keeps no cookie session), so skipping save_session changes nothing.
            and app.secret_key is None
        )

    def _finish(self, ctx: Any, response: Response) -> tuple[str, list[tuple[str, str]], bytes]:
        """What the after-request functions and ``Response.__call__`` would make of a plain
        success, in the same order: the view's headers, the request id (observability), the
        security headers, the language (throttling counts 401s only)."""
        body = response.get_data()
        headers = response.headers.to_wsgi_list()
        request = ctx.request
        scope = g._get_current_object()
        headers.append(
            (observability.REQUEST_ID_HEADER, observability.record(scope, request, response))
        )
        if request.is_secure:
            headers.extend(security_headers.PLAIN_SECURE_RESPONSE)
        else:
            headers.extend(security_headers.PLAIN_RESPONSE)
        used = scope.get(language.USED)
        if used is not None:
            headers.append(("Content-Language", str(used)))
            headers.append(("Vary", "Accept-Language"))
        return response.status, headers, body
