"""``Idempotency-Key`` on money-moving POSTs: one unit of work per request.

``begin`` (replay a stored response, or refuse a reused key / a request still running) ->
the use case -> dump the response -> ``complete`` (store it) -> commit. The money movement
and its idempotency record commit together or not at all, so a retry after any failure either
replays the first success or runs the request for the first time.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

import marshmallow as ma
from flask import current_app, g, request
from flask.wrappers import Response

from casino.api.auth import current_principal
from casino.api.database import request_uow
from casino.api.errors import PROBLEM_MIMETYPE, ApiError, handle_service_error
from casino.api.idempotency_key import HEADER, KEY_PATTERN, well_formed
from casino.api.json_body import request_json
from casino.api.openapi import IDEMPOTENT_REPLAYED, add_doc, error_responses
from casino.service import errors as service_errors
from casino.service import idempotency as service_idempotency
from casino.service.views import StoredResponse
from casino.store.errors import IntegrityError
from casino.store.uow import UnitOfWork

F = TypeVar("F", bound=Callable[..., Any])

REPLAYED_HEADER = "Idempotent-Replayed"

_HEADER_DOC = {
    "in": "header",
    "name": HEADER,
    "required": True,
    "description": (
        "Unique per operation (e.g. a UUID). A retry with the same key and body returns the "
        "first response with Idempotent-Replayed: true; another body -> 422 "
        "idempotency_key_reused; while the first still runs -> 409 request_in_progress."
    ),
    "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": KEY_PATTERN},
}


def required(func: F) -> F:
    """Refuse the request (400) before validating its body when the key is missing."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        key = request.headers.get(HEADER)
        if key is None or not key.strip():
            raise ApiError(
                400,
                "idempotency_key_required",
                f"This request moves money: send an {HEADER} header (e.g. a fresh UUID).",
            )
        if not well_formed(key):
            raise ApiError(
                400,
                "idempotency_key_invalid",
                f"{HEADER} must be 1 to 255 visible ASCII characters.",
            )
        g.idempotency_key = key.strip()
        return func(*args, **kwargs)

    # Applied over @blp.response: the success statuses it documented get the replay header.
    replayed: dict[int | str, Any] = {
        # int keys, as flask-smorest's own: "201" would be another entry, replacing it.
        status: {"headers": {REPLAYED_HEADER: IDEMPOTENT_REPLAYED}}
        for status in getattr(func, "_apidoc", {}).get("success_status_codes", [])
    }
    add_doc(
        wrapper,
        parameters=[_HEADER_DOC],
        responses={**error_responses(400, 409, 422), **replayed},
    )
    return cast(F, wrapper)


def optional(func: F) -> F:
    """As ``required``, for an operation that does not move money: a key makes a retry
    answer the first response (replayed), no key runs the request every time."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        key = request.headers.get(HEADER)
        g.idempotency_key = None
        if key is not None:
            if not well_formed(key):
                raise ApiError(
                    400,
                    "idempotency_key_invalid",
                    f"{HEADER} must be 1 to 255 visible ASCII characters.",
                )
            g.idempotency_key = key.strip()
        return func(*args, **kwargs)

    replayed: dict[int | str, Any] = {
        status: {"headers": {REPLAYED_HEADER: IDEMPOTENT_REPLAYED}}
        for status in getattr(func, "_apidoc", {}).get("success_status_codes", [])
    }
    add_doc(
        wrapper,
        parameters=[{**_HEADER_DOC, "required": False}],
        responses={**error_responses(400, 409, 422), **replayed},
    )
    return cast(F, wrapper)


_PATH_BUILDER = "casino.idempotency.path_builder"


def fingerprint() -> str:
    """What makes two requests 'the same': method, resolved path and the canonical JSON body."""
    body = request_json()
    canonical = json.dumps(
        None if body is ma.missing else body,
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    material = f"{request.method}\n{_resolved_path()}\n{canonical}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(material).hexdigest()


def _resolved_path() -> str:
    """The path rebuilt from the matched route and its converted arguments, so every spelling
    of one resource is one path (an upper-case UUID is the lower-case one). For the usual
    spelling this is the raw path itself, so fingerprints stored before stay valid."""
    if request.endpoint is None:
        return request.path
    # Bound once per app (binding builds an adapter; building a path only reads it).
    adapter = current_app.extensions.get(_PATH_BUILDER)
    if adapter is None:
        adapter = current_app.url_map.bind("localhost", script_name="/")
        current_app.extensions[_PATH_BUILDER] = adapter
    return str(adapter.build(request.endpoint, request.view_args or {}, method=request.method))


def _json(text: str, status: int, *, replayed: bool) -> Response:
    response = current_app.response_class(text, status=status, mimetype="application/json")
    if replayed:
        response.headers[REPLAYED_HEADER] = "true"
    return response


def _replay(stored: StoredResponse) -> Response:
    response = _json(current_app.json.dumps(stored.body), stored.status, replayed=True)
    if stored.status >= 400:  # a stored problem (503 wallet_unavailable) replays as one
        response.mimetype = PROBLEM_MIMETYPE
        if "retry_after" in stored.body:
            response.headers["Retry-After"] = str(stored.body["retry_after"])
    return response


def _keep_unavailable(
    uow: UnitOfWork,
    caller: str,
    key: str,
    print_: str,
    error: service_errors.WalletUnavailable,
) -> Response:
    """The operator's wallet gave no definite answer: nothing the request did stays but what
    the use case must keep (the bet of unknown outcome and its queued rollback), committed
    with the 503 under the request's key, so a retry with that key replays the 503 and a new
    request starts afresh (docs/integration.md §6)."""
    uow.rollback()
    found = service_idempotency.begin(uow, caller, key, print_)
    if found is not None:  # another request with this key finished meanwhile
        uow.rollback()
        return _replay(found)
    response = handle_service_error(error)
    error.keep(uow)
    body = json.loads(response.get_data())
    service_idempotency.complete(uow, caller, key, print_, response.status_code, body)
    uow.commit()
    return response


def respond(
    status: int,
    dump: Callable[[Any], dict[str, Any]],
    use_case: Callable[[UnitOfWork], Any],
    *,
    stored: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> Response:
    """Run ``use_case`` under the request's key; ``dump`` makes its result the body (a
    schema's ``dump`` or a function equal to it). ``stored``: what of the body is kept for
    replays, when not all of it may be (a secret shown once)."""
    caller = current_principal().subject
    key: str = g.idempotency_key
    print_ = fingerprint()
    uow = request_uow()
    try:
        found = service_idempotency.begin(uow, caller, key, print_)
        if found is not None:
            uow.rollback()
            return _replay(found)
        body = dump(use_case(uow))
        # The response's text; the record's own INSERT reuses it (a record that rides in the
        # ledger's statement is encoded with the rest of its row instead).
        text = current_app.json.dumps(body)
        if stored is None:
            service_idempotency.complete(uow, caller, key, print_, status, body, encoded=text)
        else:
            service_idempotency.complete(uow, caller, key, print_, status, stored(body))
        uow.commit()
    except service_errors.WalletUnavailable as error:
        if error.keep is None:
            raise
        return _keep_unavailable(uow, caller, key, print_, error)
    except IntegrityError:
        # Without an advisory lock (SQLite) two requests with one key can both get past
        # begin(); the loser's insert of the record fails and everything it did rolls back.
        # The winner's stored response is then the answer to this request too.
        uow.rollback()
        found = service_idempotency.begin(uow, caller, key, print_)
        uow.rollback()
        if found is None:
            raise
        return _replay(found)
    return _json(text, status, replayed=False)
