"""Fifty API clients at one shared table (issue 22's "Done when", CI-sized): they bet every
round, go to war, surrender or let the clock surrender for them on ties; the dealer holding
the table is killed with -9 in the middle of the tied round and the other dealer completes
it, once. Afterwards every balance is what the shoe's cards pay, ``casino audit`` passes, and
the standalone verifier accepts the export."""

from __future__ import annotations

import hashlib
import random
import signal
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from casino import create_app
from casino.audit_export import casino_audit_export as verifier
from casino.engine.casino_war import TableRules
from casino.engine.shared import HashChain, SharedShoe, settle_bet
from casino.ledger.checkpoints import SigningKey
from casino.service.export import export
from casino.service.shared.dealer import _engine_bet
from casino.service.shared.tables import CHAIN_LENGTH, shoe_of
from casino.store.database import Database
from harness import pg
from harness.invariants import run_audit
from harness.server import HARNESS_SIGNING_KEY
from tests.e2e.helpers import Api, Player, make_config, new_key
from tests.system.shared_table_helpers import (
    PUBLIC_VALUE,
    start_dealer,
    table_state,
    use_chain,
    wait_for,
)

pytestmark = [pytest.mark.postgres]

CLIENTS = 50
ROUNDS = 4  # rounds of the shoe played; the chain is chosen so that one of them ties
DEPOSIT = 10_000
RULES = {"min_ante": 10, "bet_increment": 10, "decision_seconds": 5, "war_ties": "bonus"}


@pytest.fixture
def url() -> Iterator[str]:
    with pg.scratch_database("sharedplay") as db:
        pg.migrate(db.url)
        yield db.url


def chain_with_a_tie() -> tuple[HashChain, int]:
    """A chain whose shoe 1 deals a tie in round 2 or 3 (a test's choice of secret)."""
    rules = TableRules.from_dict({**RULES, "decks": 8, "surrender_allowed": True})
    for n in range(1000):
        chain = HashChain(hashlib.sha256(f"system {n}".encode()).digest(), CHAIN_LENGTH)
        shoe = SharedShoe.deal(chain.seed(1), PUBLIC_VALUE, 1, rules)
        ties = [r for r in (2, 3) if shoe.round(r).is_tie]
        if ties:
            return chain, ties[0]
    raise AssertionError("no chain found")


class Client(threading.Thread):
    """Bets each round; on a tie wars, surrenders or leaves it to the clock (by index)."""

    def __init__(self, api: Api, player: Player, index: int, done: threading.Event) -> None:
        super().__init__(daemon=True)
        self.api, self.player, self.index, self.done = api, player, index, done
        self.rng = random.Random(index)
        self.errors: list[str] = []
        self.bet_rounds: set[int] = set()

    def run(self) -> None:
        try:
            self._play()
        except Exception as exc:  # reported by the test
            self.errors.append(repr(exc))

    def _play(self) -> None:
        decided: set[int] = set()
        while not self.done.is_set():
            view = self.api.get("/api/v1/tables/live/round", auth=self.player.auth).get_json()
            number, phase = view.get("round"), view.get("phase")
            if phase == "betting" and number <= ROUNDS and number not in self.bet_rounds:
                body = {"ante": 10 * self.rng.randint(1, 5)}
                if self.index % 4 == 0:
                    body["tie_bet"] = 10
                answer = self.api.post(
                    "/api/v1/tables/live/round/bets", body, auth=self.player.auth, key=new_key()
                )
                if answer.status_code == 201:
                    self.bet_rounds.add(number)
                elif answer.get_json().get("code") != "betting_closed":
                    self.errors.append(f"bet: {answer.get_json()}")
            mine = view.get("my_bet") or {}
            if phase == "decisions" and mine.get("awaiting_decision") and number not in decided:
                decided.add(number)
                action = ("war", "surrender", None)[self.index % 3]
                if action is not None:
                    answer = self.api.post(
                        "/api/v1/tables/live/round/decision",
                        {"action": action},
                        auth=self.player.auth,
                        key=new_key(),
                    )
                    if answer.status_code != 200:
                        self.errors.append(f"decision: {answer.get_json()}")
            time.sleep(0.1)


def test_fifty_clients_ties_wars_surrenders_and_a_dealer_killed(url: str, tmp_path: Path) -> None:
    app = create_app(make_config(url))
    api = Api(app.test_client())
    body = {
        "id": "live",
        "currency": "EUR",
        "mode": "shared",
        "shared": {"betting_seconds": 5, "pause_seconds": 1},
        "rules": RULES,
    }
    assert api.post("/api/v1/tables", body, auth=api.operator_auth).status_code == 201
    chain, tied_round = chain_with_a_tie()
    use_chain(url, chain)
    players = []
    for _ in range(CLIENTS):
        someone = api.create_player()
        api.deposit(someone, DEPOSIT)
        players.append(someone)
    database = Database.open(url)
    log = tmp_path / "dealers.log"
    dealers = {name: start_dealer(url, name, log) for name in ("dealer-a", "dealer-b")}
    done = threading.Event()
    clients = [Client(Api(app.test_client()), p, n, done) for n, p in enumerate(players)]
    killed = None
    try:
        for client in clients:
            client.start()
        # Mid-round: the tied round waits for decisions; kill -9 whoever deals it.
        _, holder = wait_for(
            lambda: (
                (s := table_state(database))[0].get("round") == tied_round
                and s[0].get("phase") == "decisions"
                and s
            ),
            90,
            "the tied round's decisions",
        )
        time.sleep(1.0)  # the clients decide meanwhile
        dealers[holder].send_signal(signal.SIGKILL)
        dealers[holder].wait(10)
        killed = holder
        wait_for(
            lambda: table_state(database)[0].get("round", 0) > ROUNDS,
            90,
            f"round {ROUNDS} settled",
        )
    finally:
        done.set()
        for client in clients:
            client.join(10)
        for process in dealers.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                process.wait(10)
    assert killed is not None
    assert [e for c in clients for e in c.errors] == []
    with database.unit_of_work("default") as uow:
        events = uow.shared.events_after("live", 0, 10_000)
        record = uow.shared.get("live")
        assert record is not None
        rules = TableRules.from_dict(uow.shared.shoes("live")[0]["rules"])
        shoe = shoe_of(record, 1, rules)
        bets = [b for r in range(1, ROUNDS + 1) for b in uow.shared.round_bets("live", 1, r)]
    per_round = Counter((e["shoe"], e["round"], e["type"]) for e in events)
    assert max(per_round.values()) == 1  # nothing dealt or settled twice
    assert per_round[(1, tied_round, "decisions_due")] == 1
    assert per_round[(1, tied_round, "war")] == 1
    decided = Counter((b.decision, b.decided_by) for b in bets if b.round == tied_round)
    assert decided[("war", "player")] and decided[("surrender", "player")]
    assert decided[("surrender", "timeout")]
    assert all(b.status == "settled" for b in bets) and len(bets) >= CLIENTS * (ROUNDS - 1)
    nets: Counter[str] = Counter()
    for bet in bets:
        result = settle_bet(rules, shoe.round(bet.round), _engine_bet(bet))
        assert result.net == bet.net
        nets[bet.player_id] += result.net
    for someone in players:
        assert api.balance(someone) == DEPOSIT + nets[someone.id]
    audit = run_audit(url)
    assert audit.ok, audit.output
    assert "shared_rounds_replay" in audit.output
    key = SigningKey.parse(HARNESS_SIGNING_KEY).verifying
    with database.unit_of_work("default") as uow:
        data = b"".join(export(uow, since=None, until=None, keys=[key]))
    summary = verifier.verify(data.splitlines(keepends=True), [key.raw])
    assert summary["ok"], [c for c in summary["checks"] if not c["ok"]]
    database.dispose()
    print(f"{len(bets)} bets in {ROUNDS} rounds; {killed} killed in round {tied_round}")
