"""Issue 10, points 14 and 15: the served OpenAPI document is a contract clients can trust.

The document validates as OpenAPI 3.0; what it declares - statuses, bodies with their
``required`` fields, enums, formats and nullable objects, response headers, the roles of each
operation - is checked against what the service really answers, request by request.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from openapi_schema_validator import OAS30Validator, oas30_format_checker
from openapi_spec_validator import validate as validate_spec

from casino import create_app
from casino.api.database import EXTENSION_KEY
from casino.api.errors import PROBLEM_CODES
from casino.engine.cards import MAX_DECKS, MIN_DECKS
from casino.engine.casino_war import Decision
from casino.engine.war import PRESETS
from casino.service.auth import SCOPES
from casino.service.views import DECIDED_BY, ROUND_STATUSES, TRANSACTION_KINDS
from casino.store.free_play_models import STATUSES as GAME_STATUSES

from .helpers import OPERATOR_TOKEN, Api, Player, assert_problem, make_config, new_key

SPEC_PATH = "/api/v1/openapi.json"
# Public on purpose: probes, the key anyone may check a checkpoint's signature with, and
# the launch code exchange (the code is the credential).
PUBLIC = {"getHealth", "getReadiness", "getLedgerPublicKey", "exchangeLaunchCode"}
# Response fields some documents leave out (variant-dependent counters, others' choices).
OPTIONAL_FIELDS = {
    "SeatView": {"pile", "pile_top", "won", "hand_size", "hand", "wars_won", "rounds_won"},
    "Pending": {"legal", "context"},
    "Game": {"token"},  # in the creation's answer only
    "Rtp": {"tie_bet_alone", "war_tie_bet"},  # where the table offers them
    # Later rules, there only where they differ from their defaults (TableRules.to_dict).
    "ShoeRecord": {"order", "burnt", "rounds", "bets"},
}


def served_spec(api: Api) -> dict[str, Any]:
    response = api.get(SPEC_PATH)
    assert response.status_code == 200
    return dict(response.get_json())


def operations(spec: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method in {"get", "put", "post", "patch", "delete"}:
                yield path, method, operation


def resolve(spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = spec
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def as_generators_read_it(node: Any) -> Any:
    """``allOf: [{$ref}]`` + ``nullable: true`` as "null or that object".

    That is how client generators (openapi-python-client, openapi-generator, oapi-codegen)
    and schemathesis read a nullable reference in OpenAPI 3.0. A strict JSON Schema reading
    of 3.0.3 (``nullable`` only widens a ``type`` written beside it) would refuse null, and
    3.0 has no form that both readings accept and generators still type; the validator
    used here reads it the strict way, so the form is spelled out for it.
    """
    if isinstance(node, list):
        return [as_generators_read_it(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: as_generators_read_it(value) for key, value in node.items()}
    if node.get("nullable") is True and "allOf" in node and "type" not in node:
        rest = {k: v for k, v in node.items() if k not in ("nullable", "allOf")}
        return {**rest, "anyOf": [{"enum": [None]}, {"allOf": node["allOf"]}]}
    return node


class Contract:
    """Checks one answer against what the spec declares for its operation and status."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.components = as_generators_read_it(spec["components"])
        self.by_id = {op["operationId"]: (path, method) for path, method, op in operations(spec)}
        self.checked: set[tuple[str, int]] = set()

    def check(self, operation_id: str, response: Any) -> Any:
        path, method = self.by_id[operation_id]
        responses = self.spec["paths"][path][method]["responses"]
        status = str(response.status_code)
        assert status in responses, (operation_id, status, response.get_data(as_text=True))
        declared = resolve(self.spec, responses[status])
        for name, header in declared.get("headers", {}).items():
            header = resolve(self.spec, header)
            if header.get("required"):
                assert name in response.headers, (operation_id, status, name)
            if name in response.headers:
                value: Any = response.headers[name]
                if header["schema"].get("type") == "integer":
                    value = int(value)
                self._validate(header["schema"], value, f"{operation_id} {status} {name}")
        content = declared.get("content")
        if content is None:  # declared without a body (204)
            assert response.get_data() == b"", (operation_id, status)
            self.checked.add((operation_id, response.status_code))
            return None
        assert response.mimetype in content, (operation_id, status, response.mimetype)
        body = response.get_json()
        self._validate(content[response.mimetype]["schema"], body, f"{operation_id} {status}")
        self.checked.add((operation_id, response.status_code))
        return body

    def _validate(self, schema: dict[str, Any], value: Any, where: str) -> None:
        document = {"allOf": [schema], "components": self.components}
        validator = OAS30Validator(document, format_checker=oas30_format_checker)
        failures = [f"{e.json_path}: {e.message}" for e in validator.iter_errors(value)]
        assert not failures, (where, failures[:5], json.dumps(value)[:500])


@pytest.fixture
def spec(api: Api) -> dict[str, Any]:
    return served_spec(api)


@pytest.fixture
def contract(spec: dict[str, Any]) -> Contract:
    return Contract(spec)


# ---------------------------------------------------------------- the document itself


def test_the_served_spec_is_valid_openapi_3_0(spec: dict[str, Any]) -> None:
    assert spec["openapi"] == "3.0.3"
    validate_spec(spec)


def test_the_description_introduces_the_api(spec: dict[str, Any]) -> None:
    intro = spec["info"]["description"]
    for topic in (
        "operator",
        "player",
        "x-roles",
        "minor units",
        "Idempotency-Key",
        "Idempotent-Replayed",
        "problem+json",
        "validation_failed",
        "round_id",
        "malformed_json",
        "next_cursor",
        "429",
        "Retry-After",
    ):
        assert topic in intro, topic


def test_every_operation_has_a_unique_readable_operation_id(spec: dict[str, Any]) -> None:
    ids = [op.get("operationId") for _, _, op in operations(spec)]
    assert None not in ids
    assert len(ids) == len(set(ids))
    for operation_id in ids:
        assert re.fullmatch(r"[a-z]+(?:[A-Z][a-z]*)*", operation_id), operation_id
    found = {(path, method): op["operationId"] for path, method, op in operations(spec)}
    assert found[("/api/v1/rounds", "post")] == "placeBet"
    assert found[("/api/v1/rounds/{round_id}", "get")] == "getRound"
    assert found[("/api/v1/rounds/{round_id}/decision", "post")] == "decideRound"


def test_nullable_nested_objects_are_typed_nullable_refs(spec: dict[str, Any]) -> None:
    schemas = spec["components"]["schemas"]
    for schema, field, target in (
        ("Round", "war", "War"),
        ("Round", "decision", "RoundDecision"),
        ("Game", "result", "Result"),
    ):
        assert schemas[schema]["properties"][field] == {
            "allOf": [{"$ref": f"#/components/schemas/{target}"}],
            "nullable": True,
        }
    # No property anywhere is "an untyped object or ...", which generators type as a dict.
    text = json.dumps(spec)
    assert '"anyOf": [{"type": "object", "nullable": true}' not in text
    assert '{"type": "object", "nullable": true}]' not in text


def _patterns(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "pattern" and isinstance(value, str):
                yield value
            else:
                yield from _patterns(value)
    elif isinstance(node, list):
        for item in node:
            yield from _patterns(item)


def test_patterns_read_the_same_in_ecma_262_and_python(spec: dict[str, Any]) -> None:
    """``\\Z`` is a literal Z in ECMA-262; every pattern is ``^...$`` with nothing that the
    two dialects read differently (the server matches the whole value, see below)."""
    patterns = list(_patterns(spec))
    assert len(patterns) >= 10
    for pattern in patterns:
        assert pattern.startswith("^") and pattern.endswith("$"), pattern
        assert not re.search(r"\\[AZzG]|\(\?P|\(\?<|\(\?[aiLmsux]", pattern), pattern


@pytest.mark.parametrize(
    "operation, body",
    [
        ("currency", {"id": "nl", "currency": "EUR\n"}),
        ("table_id", {"id": "nl\n", "currency": "EUR"}),
        ("client_seed", {"client_seed": "seed\n"}),
        ("reference", {"currency": "EUR", "amount": 1, "reference": "ref\n"}),
        ("free_play_seed", {"variant": "classic", "seed": "seed\n"}),
    ],
)
def test_a_trailing_newline_is_refused_as_before(
    api: Api, funded: Player, operation: str, body: dict[str, Any]
) -> None:
    """Python's ``$`` matches before a final newline: the server matches whole values, so
    the ``^...$`` patterns refuse exactly what the ``\\Z`` ones did."""
    if operation in ("currency", "table_id"):
        response = api.post("/api/v1/tables", body, auth=api.operator_auth)
    elif operation == "client_seed":
        response = api.put(f"/api/v1/players/{funded.id}/seeds/client", body, auth=funded.auth)
    elif operation == "reference":
        response = api.post(
            f"/api/v1/players/{funded.id}/deposits", body, auth=api.operator_auth, key=new_key()
        )
    else:
        response = api.post("/api/v1/free-play/games", body)
    assert_problem(response, 422, "validation_failed")


def test_a_cursor_with_a_trailing_newline_is_refused(api: Api, funded: Player) -> None:
    # The one pattern that was ``$``-anchored before: now as strict as the others.
    for path in ("/api/v1/rounds", "/api/v1/tables", f"/api/v1/players/{funded.id}/transactions"):
        cursor = api.get(f"{path}?cursor=abc%0A", auth=funded.auth)
        assert_problem(cursor, 422, "validation_failed")


def _reachable(spec: dict[str, Any], node: Any, seen: set[str]) -> None:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            name = ref.rsplit("/", 1)[1]
            if name not in seen:
                seen.add(name)
                _reachable(spec, spec["components"]["schemas"][name], seen)
        for value in node.values():
            _reachable(spec, value, seen)
    elif isinstance(node, list):
        for item in node:
            _reachable(spec, item, seen)


def test_response_schemas_declare_their_required_fields(spec: dict[str, Any]) -> None:
    answered: set[str] = set()
    for _, _, operation in operations(spec):
        for status, response in operation["responses"].items():
            if status.startswith("2"):
                _reachable(spec, response, answered)
    assert {"Round", "War", "RoundDecision", "Game", "Result", "Transaction"} <= answered
    for name in sorted(answered):
        schema = spec["components"]["schemas"][name]
        optional = OPTIONAL_FIELDS.get(name, set())
        assert set(schema.get("required", [])) == set(schema["properties"]) - optional, name
    problem = spec["components"]["schemas"]["Problem"]
    assert set(problem["required"]) == {"type", "title", "status", "detail", "code"}


def test_closed_sets_are_enums_from_the_code(spec: dict[str, Any]) -> None:
    schemas = spec["components"]["schemas"]

    def enum(schema: str, field: str) -> list[Any]:
        return list(schemas[schema]["properties"][field]["enum"])

    assert enum("Round", "status") == list(ROUND_STATUSES)
    assert enum("RoundDecision", "action") == [d.value for d in Decision]
    assert enum("Decision", "action") == [d.value for d in Decision]
    assert enum("RoundDecision", "decided_by") == list(DECIDED_BY)
    assert enum("Transaction", "kind") == list(TRANSACTION_KINDS)
    assert enum("Game", "status") == list(GAME_STATUSES)
    assert enum("Problem", "code") == list(PROBLEM_CODES)


def test_ids_are_uuids_in_bodies_too(spec: dict[str, Any]) -> None:
    schemas = spec["components"]["schemas"]
    for schema, field in (
        ("Player", "id"),
        ("PlayerCreated", "id"),
        ("PlayerToken", "id"),
        ("Round", "id"),
        ("Round", "player_id"),
        ("Transaction", "round_id"),
        ("Game", "id"),
        ("Problem", "round_id"),
    ):
        assert schemas[schema]["properties"][field]["format"] == "uuid", (schema, field)
    rounds = spec["paths"]["/api/v1/rounds"]["get"]["parameters"]
    assert next(p for p in rounds if p["name"] == "player_id")["schema"]["format"] == "uuid"


def test_problem_members_are_declared(spec: dict[str, Any]) -> None:
    problem = spec["components"]["schemas"]["Problem"]["properties"]
    assert problem["round_id"]["nullable"] is True
    errors = problem["errors"]
    assert errors["type"] == "object"
    kinds = {alternative["type"] for alternative in errors["additionalProperties"]["anyOf"]}
    assert kinds == {"array", "object"}


#: Problem codes answered with 403.
FORBIDDEN_CODES = {
    "forbidden",
    "session_table_mismatch",
    "account_suspended",
    "account_closed",
    "self_excluded",
    "cooling_off",
    "session_time_limit",
}


def test_headers_statuses_and_roles_are_declared(spec: dict[str, Any]) -> None:
    components = spec["components"]
    assert set(components["headers"]) == {
        "RetryAfter",
        "WWWAuthenticate",
        "IdempotentReplayed",
        "Location",
    }
    for status, header, component in (
        ("UNAUTHORIZED", "WWW-Authenticate", "WWWAuthenticate"),
        ("TOO_MANY_REQUESTS", "Retry-After", "RetryAfter"),
        ("SERVICE_UNAVAILABLE", "Retry-After", "RetryAfter"),
    ):
        declared = components["responses"][status]["headers"][header]
        assert declared == {"$ref": f"#/components/headers/{component}"}
    # Money moves under a required key; a player (an operator) is created, and seeds rotated,
    # once under an optional one.
    money = {
        "deposit",
        "withdraw",
        "placeBet",
        "decideRound",
        "placeSharedBet",
        "decideSharedRound",
        "createPlayer",
        "rotateSeeds",
        "createOperator",
        "launchGameSession",
    }
    for path, _, operation in operations(spec):
        operation_id = operation["operationId"]
        responses = operation["responses"]
        success = next(code for code in responses if code.startswith("2"))
        replayed = "Idempotent-Replayed" in responses[success].get("headers", {})
        assert replayed == (operation_id in money), operation_id
        if "requestBody" in operation:
            assert "400" in responses, operation_id  # malformed_json
        if operation_id in PUBLIC:
            assert "security" not in operation and "x-roles" not in operation
            continue
        assert "429" in responses, operation_id
        if path.startswith("/api/v1/free-play"):
            # A game is seen and played with its own token; the rest needs none.
            owned = path.startswith("/api/v1/free-play/games/")
            assert operation.get("security") == ([{"gameToken": []}] if owned else None)
            assert "x-roles" not in operation
            # Games and simulation jobs are stored: the database may be unavailable.
            assert ("503" in responses) == ("/variants" not in path), operation_id
            continue
        assert operation["security"] == [{"bearerAuth": []}], operation_id
        roles = operation["x-roles"]
        assert roles and set(roles) <= {"operator", "player", "platform"}, operation_id
        scopes = operation["x-scopes"]
        assert scopes == ([s for s in SCOPES if s in scopes] if "operator" in roles else [])
        assert "admin" in scopes or "operator" not in roles, operation_id
        assert {"401", "503"} <= set(responses), operation_id
        # 403: a token of the other role or an operator token of another scope, or a
        # refusal of the operation's own (a game session raising a limit, an excluded
        # account betting).
        own_403 = set(operation.get("x-problem-codes", [])) & FORBIDDEN_CODES
        narrowed = "operator" in roles and len(scopes) < len(SCOPES)
        assert ("403" in responses) == (len(roles) == 1 or narrowed or bool(own_403)), operation_id
    game = spec["paths"]["/api/v1/free-play/games"]["post"]["responses"]["201"]
    assert game["headers"]["Location"] == {"$ref": "#/components/headers/Location"}


def test_the_decks_range_is_the_engines(api: Api, spec: dict[str, Any]) -> None:
    decks = spec["components"]["schemas"]["RulesInput"]["properties"]["decks"]
    assert (decks["minimum"], decks["maximum"]) == (MIN_DECKS, MAX_DECKS) == (1, 8)
    fine = api.post(
        "/api/v1/tables",
        {"id": "eight", "currency": "EUR", "rules": {"decks": MAX_DECKS}},
        auth=api.operator_auth,
    )
    assert fine.status_code == 201, fine.get_json()
    too_many = api.post(
        "/api/v1/tables",
        {"id": "nine", "currency": "EUR", "rules": {"decks": MAX_DECKS + 1}},
        auth=api.operator_auth,
    )
    body = assert_problem(too_many, 422, "validation_failed")
    assert list(body["errors"]) == ["rules"] and list(body["errors"]["rules"]) == ["decks"]


# ---------------------------------------------------------------- answers against the spec


def _bet_until_tie(api: Api, contract: Contract, player: Player) -> dict[str, Any]:
    for _ in range(500):
        round_ = contract.check("placeBet", api.bet(player))
        if round_["status"] == "awaiting_decision":
            assert round_["war"] is None and round_["decision"] is None
            return dict(round_)
    raise AssertionError("no tie in 500 bets")


def test_the_betting_flow_answers_as_the_spec_says(
    api: Api, contract: Contract, funded: Player
) -> None:
    op = api.operator_auth
    player_path = f"/api/v1/players/{funded.id}"
    check = contract.check
    check("listTables", api.get("/api/v1/tables?limit=1", auth=funded.auth))
    check("getTable", api.get("/api/v1/tables/classic", auth=funded.auth))
    check("updateTable", api.patch("/api/v1/tables/classic", {"active": True}, auth=op))
    check("createTable", api.post("/api/v1/tables", {"id": "spare", "currency": "EUR"}, auth=op))
    duplicate = api.post("/api/v1/tables", {"id": "spare", "currency": "EUR"}, auth=op)
    assert check("createTable", duplicate)["code"] == "duplicate_table"
    check("getPlayer", api.get(player_path, auth=funded.auth))
    created = check("createPlayer", api.post("/api/v1/players", {"external_ref": "x"}, auth=op))
    assert created["display_name"] is None

    # Money: a deposit, its replay, a refused withdrawal, a page of history.
    key = new_key()
    body = {"currency": "EUR", "amount": 5_000, "reference": "top-up"}
    first = api.post(f"{player_path}/deposits", body, auth=op, key=key)
    assert check("deposit", first)["kind"] == "deposit"
    replay = api.post(f"{player_path}/deposits", body, auth=op, key=key)
    assert check("deposit", replay) == first.get_json()
    assert replay.headers["Idempotent-Replayed"] == "true"
    too_much = {"currency": "EUR", "amount": 10**12, "reference": "all"}
    refused = api.post(f"{player_path}/withdrawals", too_much, auth=op, key=new_key())
    assert check("withdraw", refused)["code"] == "insufficient_funds"
    taken = {"currency": "EUR", "amount": 1_000, "reference": "out"}
    check("withdraw", api.post(f"{player_path}/withdrawals", taken, auth=op, key=new_key()))
    check("listWallets", api.get(f"{player_path}/wallets", auth=funded.auth))
    page = check("listTransactions", api.get(f"{player_path}/transactions?limit=1", auth=op))
    assert page["next_cursor"]
    cursor = page["next_cursor"]
    check("listTransactions", api.get(f"{player_path}/transactions?cursor={cursor}", auth=op))

    # Seeds, then bets until a tie; the refusals while it awaits a decision carry round_id.
    check("getSeeds", api.get(f"{player_path}/seeds", auth=funded.auth))
    seed = {"client_seed": "lucky"}
    check("setClientSeed", api.put(f"{player_path}/seeds/client", seed, auth=funded.auth))
    tied = _bet_until_tie(api, contract, funded)
    busy = check("placeBet", api.bet(funded))
    assert (busy["code"], busy["round_id"]) == ("round_in_progress", tied["id"])
    rotate = api.post(f"{player_path}/seeds/rotate", auth=funded.auth)
    assert check("rotateSeeds", rotate)["round_id"] == tied["id"]
    decision = api.post(
        f"/api/v1/rounds/{tied['id']}/decision", {"action": "war"}, auth=funded.auth, key=new_key()
    )
    decided = check("decideRound", decision)
    assert set(decided["war"]) == {"burns", "player_card", "dealer_card"}
    assert decided["decision"] == {"action": "war", "decided_by": "player"}
    again = api.post(
        f"/api/v1/rounds/{tied['id']}/decision", {"action": "war"}, auth=funded.auth, key=new_key()
    )
    assert check("decideRound", again)["code"] == "round_not_awaiting_decision"
    assert check("getRound", api.get(f"/api/v1/rounds/{tied['id']}", auth=op)) == decided
    check("listRounds", api.get("/api/v1/rounds?status=settled&limit=2", auth=funded.auth))
    check("listRounds", api.get(f"/api/v1/rounds?player_id={funded.id}", auth=op))
    check("rotateSeeds", api.post(f"{player_path}/seeds/rotate", auth=funded.auth))
    # The client seed of a new pair: with the rotation, or with the pair's first bet only.
    chosen = api.post(f"{player_path}/seeds/rotate", {"client_seed": "mine"}, auth=funded.auth)
    assert check("rotateSeeds", chosen)["current"]["client_seed_chosen"] is True
    fixed = check("placeBet", api.bet(funded, client_seed="late"))
    assert fixed["code"] == "client_seed_fixed"
    bad = api.post(f"{player_path}/seeds/rotate", {"client_seed": ""}, auth=funded.auth)
    assert set(check("rotateSeeds", bad)["errors"]) == {"client_seed"}
    check("rotateSeeds", api.post(f"{player_path}/seeds/rotate", {}, auth=funded.auth))
    first = check("placeBet", api.bet(funded, client_seed="entropy"))
    assert first["fairness"]["client_seed"] == "entropy"

    # Refusals: each status and its problem document as declared.
    assert check("listTables", api.get("/api/v1/tables"))["code"] == "unauthenticated"
    forbidden = api.post("/api/v1/tables", {"id": "p", "currency": "EUR"}, auth=funded.auth)
    assert check("createTable", forbidden)["code"] == "forbidden"
    unknown = api.get(f"/api/v1/rounds/{uuid.uuid4()}", auth=op)
    assert check("getRound", unknown)["code"] == "round_not_found"
    no_key = api.post("/api/v1/rounds", {"table_id": "classic", "ante": 100}, auth=funded.auth)
    assert check("placeBet", no_key)["code"] == "idempotency_key_required"
    not_object = api.client.post(
        "/api/v1/players", data=b"[]", headers={**op, "Content-Type": "application/json"}
    )
    assert check("createPlayer", not_object)["code"] == "malformed_json"
    invalid = api.post("/api/v1/players", {"external_ref": "", "extra": 1}, auth=op)
    errors = check("createPlayer", invalid)["errors"]
    assert set(errors) == {"external_ref", "extra"}
    nested = api.post(
        "/api/v1/tables", {"id": "n", "currency": "EUR", "rules": {"decks": 0}}, auth=op
    )
    messages = check("createTable", nested)["errors"]["rules"]["decks"]
    assert len(messages) == 1 and str(MAX_DECKS) in messages[0]
    assert check("listRounds", api.get("/api/v1/rounds?limit=0", auth=op))["code"] == (
        "validation_failed"
    )
    check("getHealth", api.get("/api/v1/health"))
    check("getReadiness", api.get("/api/v1/ready"))
    # Last: the player's token stops working.
    check("reissuePlayerToken", api.post(f"{player_path}/token", auth=op))


def test_every_free_play_variant_answers_as_the_spec_says(api: Api, contract: Contract) -> None:
    check = contract.check
    variants = check("listVariants", api.get("/api/v1/free-play/variants"))
    assert [v["name"] for v in variants["items"]] == list(PRESETS)
    for variant in PRESETS:
        created = api.post("/api/v1/free-play/games", {"variant": variant, "seed": "contract"})
        game = check("createGame", created)
        assert created.headers["Location"].endswith(game["id"])
        owner = {"Authorization": f"Bearer {game['token']}"}
        path = f"/api/v1/free-play/games/{game['id']}"
        game = check("autoplayGame", api.post(f"{path}/autoplay?log_tail=2", {}, auth=owner))
        mine = [p for p in game["pending"] if p["seat"] == game["viewer"]]
        if mine:
            move = api.post(f"{path}/moves?log_tail=2", mine[0]["legal"][0], auth=owner)
            check("makeMove", move)
        illegal = api.post(f"{path}/moves", {"action": "nonsense"}, auth=owner)
        assert check("makeMove", illegal)["code"] in ("illegal_move", "game_finished")
        ended = api.post(f"{path}/autoplay?log_tail=3", {"until": "end"}, auth=owner)
        check("autoplayGame", ended)
        finished = check("getGame", api.get(f"{path}?seat=0&log_tail=1", auth=owner))
        assert finished["status"] == "finished" and finished["result"] is not None
        over = api.post(f"{path}/moves", {"action": "play"}, auth=owner)
        assert check("makeMove", over)["code"] == "game_finished"
        simulation = {"variant": variant, "games": 2, "seed": "contract"}
        check("runSimulation", api.post("/api/v1/free-play/simulations", simulation))
    missing = api.get(f"/api/v1/free-play/games/{uuid.uuid4()}")
    assert check("getGame", missing)["code"] == "game_not_found"
    bad = api.post("/api/v1/free-play/games", {"variant": "classic", "seats": []})
    assert check("createGame", bad)["code"] == "validation_failed"


def test_x_roles_is_what_the_service_enforces(
    api: Api, spec: dict[str, Any], funded: Player
) -> None:
    """Every secured operation with each role's token: 403 exactly for the roles its
    ``x-roles`` leaves out; without a token 401 with ``WWW-Authenticate``."""
    round_id = api.bet(funded).get_json()["id"]
    ids = {
        "player_id": funded.id,
        "round_id": round_id,
        "table_id": "classic",
        "seq": 1,
        "tx_id": 1,
        "session_id": "00000000-0000-4000-8000-000000000000",
        "operator_id": "default",
        "transaction_id": "00000000-0000-4000-8000-000000000000",
        "index": 1,
    }
    tokens = {"operator": api.operator_auth, "player": funded.auth, "platform": api.platform_auth}
    secured = [
        (p, m, op) for p, m, op in operations(spec) if op.get("security") == [{"bearerAuth": []}]
    ]
    assert len(secured) == 56  # 5 of them shared tables'
    for path, method, operation in secured:
        url = path.format(**ids)
        anonymous = api.client.open(url, method=method.upper(), json={})
        assert_problem(anonymous, 401, "unauthenticated")
        assert anonymous.headers["WWW-Authenticate"] == "Bearer"
        for role in ("operator", "player", "platform"):
            headers = {**tokens[role], "Idempotency-Key": new_key()}
            answer = api.client.open(url, method=method.upper(), json={}, headers=headers)
            refused = answer.status_code == 403
            assert refused == (role not in operation["x-roles"]), (
                operation["operationId"],
                role,
                answer.status_code,
            )
            assert answer.status_code != 401, (operation["operationId"], role)
            if operation["operationId"] == "reissuePlayerToken" and answer.status_code == 201:
                tokens["player"] = {"Authorization": f"Bearer {answer.get_json()['token']}"}
            # A streamed answer (the export) holds its snapshot, on SQLite the database,
            # until it is read or closed, as a server closes it when the client goes.
            answer.close()
    public = [op for _, _, op in operations(spec) if "security" not in op]
    assert {op["operationId"] for op in public} >= PUBLIC


# ---------------------------------------------------------------- 429 and 503 answers


def _disposed(app: Flask) -> None:
    app.extensions[EXTENSION_KEY].engine.dispose()


def test_rate_limited_answers_carry_retry_after(database_url: str, spec: dict[str, Any]) -> None:
    app = create_app(
        make_config(
            database_url,
            RATELIMIT_ENABLED=True,
            FREE_PLAY_RATE_LIMIT="2 per minute",
            AUTH_FAILURE_LIMIT="2 per minute",
        )
    )
    try:
        client = app.test_client()
        contract = Contract(spec)
        answers = [client.get("/api/v1/free-play/variants") for _ in range(3)]
        assert [a.status_code for a in answers] == [200, 200, 429]
        assert contract.check("listVariants", answers[-1])["code"] == "rate_limited"
        wrong = {"Authorization": "Bearer not-a-token"}
        failures = [client.get("/api/v1/tables", headers=wrong) for _ in range(3)]
        assert [a.status_code for a in failures][:2] == [401, 401]
        limited = client.get("/api/v1/tables", headers=wrong)
        assert contract.check("listTables", limited)["code"] == "rate_limited"
        assert int(limited.headers["Retry-After"]) > 0
    finally:
        _disposed(app)


def test_an_unreachable_database_answers_as_declared(tmp_path: Path, spec: dict[str, Any]) -> None:
    missing = tmp_path / "no" / "such" / "dir" / "casino.db"
    app = create_app(make_config(f"sqlite:///{missing}"))
    try:
        client = app.test_client()
        contract = Contract(spec)
        contract.check("getReadiness", client.get("/api/v1/ready"))
        operator = {"Authorization": f"Bearer {OPERATOR_TOKEN}"}
        answer = client.get("/api/v1/tables", headers=operator)
        assert contract.check("listTables", answer)["code"] == "service_unavailable"
    finally:
        _disposed(app)


# ---------------------------------------------------------------- the defects issue 25 named


def test_a_polled_simulation_answers_as_its_schema_says(
    database_url: str, contract: Contract
) -> None:
    """The job a client polls, running and done: its ``result`` once matched none of the
    branches the spec gave it."""
    import time

    from casino.api.resources.free_play import POOL_KEY

    app = create_app(
        make_config(
            database_url,
            FREE_PLAY_SIMULATION_WAIT_SECONDS=0,
            FREE_PLAY_SIMULATION_MAX_SECONDS=120,
        )
    )
    try:
        client = app.test_client()
        body = {"variant": "classic", "games": 200, "seed": "contract-job"}
        started = client.post("/api/v1/free-play/simulations", json=body)
        job = contract.check("runSimulation", started)
        assert started.status_code == 202 and job["status"] == "running"
        deadline = time.monotonic() + 60
        while job["status"] == "running" and time.monotonic() < deadline:
            time.sleep(0.05)
            job = contract.check("getSimulation", client.get(started.headers["Location"]))
        assert job["status"] == "done" and job["result"]["games"] == 200, job
    finally:
        app.extensions[POOL_KEY].shutdown()
        app.extensions[EXTENSION_KEY].engine.dispose()


@pytest.mark.parametrize("body", [None, {}])
def test_a_limits_update_without_a_body_answers_as_the_spec_says(
    api: Api, contract: Contract, spec: dict[str, Any], funded: Player, body: Any
) -> None:
    """The spec once required a body the server did without. Both now say the same: no
    field is required, so an update without a body (or an empty one) is valid, changes
    nothing and answers the limits as they stand."""
    path = f"/api/v1/players/{funded.id}/limits"
    request = spec["paths"]["/api/v1/players/{player_id}/limits"]["put"]["requestBody"]
    assert request["required"] is False
    assert "minProperties" not in resolve(spec, request["content"]["application/json"]["schema"])
    before = api.get(path, auth=api.operator_auth).get_json()
    answer = api.put(path, body, auth=api.operator_auth)
    assert answer.status_code == 200, answer.get_json()
    updated = contract.check("setLimits", answer)
    assert updated["changes"] == [] and updated["limits"] == before
    history = api.get(f"{path}/history", auth=api.operator_auth).get_json()
    assert history["items"] == []
