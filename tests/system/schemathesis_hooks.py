"""schemathesis hooks for this API: which token each operation gets, and THE list of what
may differ from the spec, each with its reason.

Loaded by ``schemathesis.toml`` (repository root), so ``st run`` from a checkout and
``tests/system/test_schemathesis.py`` judge the API the same way. Nothing outside
``ALLOWED`` is tolerated: a new operation is fuzzed, checked and walked through its links
like the others with no change here.

Tokens come from the environment (when a variable is unset, the operation keeps whatever
``-H Authorization: ...`` the command line gave):

- ``CASINO_ST_OPERATOR_TOKEN``: operations whose ``x-roles`` include ``operator``;
- ``CASINO_ST_PLATFORM_TOKEN``: the platform's own (``x-roles`` only ``platform``);
- ``CASINO_ST_PLAYER_TOKEN``: the player's operations (``x-roles`` without ``operator``),
  unless the player in the path was created during the run: then its own token;
- ``CASINO_ST_SESSION_TOKEN``: a game session's token, for the holder's ``/sessions/current``;
- ``CASINO_ST_GAME_TOKEN``: a free-play game's token (``gameToken``), unless the game in the
  path was created during the run, whose own token (from its creation's answer) is used.
"""

import json
import os
import re
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import schemathesis

from casino.api.idempotency_key import KEY_PATTERN

# Failure codes of schemathesis 4.x (``st explain <code>``).
SCHEMA_VALID_REQUEST_REJECTED = "ST202"  # positive_data_acceptance
MISSING_AUTHORIZATION_ACCEPTED = "ST203"  # missing_required_header
AUTHENTICATION_NOT_ENFORCED = "ST401"  # ignored_auth


@dataclass(frozen=True)
class Allowed:
    """A failure accepted: its schemathesis code, and the answer's status and problem code."""

    failure: str
    status: int
    problem_codes: frozenset[str]
    reason: str
    operations: frozenset[str] = frozenset()  # operationIds; empty: any
    #: validation_failed only when every field it names is one of these
    fields: frozenset[str] = frozenset()

    def matches(self, failure: str, status: int, body: Mapping[str, Any], operation: str) -> bool:
        errors = body.get("errors")
        return (
            failure == self.failure
            and status == self.status
            and body.get("code") in self.problem_codes
            and (not self.operations or operation in self.operations)
            and (not self.fields or (isinstance(errors, dict) and set(errors) <= self.fields))
        )


def _throttled(failure: str) -> Allowed:
    return Allowed(
        failure,
        429,
        frozenset({"rate_limited"}),
        "The failed-authentication throttle (AUTH_FAILURE_LIMIT, 20 a minute per address by "
        "default) answers 429 rate_limited once schemathesis' own unauthenticated probes pass "
        "it; the CI test raises the limit so that these never happen there.",
    )


# Table rules that no JSON Schema keyword can say: one field against another (min_ante <=
# max_ante, an ante a multiple of the increment, a shoe big enough for the hands and wars).
# Each is in createTable's description and answers its own code (casino.engine rule checks).
_TABLE_RULE_CODES = frozenset(
    {
        "decks_out_of_range",
        "tie_pays_not_allowed",
        "bet_increment_invalid",
        "min_ante_invalid",
        "max_ante_invalid",
        "max_tie_bet_invalid",
        "invalid_rules",
    }
)

#: THE list: what schemathesis may report that is not a defect, and why. Nothing else is.
ALLOWED: tuple[Allowed, ...] = (
    Allowed(
        SCHEMA_VALID_REQUEST_REJECTED,
        422,
        frozenset({"invalid_cursor"}),
        "A cursor is opaque: only one the server issued (a page's next_cursor) is valid, and "
        "no schema can say which strings those are.",
    ),
    Allowed(
        SCHEMA_VALID_REQUEST_REJECTED,
        422,
        frozenset({"invalid_range", "invalid_period"}),
        "One query parameter must come before another (since < until, from < to): OpenAPI "
        "3.0 cannot compare two parameters; the operation's description says it.",
    ),
    Allowed(
        SCHEMA_VALID_REQUEST_REJECTED,
        422,
        frozenset({"idempotency_key_reused"}),
        "An Idempotency-Key names one operation: the same key with another body is refused "
        "(draft-ietf-httpapi-idempotency-key-header); schemathesis reuses keys across cases.",
    ),
    Allowed(
        SCHEMA_VALID_REQUEST_REJECTED,
        422,
        frozenset({"unsupported_currency"}),
        "The currencies a deployment (and an operator) accepts are configuration, listed by "
        "GET /currencies: the spec can only say ISO 4217's shape, three capital letters.",
    ),
    Allowed(
        SCHEMA_VALID_REQUEST_REJECTED,
        422,
        _TABLE_RULE_CODES,
        "Table rules across fields (min_ante <= max_ante, multiples of the increment, ...): "
        "JSON Schema cannot compare two fields; createTable's description lists them.",
        frozenset({"createTable", "updateTable"}),
    ),
    Allowed(
        SCHEMA_VALID_REQUEST_REJECTED,
        422,
        frozenset({"validation_failed"}),
        "A table's war tie bet needs max when enabled and takes none when disabled: said in "
        "WarTieBetInput's description, not as a oneOf, because the rules object is nested and "
        "openapi-python-client (the generated-client test) cannot model a nested oneOf.",
        frozenset({"createTable", "updateTable"}),
        frozenset({"rules"}),
    ),
    Allowed(
        SCHEMA_VALID_REQUEST_REJECTED,
        422,
        frozenset({"invalid_rules"}),
        "A free-play variant (and its options) decides how many seats there are, so which "
        "seat numbers and seat lists are valid: the spec gives the largest range.",
        frozenset({"createGame", "runSimulation"}),
    ),
    Allowed(
        SCHEMA_VALID_REQUEST_REJECTED,
        422,
        frozenset({"validation_failed"}),
        "A variant's options are a map whose names OpenAPI 3.0 cannot constrain (it has no "
        "propertyNames); GET /free-play/variants lists each variant's options.",
        frozenset({"createGame", "runSimulation"}),
        frozenset({"options"}),
    ),
    Allowed(
        SCHEMA_VALID_REQUEST_REJECTED,
        422,
        frozenset(
            {
                "ante_out_of_range",
                "ante_not_multiple_of_increment",
                "tie_bet_out_of_range",
                "tie_bet_not_multiple_of_increment",
                "table_currency_mismatch",
            }
        ),
        "A bet's limits and a table's currency are the table's data (GET /tables/{table_id}), "
        "not the spec's: any table may have others.",
        frozenset({"placeBet", "launchGameSession", "createGameSession"}),
    ),
    Allowed(
        SCHEMA_VALID_REQUEST_REJECTED,
        422,
        frozenset({"invalid_bet"}),
        "How many hands a round plays (max_hands), whether a hand may stake only a tie bet "
        "(tie_only) and whether the war tie bet is offered are the table's rules "
        "(GET /tables/{table_id}): the spec gives the largest shape, 1 to 5 hands.",
        frozenset({"placeBet", "decideRound"}),
    ),
    Allowed(
        SCHEMA_VALID_REQUEST_REJECTED,
        422,
        frozenset({"invalid_seat", "seat_required"}),
        "A game's seats are the game's (its variant and options): the spec gives the largest "
        "range, and cannot know when a game has several human seats (then a move names its "
        "seat).",
        frozenset({"makeMove", "autoplayGame", "getGame"}),
    ),
    Allowed(
        SCHEMA_VALID_REQUEST_REJECTED,
        422,
        frozenset({"invalid_wallet_settings"}),
        "A seamless wallet's settings depend on each other and on the stored ones (a URL and "
        "a secret with mode seamless, kept across updates); the description says so.",
        frozenset({"createOperator", "updateOperator"}),
    ),
    Allowed(
        AUTHENTICATION_NOT_ENFORCED,
        404,
        frozenset({"game_not_found"}),
        "A free-play game is seen only with its own token: without it the game answers 404, "
        "exactly like an unknown id, so that its existence is not revealed (issue 10).",
        frozenset({"getGame", "makeMove", "autoplayGame"}),
    ),
    _throttled(MISSING_AUTHORIZATION_ACCEPTED),
    _throttled(AUTHENTICATION_NOT_ENFORCED),
)


def allowed(failure: str, status: int, body: Mapping[str, Any], operation: str) -> Allowed | None:
    return next((a for a in ALLOWED if a.matches(failure, status, body, operation)), None)


def _problem(response: Any) -> Mapping[str, Any]:
    try:
        body = json.loads(response.content or b"null")
    except (ValueError, TypeError):
        return {}
    return body if isinstance(body, Mapping) else {}


def _operation_id(case: Any) -> str:
    return str(case.operation.definition.raw.get("operationId", case.operation.label))


@schemathesis.hook
def filter_failure(context: Any, failure: Any, case: Any, response: Any) -> bool:
    """Keep every failure except those ``ALLOWED`` names."""
    status = response.status_code if response is not None else 0
    body = _problem(response) if response is not None else {}
    if failure.code == AUTHENTICATION_NOT_ENFORCED:
        # Its probe's answer, not the response given here (which was the authenticated 2xx).
        message = str(failure.message)
        if "429" in message:
            status, body = 429, {"code": "rate_limited"}
        elif "404" in message:
            status, body = 404, {"code": "game_not_found"}
    return allowed(failure.code, status, body, _operation_id(case)) is None


# ---------------------------------------------------------------- idempotency keys

_WELL_FORMED_KEY = re.compile(KEY_PATTERN)


@schemathesis.hook
def map_headers(context: Any, headers: dict[str, Any] | None) -> dict[str, Any] | None:
    """A well-formed Idempotency-Key becomes a fresh one, as the API asks of its clients.

    Generated keys are short and repeat ("0", "00"): a repeat with another body is refused
    (422 idempotency_key_reused, listed above) and the stateful phase's flows would stop at
    their first money movement. Malformed keys stay as they are, for the negative cases.
    """
    if not headers:
        return headers
    for name, value in headers.items():
        key = value if name.lower() == "idempotency-key" and isinstance(value, str) else None
        if key is not None and _WELL_FORMED_KEY.fullmatch(key):
            headers[name] = str(uuid.uuid4())
    return headers


# ---------------------------------------------------------------- tokens

# The tokens of the games and players the run creates, by id: their links lead to them, and
# each is seen only with its own token (a player's operations act as that player).
_CREATED_TOKENS: dict[str, dict[str, str]] = {"createGame": {}, "createPlayer": {}}


@schemathesis.hook
def after_call(context: Any, case: Any, response: Any) -> None:
    """Remember the token in a creation's answer."""
    tokens = _CREATED_TOKENS.get(_operation_id(case))
    if tokens is None or response.status_code != 201:
        return
    try:
        body = json.loads(response.content)
    except ValueError:
        return
    if isinstance(body, Mapping) and body.get("id") and body.get("token"):
        tokens[str(body["id"])] = str(body["token"])


def token_for(
    definition: Mapping[str, Any], path: str, path_parameters: Mapping[str, Any]
) -> str | None:
    schemes = {name for requirement in definition.get("security", []) for name in requirement}
    if "gameToken" in schemes:
        game = str((path_parameters or {}).get("game_id", ""))
        return _CREATED_TOKENS["createGame"].get(game) or os.environ.get("CASINO_ST_GAME_TOKEN")
    if "bearerAuth" not in schemes:
        return None
    roles = set(definition.get("x-roles", []))
    if "operator" in roles:
        return os.environ.get("CASINO_ST_OPERATOR_TOKEN")
    if "platform" in roles:
        return os.environ.get("CASINO_ST_PLATFORM_TOKEN")
    if path.startswith("/sessions/current"):
        return os.environ.get("CASINO_ST_SESSION_TOKEN")
    player = str((path_parameters or {}).get("player_id", ""))
    return _CREATED_TOKENS["createPlayer"].get(player) or os.environ.get("CASINO_ST_PLAYER_TOKEN")


@schemathesis.auth(refresh_interval=None)
class TokenByRole:
    """The token each operation's ``security`` and ``x-roles`` call for."""

    def get(self, case: Any, context: Any) -> str | None:
        path = case.operation.path.removeprefix("/api/v1")
        return token_for(case.operation.definition.raw, path, case.path_parameters or {})

    def set(self, case: Any, data: str | None, context: Any) -> None:
        if data:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {data}"}
