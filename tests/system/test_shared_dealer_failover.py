"""A shared table's dealer killed with -9 mid-round (issue 22): real ``casino dealer``
processes on PostgreSQL. Another dealer takes the table over once the lease runs out and
continues the same round from its stored state: every round is dealt and settled once,
every bet paid once, and the balances are what the shoe's cards pay."""

from __future__ import annotations

import signal
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from casino import create_app
from casino.engine.casino_war import TableRules
from casino.engine.shared import SharedBet, settle_bet
from casino.service.shared.tables import shoe_of
from casino.store.database import Database
from harness import pg
from tests.e2e.helpers import Api, make_config, new_key
from tests.system.shared_table_helpers import repeated_money, start_dealer, table_state, wait_for

pytestmark = [pytest.mark.postgres]

LEASE_SECONDS = 3.0


@pytest.fixture
def url() -> Iterator[str]:
    with pg.scratch_database("dealer") as db:
        pg.migrate(db.url)
        yield db.url


def test_dealer_killed_mid_round_is_replaced(url: str, tmp_path: Path) -> None:
    app: Flask = create_app(make_config(url))
    api = Api(app.test_client())
    body = {
        "id": "live",
        "currency": "EUR",
        "mode": "shared",
        "shared": {"betting_seconds": 5, "pause_seconds": 1},
        "rules": {"min_ante": 10, "bet_increment": 10, "decision_seconds": 5},
    }
    assert api.post("/api/v1/tables", body, auth=api.operator_auth).status_code == 201
    players = []
    for _ in range(20):
        someone = api.create_player()
        api.deposit(someone, 10_000)
        players.append(someone)
    database = Database.open(url)
    log = tmp_path / "dealers.log"
    # Two dealers from the start, as production runs them: one holds the table, the other
    # waits for its lease to run out.
    dealers = {name: start_dealer(url, name, log) for name in ("dealer-a", "dealer-b")}
    try:
        state, holder = wait_for(
            lambda: (s := table_state(database))[0].get("phase") == "betting" and s, 30, "a round"
        )
        assert holder in dealers
        first = dealers[holder]
        other = next(name for name in dealers if name != holder)
        staked = {}
        for n, someone in enumerate(players):
            ante = 10 * (n % 5 + 1)
            answer = api.post(
                "/api/v1/tables/live/round/bets",
                {"ante": ante, "tie_bet": 10 if n % 3 == 0 else 0},
                auth=someone.auth,
                key=new_key(),
            )
            assert answer.status_code == 201, answer.get_json()
            staked[someone.id] = (ante, 10 if n % 3 == 0 else 0)
        # kill -9 while the round takes bets: its close, deal and settlement are the next
        # dealer's.
        first.send_signal(signal.SIGKILL)
        first.wait(10)
        killed_at = time.monotonic()
        wait_for(lambda: table_state(database)[1] == other, 30, "the takeover")
        takeover = time.monotonic() - killed_at
        done = wait_for(
            lambda: (
                (s := table_state(database)[0])["round"] > state["round"] or s["phase"] == "settled"
            ),
            60,
            "the round's settlement",
        )
        assert done
        # The settled round's results (a tie's bettors were surrendered for by the clock).
        wait_for(
            lambda: all(b.status == "settled" for b in bets_of(database, state)),
            30,
            "every bet settled",
        )
    finally:
        for process in dealers.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                process.wait(10)
    print(f"takeover {takeover:.2f}s after kill -9 (lease {LEASE_SECONDS}s)")
    assert takeover < LEASE_SECONDS + 2
    with database.unit_of_work("default") as uow:
        events = uow.shared.events_after("live", 0, 10_000)
        record = uow.shared.get("live")
        rules = TableRules.from_dict(uow.shared.shoes("live")[0]["rules"])
        assert record is not None
        shoe = shoe_of(record, state["shoe"], rules)
    ids = [e["id"] for e in events]
    assert ids == list(range(1, len(ids) + 1))
    per_round = Counter((e["shoe"], e["round"], e["type"]) for e in events)
    assert per_round[(state["shoe"], state["round"], "cards")] == 1
    assert per_round[(state["shoe"], state["round"], "results")] == 1
    assert max(per_round.values()) == 1, per_round.most_common(3)
    dealt = shoe.round(state["round"])
    for someone in players:
        ante, tie = staked[someone.id]
        expected = settle_bet(rules, dealt, SharedBet(someone.id, ante, tie))
        assert api.balance(someone) == 10_000 + expected.net
    assert repeated_money(url) == []  # nobody paid (or charged) twice
    database.dispose()


def bets_of(database: Database, state: dict) -> list:
    with database.unit_of_work("default") as uow:
        return uow.shared.round_bets("live", state["shoe"], state["round"])
