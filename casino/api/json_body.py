"""Strict, bounded parsing of request bodies, done once per request.

The standard ``json`` module accepts NaN/Infinity, silently keeps the last of duplicate keys
and raises RecursionError (not a decode error) on deeply nested input; each of those would be
a 500 or an ambiguity on a money-moving request. Here they are all a 400 ``malformed_json``.
Lone UTF-16 surrogates, which no database column or hash accepts, are refused too, and so is
a document that is not an object (``[]``, ``"text"``, ``null``): every body is an object.
The parsed document is cached on ``flask.g`` and shared by the argument parser and the
idempotency fingerprint, so both see exactly the same value.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from flask import g, request
from flask_smorest import Blueprint
from webargs import core
from webargs.flaskparser import FlaskParser
from werkzeug.exceptions import RequestEntityTooLarge

from casino.api.errors import ApiError
from casino.api.openapi import add_doc, error_responses
from casino.api.schema_rules import body_is_required

_MAX_DEPTH = 32
_UNSET = object()


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


def _depth(value: Any, limit: int) -> int:
    """Nesting depth, iteratively so that hostile input cannot exhaust the stack."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return depth
        deepest = max(deepest, depth)
        if isinstance(node, dict):
            stack.extend((child, depth + 1) for child in node.values())
        elif isinstance(node, list):
            stack.extend((child, depth + 1) for child in node)
    return deepest


def _malformed(reason: str) -> ApiError:
    return ApiError(400, "malformed_json", f"The request body is not valid JSON: {reason}.")


def parse(raw: bytes) -> Any:
    try:
        text = raw.decode("utf-8")
        value = json.loads(text, parse_constant=_no_constants, object_pairs_hook=_unique_keys)
    except RecursionError:
        raise _malformed("nested too deeply") from None
    except (UnicodeDecodeError, ValueError) as error:
        reason = "not UTF-8" if isinstance(error, UnicodeDecodeError) else str(error)
        raise _malformed(reason.split(":")[0][:80]) from None
    if _depth(value, _MAX_DEPTH) > _MAX_DEPTH:
        raise _malformed("nested too deeply")
    # "\ud800" is valid JSON syntax but not a character: it cannot be stored, hashed into
    # an idempotency fingerprint or sent back (I-JSON, RFC 7493, forbids it too). The text
    # was strict UTF-8, so a surrogate can only come from a \u escape.
    if "\\u" in text:
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise _malformed("a string contains a lone surrogate") from None
    return value


def request_json() -> Any:
    """The parsed body of a JSON request, or ``core.missing`` when there is none."""
    cached = g.get("_casino_json", _UNSET)
    if cached is not _UNSET:
        return cached
    value: Any = core.missing
    if core.is_json(request.mimetype):
        raw = _body()
        if raw.strip():
            value = parse(raw)
            if not isinstance(value, dict):
                raise ApiError(400, "malformed_json", "The request body must be a JSON object.")
    g._casino_json = value
    return value


def _body() -> bytes:
    """The request body; 413 when it is over ``MAX_CONTENT_LENGTH``, however it was sent.

    A body without Content-Length (``Transfer-Encoding: chunked``) is not refused up front:
    werkzeug reads it up to the limit and silently stops there. One byte more on the wire
    means it was longer, and a truncated document must not be taken for the request.
    """
    raw = request.get_data(cache=True)
    limit = request.max_content_length
    streamed = request.content_length is None
    if (
        streamed
        and limit is not None
        and len(raw) >= limit
        and request.environ["wsgi.input"].read(1)
    ):
        raise RequestEntityTooLarge()
    return raw


def require_json_media_type() -> None:
    """A body on a write must be JSON (415 otherwise), and well-formed (400 otherwise)."""
    if request.method not in ("POST", "PUT", "PATCH"):
        return
    has_body = bool(request.content_length) or bool(request.headers.get("Transfer-Encoding"))
    if has_body and not core.is_json(request.mimetype):
        raise ApiError(
            415,
            "unsupported_media_type",
            "Request bodies must be JSON (Content-Type: application/json).",
        )
    request_json()


class StrictParser(FlaskParser):
    def _raw_load_json(self, req: Any) -> Any:
        return request_json()


class ApiBlueprint(Blueprint):
    """flask-smorest Blueprint whose argument parser reads the strictly parsed body."""

    ARGUMENTS_PARSER = StrictParser()

    def arguments(self, schema: Any, *, location: str = "json", **kwargs: Any) -> Any:
        """As flask-smorest's; a body also documents its 400 ``malformed_json``.

        A body is ``required`` in the spec only when an empty one is refused (a required
        field, or a rule needing one): a body-less request is read as ``{}``, so where every
        field is optional the spec must not call it invalid.
        """
        if location == "json":
            kwargs.setdefault("required", body_is_required(schema))
        decorator: Callable[[Any], Any] = super().arguments(schema, location=location, **kwargs)
        if location != "json":
            return decorator
        return lambda func: add_doc(decorator(func), responses=error_responses(400))
