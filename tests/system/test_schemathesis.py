"""Issue 5, section 3: schemathesis against the served OpenAPI document.

A gunicorn instance (production configuration) on a fresh PostgreSQL database serves
``/api/v1/openapi.json``; every operation in it is fuzzed with the operator's token and with
a player's token, in schemathesis' positive mode (inputs the spec allows, with the ids of
real players, rounds and tables so requests reach the service) and negative mode (inputs the
spec forbids, ids included). ``CASINO_FUZZ_EXAMPLES`` cases per operation, token and mode
(default 20; hypothesis stops early on small input spaces, so that is about 1,300 cases
over 18 operations; the test requires at least 1,000).

Checks on every response: no 5xx, the status is one the spec declares, the content type and
the body conform to the spec. Failures are collected over the whole run and reported together
(deduplicated by operation, check and status), so one run shows everything it found.
"""

from __future__ import annotations

import os
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from harness import api, pg
from harness.server import GunicornInstance

pytestmark = pytest.mark.postgres

OPERATOR = "fuzz-operator-" + uuid.uuid4().hex
MIN_CASES = 1_000


@dataclass
class Findings:
    cases: int = 0
    by_status: Counter[int] = field(default_factory=Counter)
    failures: dict[tuple[str, str, int], str] = field(default_factory=dict)
    no_negative: set[str] = field(default_factory=set)
    front_door: Counter[str] = field(default_factory=Counter)

    def add(self, label: str, check: str, status: int, detail: str) -> None:
        self.failures.setdefault((label, check, status), detail)

    def report(self) -> str:
        lines = [f"{self.cases} cases, statuses {dict(sorted(self.by_status.items()))}"]
        if self.front_door:
            lines.append(f"refused by gunicorn before the app (414): {dict(self.front_door)}")
        for (label, check, status), detail in sorted(self.failures.items()):
            lines.append(f"- {label} [{check}] -> {status}: {detail}")
        return "\n".join(lines)


def _refused_by_gunicorn(response: Any) -> bool:
    """gunicorn's own 414 for a request line over its 4094-byte limit (an HTML page).

    It never reaches the app, so the app's spec cannot describe it; only negative cases with
    long non-ASCII query values get there. Counted and reported, not failed.
    """
    content_type = " ".join(response.headers.get("content-type", []))
    return response.status_code == 414 and "text/html" in content_type


def _not_a_server_error(response: Any) -> str | None:
    if response.status_code >= 500:
        return response.text[:300]
    return None


def _seed_world(base: str) -> dict[str, str]:
    """A table, two funded players with a round each: real ids for the positive cases."""

    def ok(call: api.Call, status: int = 201) -> Any:
        reply = call.send(base)
        assert reply.status == status, (call.path, reply.kind, reply.body)
        return reply.body

    ok(api.create_table(OPERATOR, "classic"))
    ids: dict[str, str] = {"table_id": "classic"}
    for who in ("a", "b"):
        player = ok(api.create_player(OPERATOR, f"fuzz-{who}-{uuid.uuid4()}"))
        ok(api.deposit(OPERATOR, player["id"], 10**9, f"fund {who}"))
        round_ = ok(api.place_bet(player["token"], "classic", 100))
        ids[f"{who}_id"], ids[f"{who}_token"], ids[f"{who}_round"] = (
            player["id"],
            player["token"],
            round_["id"],
        )
    # A free-play game with a human seat, so the game endpoints see a real id too.
    game = ok(api.Call("POST", "/free-play/games", OPERATOR, {"variant": "steal", "seed": "fuzz"}))
    ids["game_id"], ids["game_token"] = game["id"], game["token"]
    return ids


def _fuzz_operation(
    operation: Any,
    mode: GenerationMode,
    headers: dict[str, str],
    path_parameters: dict[str, str] | None,
    base: str,
    examples: int,
    findings: Findings,
) -> None:
    label = f"{operation.method.upper()} {operation.path}"
    checks: list[tuple[str, Callable[..., Any]]] = [
        ("status_code_conformance", status_code_conformance),
        ("content_type_conformance", content_type_conformance),
        ("response_schema_conformance", response_schema_conformance),
    ]
    known = {p.name for p in operation.path_parameters} if path_parameters else set()
    fixed = {k: v for k, v in (path_parameters or {}).items() if k in known} or None
    strategy = operation.as_strategy(generation_mode=mode, path_parameters=fixed)

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=False,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def run(case: Any) -> None:
        if "Idempotency-Key" in (case.headers or {}) and mode is GenerationMode.POSITIVE:
            # A fresh key per case, so positive cases do the work instead of replaying.
            case.headers["Idempotency-Key"] = str(uuid.uuid4())
        response = case.call(base_url=base, headers=headers, timeout=30)
        findings.cases += 1
        findings.by_status[response.status_code] += 1
        if _refused_by_gunicorn(response):
            findings.front_door[label] += 1
            return
        server_error = _not_a_server_error(response)
        if server_error is not None:
            findings.add(
                label,
                "not_a_server_error",
                response.status_code,
                f"{case.body!r:.200} {case.query!r:.100} -> {server_error}",
            )
        for name, check in checks:
            try:
                case.validate_response(response, checks=[check])
            except (AssertionError, BaseExceptionGroup) as err:  # one group per check
                findings.add(
                    label,
                    name,
                    response.status_code,
                    f"{case.body!r:.150} -> {str(err).splitlines()[0][:300]}",
                )

    try:
        run()
    except Unsatisfiable:
        # Nothing in this operation can be made invalid (no parameters, no body).
        findings.no_negative.add(label)


def test_fuzz_every_operation_with_operator_and_player_tokens() -> None:
    examples = int(os.environ.get("CASINO_FUZZ_EXAMPLES", "20"))
    findings = Findings()
    with pg.scratch_database("fuzz") as db:
        pg.migrate(db.url)
        # Throttling is tested by hand; here it would turn fuzzed 401s into 429s.
        instance = GunicornInstance(
            db.url,
            [OPERATOR],
            workers=2,
            extra_env={
                "CASINO_AUTH_FAILURE_LIMIT": "1000000 per minute",
                "CASINO_FREE_PLAY_RATE_LIMIT": "1000000 per minute",
                "CASINO_FREE_PLAY_SIMULATION_RATE_LIMIT": "1000000 per minute",
            },
        )
        with instance:
            base = instance.base_url
            ids = _seed_world(base)
            schema = schemathesis.openapi.from_url(base + "/api/v1/openapi.json")
            operations = [result.ok() for result in schema.get_all_operations()]
            assert len(operations) >= 15, [f"{o.method} {o.path}" for o in operations]
            as_operator = {"Authorization": f"Bearer {OPERATOR}"}
            as_player = {"Authorization": f"Bearer {ids['a_token']}"}
            real_ids = {
                "player_id": ids["a_id"],
                "round_id": ids["a_round"],
                "table_id": "classic",
                "game_id": ids["game_id"],
            }
            # A game is seen only with its own token (issue 10): the second pass uses it there.
            as_game_owner = {"Authorization": f"Bearer {ids['game_token']}"}
            for operation in operations:
                owner = as_game_owner if "{game_id}" in operation.path else as_player
                for headers in (as_operator, owner):
                    _fuzz_operation(
                        operation,
                        GenerationMode.POSITIVE,
                        headers,
                        real_ids,
                        base,
                        examples,
                        findings,
                    )
                    _fuzz_operation(
                        operation, GenerationMode.NEGATIVE, headers, None, base, examples, findings
                    )
            # The instance is still healthy after the fuzzing.
            assert api.Call("GET", "/ready", OPERATOR).send(base).status == 200
    print(findings.report())
    if examples >= 20:
        assert findings.cases >= MIN_CASES, findings.report()
    assert not findings.failures, findings.report()
