"""The flask-smorest ``Api`` with problem+json error responses and the bearer security scheme.

The spec is OpenAPI 3.0.3, which every client generator reads fully (3.1 support is still
uneven among them). Its quirks are handled here: a nullable nested object is
``allOf: [{$ref}]`` + ``nullable: true`` (apispec writes an ``anyOf`` with an untyped object
that generators turn into a plain dict), response headers are components, and every
operation's roles and operator scopes are machine-readable (``x-roles``, ``x-scopes``).
"""

from __future__ import annotations

import http
from collections.abc import Callable, Iterable
from copy import deepcopy
from typing import Any, TypeVar

import marshmallow as ma
from apispec import BasePlugin
from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.common import resolve_schema_instance
from apispec.ext.marshmallow.openapi import OpenAPIConverter
from flask import Flask
from flask_smorest import Api
from flask_smorest.utils import deepupdate, prepare_response

from casino.api.errors import PROBLEM_CODES, PROBLEM_MIMETYPE
from casino.api.fields import Uuid, UUIDString
from casino.api.links import LinksPlugin
from casino.api.schema_rules import merge_json_schema

F = TypeVar("F", bound=Callable[..., Any])

SECURITY_SCHEME = "bearerAuth"
#: Operation extension listing the roles whose tokens it accepts ("operator", "player").
ROLES_EXTENSION = "x-roles"
#: Operation extension listing the operator scopes whose tokens it accepts ("admin",
#: "support", "auditor"; empty when operators may not call it).
SCOPES_EXTENSION = "x-scopes"
#: Operation extension listing the problem ``code``s the operation itself can answer.
PROBLEM_CODES_EXTENSION = "x-problem-codes"
#: Codes any operation may answer, named once in the introduction rather than on each.
GENERIC_PROBLEM_CODES = (
    "unauthenticated",
    "session_expired",
    "forbidden",
    "operator_inactive",
    "insufficient_scope",
    "rate_limited",
    "service_unavailable",
    "malformed_json",
    "payload_too_large",
    "unsupported_media_type",
    "request_timeout",
)

INTRODUCTION = """\
Casino War with real money, and free-play War variants. Everything is JSON.

**Roles.** Send `Authorization: Bearer <token>`. *Operators* (tokens configured on the server
or made by `casino create-operator-token`) create players and tables and move money;
*players* (the token returned once by `createPlayer`) bet and see only their own resources:
another player's ids answer 404, exactly like unknown ones. One deployment serves several
operators, each seeing only its own players, tables, rounds, ledger and reports: another
operator's ids answer 404 too. The *platform* (tokens of `CASINO_PLATFORM_TOKENS` or
`casino create-operator-token --platform`) manages the operators themselves
(`/operators`) and nothing else. Each operation lists the roles that may call it in
`x-roles`; a valid token of another role gets 403, and any token of an operator the
platform deactivated gets 403 `operator_inactive`. Operations without `security` (health,
readiness, free play, the launch code exchange) need no token.

**Operator scopes.** An operator token has a scope: `admin` (everything operators may do),
`support` (read players, rounds, game sessions and protection; set protection, suspend,
close, revoke game sessions; no money) or `auditor` (read the ledger, its export and
checkpoints, reports and rounds; nothing else). Each operation lists the scopes it takes in
`x-scopes` (and says so in its description); a token of another scope gets 403
`insufficient_scope`.

**Money** is integer minor units (cents for EUR): amounts in requests are 1 to 10^12 (a tie
bet may be 0), never a float, a string or a boolean. Currencies are ISO 4217 codes.

**Idempotency.** Every operation that moves money (deposits, withdrawals, bets, decisions)
needs an `Idempotency-Key` header naming one operation (e.g. a fresh UUID). Retrying with the
same key and body returns the first answer again with `Idempotent-Replayed: true`: money
never moves twice. Another body with the same key is 422 `idempotency_key_reused`; a retry
while the first attempt still runs is 409 `request_in_progress`. Only successes are stored,
so a refused request changed nothing and may be sent again. When you do not know whether a
request happened (timeout, lost connection, 503), send it again with the same key.

**Errors** are RFC 9457 `application/problem+json` documents with a stable `code` (the enum
of `Problem.code`): 422 `validation_failed` carries per-field `errors`; 409
`round_in_progress` carries the `round_id` awaiting a decision; 400 `malformed_json` is a
body that is not a JSON object (or not valid JSON); 413 a body over 1 MiB; 415 a body that is
not `application/json`.

**Languages.** Texts for people follow `Accept-Language` (q-values honoured) among English
(`en`, the default), Portuguese (`pt`), Dutch (`nl`), Catalan (`ca`), Italian (`it`) and Greek
(`el`): a problem's `title` and `detail`, a statement's `title` and `summary`, a reality
check's `message`. Such an answer names its language in `Content-Language`. In English a
problem's `detail` is the service's own (figures in minor units, for integrators); in the
others it is a sentence for the player, amounts written the language's way. Codes, field
names and enum values never change with the language.

**Problem codes per operation.** An operation's `x-problem-codes` (repeated at the end of
its description) lists the codes that operation itself answers: validation, its refusals and
its idempotency codes. Besides those, any operation may answer the generic ones:
`unauthenticated` and `session_expired` (401), `forbidden` (403, a token of the wrong role),
`operator_inactive` (403, a token of a deactivated operator),
`insufficient_scope` (403, an operator token of another scope),
`rate_limited` (429), `service_unavailable` (503), `malformed_json` (400),
`payload_too_large` (413), `unsupported_media_type` (415) and `request_timeout` (408, a body
sent too slowly).

**Pagination.** Lists take `limit` (1 to 200, default 50) and answer `items` plus
`next_cursor`; pass it back as `cursor` for the next page, until it is null. A cursor is
opaque: one the server did not issue is 422 `invalid_cursor`.

**Player protection.** Limits (deposit, loss, wager per calendar day, week and month in
UTC; session and reality-check minutes) apply at once when lowered and 24 hours later when
raised or removed. A round or deposit that would exceed one is 409 `limit_exceeded` with
`limit`, `period`, `limit_amount`, `used`, `remaining` and `resets_at`. An excluded,
suspended or closed account starts no round and takes no deposit (403 `self_excluded`,
`cooling_off`, `account_suspended`, `account_closed`); a session past its limit is 403
`session_time_limit`. Withdrawals, recall, statements and finishing a round awaiting a
decision by surrendering stay allowed; going to war, a new wager, is refused like a round
(except at a table without surrender). A reality check that is due is in `reality_check` of
every bet, decision and (the player's) recall answer until acknowledged. A game session's
token may lower limits but not raise or remove one (403 `forbidden`), and bets only at the
table it was launched for (403 `session_table_mismatch`).

**Game sessions.** An operator launches the game client for a player
(`createGameSession`): its `launch_url` carries a one-time launch code (valid 120 s), never a
token; the client exchanges it once (`exchangeLaunchCode`, no token needed) for the
session's token. Sessions are listed and revoked per player, one by one, or by their holder
(`DELETE /sessions/current`).

**Rate limits.** Too many failed authentications (or launch codes) from one address, and free
play beyond its per-address limits, answer 429 `rate_limited` with `Retry-After` (seconds);
an address over its failed authentication limit is refused before its token is looked up. 503
`service_unavailable` (database unavailable) also carries `Retry-After`.
"""

# Response headers, declared once as components.
RETRY_AFTER = "RetryAfter"
WWW_AUTHENTICATE = "WWWAuthenticate"
IDEMPOTENT_REPLAYED = "IdempotentReplayed"
LOCATION = "Location"
HEADERS: dict[str, dict[str, Any]] = {
    RETRY_AFTER: {
        "description": "Seconds to wait before retrying",
        "required": True,
        "schema": {"type": "integer", "minimum": 0},
    },
    WWW_AUTHENTICATE: {
        "description": "The authentication scheme to use",
        "required": True,
        "schema": {"type": "string", "example": "Bearer"},
    },
    IDEMPOTENT_REPLAYED: {
        "description": "Present (true) when this is the stored answer to an earlier request "
        "with the same Idempotency-Key: nothing was done again",
        "schema": {"type": "string", "enum": ["true"]},
    },
    LOCATION: {
        "description": "The created resource",
        "required": True,
        "schema": {"type": "string", "format": "uri-reference"},
    },
}
#: What a seamless operator's wallet may answer a bet or raise (docs/integration.md §9).
#: (``session_expired``, the answer to an expired operator session, is a generic code.)
SEAMLESS_WALLET_CODES = ("player_blocked", "wallet_error", "wallet_unavailable")
# Headers of the shared error responses, by status.
_ERROR_HEADERS: dict[int, dict[str, str]] = {
    401: {"WWW-Authenticate": WWW_AUTHENTICATE},
    429: {"Retry-After": RETRY_AFTER},
    503: {"Retry-After": RETRY_AFTER},
}


class ProblemSchema(ma.Schema):
    """RFC 9457 problem details (documentation only; errors.problem() builds the body)."""

    class Meta:
        unknown = ma.INCLUDE

    type = ma.fields.String(
        required=True, metadata={"description": "URI identifying the problem type"}
    )
    title = ma.fields.String(
        required=True, metadata={"description": "Short summary of the HTTP status"}
    )
    status = ma.fields.Integer(required=True)
    detail = ma.fields.String(
        required=True, metadata={"description": "Explanation for this occurrence"}
    )
    code = ma.fields.String(
        required=True,
        validate=ma.validate.OneOf(PROBLEM_CODES),
        metadata={"description": "Stable machine-readable error code"},
    )
    errors = ma.fields.Dict(
        keys=ma.fields.String(),
        values=ma.fields.Raw(
            metadata={
                "anyOf": [
                    {"type": "array", "items": {"type": "string"}},
                    {"type": "object", "description": "Messages of a nested object's fields"},
                ]
            }
        ),
        metadata={
            "description": "422 validation_failed: messages per field (_schema: the body "
            "as a whole); a nested object's are nested the same way"
        },
    )
    round_id = Uuid(
        allow_none=True,
        metadata={"description": "409 round_in_progress: the round awaiting a decision"},
    )
    wallet_status = ma.fields.String(
        metadata={"description": "502 wallet_error: what the operator's wallet answered"}
    )
    retry_after = ma.fields.Integer(
        metadata={"description": "503 wallet_unavailable: seconds to wait (as Retry-After)"}
    )
    seat = ma.fields.Integer(metadata={"description": "409 illegal_move: the seat that moved"})
    legal = ma.fields.List(
        ma.fields.Dict(),
        metadata={"description": "409 illegal_move, game_finished: the moves allowed now"},
    )
    pending = ma.fields.List(
        ma.fields.Dict(), metadata={"description": "409 illegal_move: the choices awaited"}
    )
    # Player protection.
    player_id = Uuid(
        allow_none=True,
        metadata={"description": "409 duplicate_external_ref: the existing player"},
    )
    limit = ma.fields.String(metadata={"description": "409 limit_exceeded: deposit, loss or wager"})
    period = ma.fields.String(metadata={"description": "409 limit_exceeded: day, week or month"})
    currency = ma.fields.String(metadata={"description": "409 limit_exceeded"})
    limit_amount = ma.fields.Integer(metadata={"description": "409 limit_exceeded: the limit"})
    used = ma.fields.Integer(
        metadata={"description": "409 limit_exceeded: used this period (a net loss: < 0 ahead)"}
    )
    remaining = ma.fields.Integer(metadata={"description": "409 limit_exceeded"})
    resets_at = ma.fields.DateTime(
        metadata={
            "description": "409 limit_exceeded: when the period restarts; 403 "
            "session_time_limit: when play may start again"
        }
    )
    ends_at = ma.fields.DateTime(
        metadata={"description": "403 self_excluded, cooling_off; 409 exclusion_in_force: its end"}
    )
    kind = ma.fields.String(metadata={"description": "409 exclusion_in_force: its kind"})
    session_started_at = ma.fields.DateTime(metadata={"description": "403 session_time_limit"})
    reference = ma.fields.String(metadata={"description": "409 duplicate_reference"})
    transaction_id = ma.fields.Integer(
        allow_none=True,
        metadata={"description": "409 duplicate_reference: the transaction that used it"},
    )


#: What a money-moving operation answers about its ``Idempotency-Key``.
IDEMPOTENCY_CODES = (
    "idempotency_key_required",
    "idempotency_key_invalid",
    "idempotency_key_reused",
    "request_in_progress",
)
#: What an account that may not play or pay in answers (403).
ACCOUNT_BLOCKED_CODES = ("account_suspended", "account_closed", "self_excluded", "cooling_off")


def problem_codes(*codes: str) -> dict[str, list[str]]:
    """``x-problem-codes`` for ``Blueprint.doc(**problem_codes(...))``: the codes this
    operation answers (besides the generic ones). Each must be a declared code."""
    unknown = [code for code in codes if code not in PROBLEM_CODES]
    if unknown or len(set(codes)) != len(codes):
        raise ValueError(f"not declared problem codes (or repeated): {unknown or codes}")
    return {PROBLEM_CODES_EXTENSION: list(codes)}


class ScopesPlugin(BasePlugin):
    """Says an operation's ``x-scopes`` in its description (before its problem codes)."""

    def operation_helper(
        self, path: str | None = None, operations: dict[str, Any] | None = None, **_: Any
    ) -> None:
        for operation in (operations or {}).values():
            scopes = operation.get(SCOPES_EXTENSION) if isinstance(operation, dict) else None
            if not scopes:
                continue
            sentence = "Operator token scopes: " + ", ".join(f"`{s}`" for s in scopes) + "."
            text = operation.get("description", "").rstrip()
            operation["description"] = f"{text}\n\n{sentence}" if text else sentence


class ProblemCodesPlugin(BasePlugin):
    """Repeats an operation's ``x-problem-codes`` in its description, where people read."""

    def operation_helper(
        self, path: str | None = None, operations: dict[str, Any] | None = None, **_: Any
    ) -> None:
        for operation in (operations or {}).values():
            codes = operation.get(PROBLEM_CODES_EXTENSION) if isinstance(operation, dict) else None
            if not codes:
                continue
            sentence = "Problem codes: " + ", ".join(f"`{code}`" for code in codes) + "."
            text = operation.get("description", "").rstrip()
            operation["description"] = f"{text}\n\n{sentence}" if text else sentence


def closed_map(self: Any, field: ma.fields.Field, ret: dict[str, Any], **_: Any) -> dict[str, Any]:
    """A map whose keys are listed as ``properties`` in its metadata (a round's hand numbers)
    is closed: no other key (OpenAPI 3.0 has no ``propertyNames``). Runs after apispec's own
    converters, which write the values' schema as ``additionalProperties``; a Length
    validator's ``minLength`` means ``minProperties`` on an object."""
    if not isinstance(field, ma.fields.Dict) or "properties" not in field.metadata:
        return {}
    ret["additionalProperties"] = False
    ret.pop("minLength", None)
    return {}


def nullable_ref(
    self: Any, field: ma.fields.Field, ret: dict[str, Any], **_: Any
) -> dict[str, Any]:
    """A nullable nested schema as ``allOf: [{$ref}]`` + ``nullable: true``.

    apispec writes ``anyOf: [{type: object, nullable: true}, {$ref}]`` for OpenAPI 3.0, which
    generators read as "some object or this one" and type as a plain dict. Runs after
    apispec's own converters, so it rewrites their result.
    """
    any_of = ret.get("anyOf")
    untyped = {"type": "object", "nullable": True}
    if not field.allow_none or not isinstance(any_of, list) or untyped not in any_of:
        return {}
    del ret["anyOf"]
    return {"allOf": [schema for schema in any_of if schema != untyped], "nullable": True}


class CasinoConverter(OpenAPIConverter):
    """Adds a request schema's cross-field rules (casino.api.schema_rules) to its document."""

    def schema2jsonschema(self, schema: Any) -> dict[str, Any]:
        document: dict[str, Any] = super().schema2jsonschema(schema)
        merge_json_schema(resolve_schema_instance(schema), document)
        return document


class CasinoMarshmallowPlugin(MarshmallowPlugin):
    Converter = CasinoConverter

    def init_spec(self, spec: Any) -> None:
        super().init_spec(spec)
        assert self.converter is not None
        self.converter.add_attribute_function(nullable_ref)
        self.converter.add_attribute_function(closed_map)
        self.map_to_openapi_type(UUIDString, "string", "uuid")


class CasinoApi(Api):
    ERROR_SCHEMA = ProblemSchema

    def __init__(self, app: Flask | None = None, **kwargs: Any) -> None:
        spec_kwargs = {
            "marshmallow_plugin": CasinoMarshmallowPlugin(),
            "info": {"description": INTRODUCTION},
            "extra_plugins": [ScopesPlugin(), ProblemCodesPlugin(), LinksPlugin()],
            **(kwargs.pop("spec_kwargs", None) or {}),
        }
        super().__init__(app, spec_kwargs=spec_kwargs, **kwargs)

    def _register_responses(self) -> None:
        for name, header in HEADERS.items():
            self.spec.components.header(name, header)
        # Same lazy components as flask-smorest, but typed application/problem+json.
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            if not (100 <= status < 200) and status not in (204, 304):
                response["schema"] = self.ERROR_SCHEMA
            if status in _ERROR_HEADERS:
                response["headers"] = dict(_ERROR_HEADERS[status])
            prepare_response(response, self.spec, PROBLEM_MIMETYPE)
            self.spec.components.response(status.name, response, lazy=True)
        default: dict[str, Any] = {
            "description": "Error (application/problem+json)",
            "schema": self.ERROR_SCHEMA,
        }
        prepare_response(default, self.spec, PROBLEM_MIMETYPE)
        self.spec.components.response("DEFAULT_ERROR", default, lazy=True)


def register_security(api: Api) -> None:
    api.spec.components.security_scheme(
        SECURITY_SCHEME,
        {
            "type": "http",
            "scheme": "bearer",
            "description": (
                "Operator tokens (CASINO_OPERATOR_TOKENS or `casino create-operator-token`; "
                "each of a scope, admin, support or auditor: see x-scopes) "
                "or the player token returned once by POST /players, "
                "or a game session's token (POST /sessions/exchange with a launch code: the "
                "player's own routes only, until it expires or is revoked)."
            ),
        },
    )
    api.spec.components.security_scheme(
        "gameToken",
        {
            "type": "http",
            "scheme": "bearer",
            "description": "A free-play game's own token, returned once by POST "
            "/free-play/games: only its bearer sees and plays that game.",
        },
    )


def add_doc(func: F, **doc: Any) -> F:
    """Merge ``doc`` into a view's OpenAPI operation, as ``Blueprint.doc`` does."""
    apidoc = deepcopy(getattr(func, "_apidoc", {}))
    apidoc["manual_doc"] = deepupdate(deepcopy(apidoc.get("manual_doc", {})), doc)
    func._apidoc = apidoc  # type: ignore[attr-defined]
    return func


def error_responses(*statuses: int) -> dict[str, str]:
    """Response references for ``add_doc(responses=...)``."""
    return {str(status): http.HTTPStatus(status).name for status in statuses}


def document_errors(func: F, statuses: Iterable[int]) -> F:
    return add_doc(func, responses=error_responses(*statuses))
