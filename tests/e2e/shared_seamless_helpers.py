"""A seamless operator's shared table, for the e2e tests: the reference wallet, operator
``acme`` (seamless) with a shared table ``live``, players launched at it, and a dealer on
the test's clock."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
from flask import Flask

from casino.api.database import EXTENSION_KEY
from casino.engine.shared import ShoeRound
from casino.service.reconciliation import compare, read_theirs
from casino.service.wallet_outbox import run_once
from casino.store.uow import UnitOfWork
from casino.store.wallet_call_records import WalletCallRecord
from casino.wallet.demo import DemoWalletServer, build_server
from casino.wallet.demo.server import csv_text

from .helpers import Api, Player, new_key
from .protection_helpers import Clock
from .seamless_helpers import FUNDS, SECRET
from .shared_helpers import DriveDealer, create_shared_table

ROUND = "/api/v1/tables/live/round"
#: Every call's creation time lies within.
EVER = (datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC))


@dataclass
class SharedSeamless:
    api: Api
    app: Flask
    wallet: DemoWalletServer
    auth: dict[str, str]
    dealer: DriveDealer
    clock: Clock
    sessions: dict[str, str] = field(default_factory=dict)

    def launch(self, ref: str, funds: int = FUNDS) -> Player:
        self.wallet.wallet.store.create_account(ref, "EUR", funds)
        body = {"player": ref, "currency": "EUR", "table_id": "live", "operator_session": "s-1"}
        made = self.api.post("/api/v1/sessions", body, auth=self.auth)
        assert made.status_code == 201, made.get_json()
        launched = made.get_json()
        assert launched["launch_url"].startswith("/play/live/")
        exchanged = self.api.post("/api/v1/sessions/exchange", {"code": launched["launch_code"]})
        assert exchanged.status_code == 200, exchanged.get_json()
        return Player(launched["player_id"], exchanged.get_json()["token"], ref)

    def operator_balance(self, ref: str) -> int:
        account = self.wallet.wallet.store.account(ref, "EUR")
        assert account is not None
        return int(account.balance)

    def bet(self, who: Player, ante: int, tie_bet: int = 0) -> Any:
        body = {"ante": ante, "tie_bet": tie_bet}
        return self.api.post(f"{ROUND}/bets", body, auth=who.auth, key=new_key())

    def decide(self, who: Player, action: str, war_tie_bet: int = 0) -> Any:
        body = {"action": action, "war_tie_bet": war_tie_bet}
        return self.api.post(f"{ROUND}/decision", body, auth=who.auth, key=new_key())

    def uow(self) -> UnitOfWork:
        return self.app.extensions[EXTENSION_KEY].unit_of_work("acme")

    def calls(self, who: Player) -> list[WalletCallRecord]:
        """The player's wallet calls, oldest first."""
        with self.uow() as uow:
            found = list(uow.wallet_calls.day_calls(EVER[0], EVER[1]))
        return [c for c in found if c.player_id == who.id]

    def call_states(self) -> dict[str, int]:
        """How many of the operator's wallet calls are in each state."""
        with self.uow() as uow:
            return {state: n for (_operator, state), n in uow.wallet_calls.states().items()}

    def mirror(self, who: Player) -> list[tuple[str, int]]:
        with self.uow() as uow:
            return uow.ledger.balances(who.id)

    def to_round(self, winner: str) -> tuple[dict[str, Any], ShoeRound]:
        """Deal empty rounds until the one taking bets has ``winner`` on its first cards."""
        for _ in range(300):
            state = self.dealer.state()
            if state["phase"] == "betting":
                dealt = self.dealer.shoe(state["shoe"]).round(state["round"])
                if dealt.winner == winner:
                    return state, dealt
            self.clock.advance(seconds=15)
            self.dealer.run()
        raise AssertionError(f"no round won by {winner} in 300")


def close_and_settle(table: SharedSeamless) -> list[str]:
    """Betting closed, the cards, any decision window and war: the round settled."""
    table.clock.advance(seconds=10)
    steps = table.dealer.run()
    for _ in range(3):  # a tie: the decision window, then the war
        if "settle" in steps:
            break
        table.clock.advance(seconds=10)
        steps += table.dealer.run()
    assert "settle" in steps, steps
    return steps


def reconciliation(table: SharedSeamless) -> dict[str, Any]:
    """The operator's reconciliation of the test's day, in EUR."""
    day = table.clock.now.date().isoformat()
    path = f"/api/v1/operators/acme/reconciliation?date={day}"
    answer = table.api.get(path, auth=table.auth)
    assert answer.status_code == 200, answer.get_json()
    (eur,) = answer.get_json()["currencies"]
    return dict(eur)


def agrees_with_wallet(table: SharedSeamless) -> None:
    """Our calls of the day against the wallet's own records: no difference."""
    rows = table.wallet.wallet.store.export_rows()
    theirs = read_theirs(csv_text(rows).splitlines())
    with table.uow() as uow:
        assert compare(uow, table.clock.now.date().isoformat(), theirs) == []


def void_round(table: SharedSeamless) -> list[str]:
    """No dealer for 6 minutes: the round taking bets or decisions is void."""
    table.clock.advance(minutes=6)
    steps = table.dealer.run()
    assert "void" in steps, steps
    return steps


def run_worker(table: SharedSeamless) -> int:
    """One pass of ``casino wallet-worker`` on the test's clock; the calls it sent."""

    def open_uow(operator: str | None) -> UnitOfWork:
        return table.dealer.database.unit_of_work(operator)

    return run_once(open_uow)


@pytest.fixture(name="shared_seamless")
def shared_seamless_fixture(
    capi: Api, clocked_app: Flask, clock: Clock, database_url: str
) -> Iterator[SharedSeamless]:
    server = build_server([SECRET.encode()], ":memory:")
    server.start()
    dealer = DriveDealer(database_url, clock, operator="acme")
    try:
        made = capi.post(
            "/api/v1/operators",
            {
                "id": "acme",
                "name": "Acme",
                "currencies": ["EUR"],
                "wallet": {"mode": "seamless", "url": server.url, "secret": SECRET},
            },
            auth=capi.platform_auth,
        )
        assert made.status_code == 201, made.get_json()
        auth = {"Authorization": f"Bearer {made.get_json()['token']}"}
        create_shared_table(capi, "live", auth=auth)
        assert dealer.run() == ["open_table"]
        yield SharedSeamless(capi, clocked_app, server, auth, dealer, clock)
    finally:
        dealer.close()
        server.stop()
