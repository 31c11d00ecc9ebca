"""Issue 10, point 15: a client generated from the served spec plays the main flow, typed.

openapi-python-client generates a package from ``/api/v1/openapi.json`` into a temporary
directory; the test imports it and plays through it (httpx over WSGI into the app, so every
request is real HTTP semantics without a server): a table, a player, a deposit (and its
replay), bets until a tie, the refusal of another bet while it awaits a decision, war. The
round comes back as the generated ``Round`` with a typed ``War`` - ``round_.war.player_card``
- and enums for status, action and who decided. The generated models are strict: a required
field missing or a value outside an enum fails the parse.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from flask import Flask

from casino import create_app
from casino.api.database import EXTENSION_KEY

from .conftest import MigratedDatabase
from .helpers import OPERATOR_TOKEN, make_config

PACKAGE = "casino_generated_client"
# The ledger export is NDJSON, which generators do not parse: a client takes it as bytes
# (and hands the file to the verifier), as this documented generator option says.
CONFIG = f"""\
package_name_override: {PACKAGE}
project_name_override: casino-generated-client
post_hooks: []
content_type_overrides:
  application/x-ndjson: application/octet-stream
"""


class Generated:
    """The generated package: ``models`` and the operation modules by tag and name."""

    def __init__(self, package: ModuleType) -> None:
        self.package = package
        self.models = importlib.import_module(f"{PACKAGE}.models")

    def op(self, tag: str, operation: str) -> Any:
        return importlib.import_module(f"{PACKAGE}.api.{tag}.{operation}")

    def client(self, app: Flask, token: str) -> Any:
        return self.package.AuthenticatedClient(
            base_url="http://casino.test",
            token=token,
            raise_on_unexpected_status=True,
            httpx_args={"transport": httpx.WSGITransport(app=app)},
        )


@pytest.fixture(scope="module")
def generated(
    sqlite_database: MigratedDatabase, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Generated]:
    spec_app = create_app(make_config(sqlite_database.url))
    try:
        spec = spec_app.test_client().get("/api/v1/openapi.json")
        assert spec.status_code == 200
    finally:
        spec_app.extensions[EXTENSION_KEY].engine.dispose()
    work = tmp_path_factory.mktemp("generated-client")
    (work / "openapi.json").write_bytes(spec.data)
    (work / "config.yaml").write_text(CONFIG)
    generator = Path(sys.executable).with_name("openapi-python-client")
    result = subprocess.run(
        [
            str(generator),
            "generate",
            "--path",
            str(work / "openapi.json"),
            "--config",
            str(work / "config.yaml"),
            "--meta",
            "none",
            "--output-path",
            str(work / PACKAGE),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    # The generator warns about every schema or operation it could not use.
    assert "Warning" not in result.stdout + result.stderr, result.stdout + result.stderr
    sys.path.insert(0, str(work))
    try:
        yield Generated(importlib.import_module(PACKAGE))
    finally:
        sys.path.remove(str(work))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def test_a_generated_client_plays_bet_tie_and_war_with_typed_results(
    app: Flask, generated: Generated
) -> None:
    m = generated.models
    operator = generated.client(app, OPERATOR_TOKEN)

    table = generated.op("tables", "create_table").sync(
        client=operator, body=m.TableCreate(id="classic", currency="EUR")
    )
    assert isinstance(table, m.Table) and table.rules.decks == 6

    created = generated.op("players", "create_player").sync(
        client=operator, body=m.PlayerCreate(external_ref=f"gen-{uuid.uuid4()}")
    )
    assert isinstance(created, m.PlayerCreated)
    assert isinstance(created.id, uuid.UUID)  # format: uuid, parsed as such

    deposit = generated.op("wallets", "deposit")
    key = str(uuid.uuid4())
    money = m.MoneyMovement(currency="EUR", amount=1_000_000, reference="generated")
    transaction = deposit.sync(
        player_id=created.id, client=operator, body=money, idempotency_key=key
    )
    assert isinstance(transaction, m.Transaction)
    assert transaction.kind == m.TransactionKind.DEPOSIT
    assert transaction.balance_after == 1_000_000
    replay = deposit.sync_detailed(
        player_id=created.id, client=operator, body=money, idempotency_key=key
    )
    assert replay.headers["Idempotent-Replayed"] == "true"
    assert replay.parsed.to_dict() == transaction.to_dict()

    player = generated.client(app, created.token)
    place_bet = generated.op("rounds", "place_bet")

    def bet() -> Any:
        return place_bet.sync(
            client=player,
            body=m.Bet(table_id="classic", ante=100),
            idempotency_key=str(uuid.uuid4()),
        )

    for _ in range(500):
        round_ = bet()
        assert isinstance(round_, m.Round), round_
        if round_.status == m.RoundStatus.AWAITING_DECISION:
            break
    else:
        raise AssertionError("no tie in 500 bets")
    assert round_.war is None and round_.decision is None
    assert round_.player_card[:-1] == round_.dealer_card[:-1]  # a tie: same rank

    refused = bet()
    assert isinstance(refused, m.Problem)
    assert refused.code == m.ProblemCode.ROUND_IN_PROGRESS
    assert refused.round_id == round_.id

    decided = generated.op("rounds", "decide_round").sync(
        round_id=round_.id,
        client=player,
        body=m.Decision(action=m.DecisionAction.WAR),
        idempotency_key=str(uuid.uuid4()),
    )
    assert isinstance(decided, m.Round), decided
    assert decided.status == m.RoundStatus.SETTLED
    assert isinstance(decided.war, m.War)
    assert isinstance(decided.war.player_card, str) and len(decided.war.burns) == 3
    assert isinstance(decided.decision, m.RoundDecision)
    assert decided.decision.action == m.RoundDecisionAction.WAR
    assert decided.decision.decided_by == m.RoundDecisionDecidedBy.PLAYER
    assert decided.bets.raise_ == 100

    recalled = generated.op("rounds", "get_round").sync(round_id=round_.id, client=operator)
    assert recalled.to_dict() == decided.to_dict()
    page = generated.op("rounds", "list_rounds").sync(
        client=player, status=m.ListRoundsStatus.SETTLED, limit=200
    )
    assert round_.id in {item.id for item in page.items}
    wallets = generated.op("wallets", "list_wallets").sync(player_id=created.id, client=player)
    assert [(w.currency, w.balance) for w in wallets] == [("EUR", decided.balance_after)]

    invalid = place_bet.sync(
        client=player, body=m.Bet(table_id="classic", ante=-100), idempotency_key="k"
    )
    assert isinstance(invalid, m.Problem)
    assert invalid.code == m.ProblemCode.VALIDATION_FAILED
    assert list(invalid.errors.additional_properties) == ["ante"]
