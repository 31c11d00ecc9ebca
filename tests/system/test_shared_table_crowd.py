"""Issue 22's first "Done when", whole, on PostgreSQL: two browsers and fifty API clients at
one shared table, as production runs it (gunicorn, the event server, two ``casino dealer``
processes).

The browsers (Debian's Chromium) are players launched on /play/live/?table=… and bet through
the page; the fifty clients are players with game-session tokens that follow the table on
the event server and bet through the API every round. The table's chain is the test's
choice, so the test knows its shoe: one deck (its seed is revealed within minutes), and a
tie in round 3 on which the browsers and the clients bet. There one browser goes to war and
the other surrenders, the clients go to war, surrender or let the window close; meanwhile
the dealer holding the table is killed with -9, and the other takes the table over and
completes the round, once. The shoe is played to its cut card. Afterwards: every balance is
its deposit plus what the ledger's shared transactions moved, which is what the re-dealt
shoe pays; ``casino audit`` passes; ``casino export`` verifies with the standalone verifier
run alone, every bet re-dealt and re-settled from the revealed seed.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.remote.webdriver import WebDriver

from casino.api.schemas_tables import engine_rules
from casino.audit_export import casino_audit_export
from casino.engine.casino_war import TableRules
from casino.engine.shared import HashChain, SharedShoe, settle_bet
from casino.service.shared.dealer import _engine_bet
from casino.service.shared.tables import CHAIN_LENGTH, shoe_of
from casino.store.database import Database
from harness import pg
from harness.invariants import run_audit
from harness.sealer import casino_command, new_record, sealer_environment
from harness.server import GunicornInstance, free_port, harness_public_key
from tests.browser.helpers import OPERATOR_TOKEN, Operator, missing_browser, start_chromium
from tests.browser.helpers import wait_for as wait_in_page
from tests.browser.live_helpers import balance_shown
from tests.services import missing
from tests.system.crowd_players import PATIENCE, Browser, Client
from tests.system.shared_table_helpers import (
    PUBLIC_VALUE,
    REPO,
    SameOrigin,
    repeated_money,
    shared_ledger_nets,
    start_dealer,
    table_state,
    use_chain,
    wait_for,
    wait_for_port,
)

pytestmark = [pytest.mark.postgres]

TABLE = "crowd"
CLIENTS = 50
DEPOSIT = 100_000
RULES = {
    "decks": 1,
    "min_ante": 100,  # the browsers' stake: the page starts at the minimum
    "bet_increment": 100,
    "decision_seconds": 10,
    "war_ties": "bonus",
    "surrender_allowed": True,
}
SHARED = {"betting_seconds": 5, "pause_seconds": 1}
#: The chain's secret, found by trying "crowd 0", "crowd 1" …: its shoe 1 deals 9 rounds
#: (one deck), ties in rounds 3 and 6 (the test checks it). Round 3 is the crowd's tie;
#: nobody bets on round 6, a tie dealt through with nobody to decide.
CHAIN_SECRET = hashlib.sha256(b"crowd 2313").digest()
TIED = 3
BROWSER_ROUNDS = (2, TIED)


@pytest.fixture
def url() -> Iterator[str]:
    with pg.scratch_database("crowd") as db:
        pg.migrate(db.url)
        yield db.url


@pytest.fixture
def browsers(tmp_path: Path) -> Iterator[list[WebDriver]]:
    reason = missing_browser()
    if reason is not None:
        missing(reason, "CASINO_REQUIRE_BROWSER")
    drivers: list[WebDriver] = []
    try:
        for name in ("ada", "bob"):
            drivers.append(start_chromium(tmp_path / f"chromium-{name}"))
        yield drivers
    finally:
        for driver in drivers:
            driver.quit()


@pytest.fixture
def servers(url: str, tmp_path: Path) -> Iterator[tuple[GunicornInstance, int, SameOrigin]]:
    """gunicorn (production's app), the event server (``casino events``) beside it, and the
    reverse proxy that serves both on one origin to the browsers."""
    web = GunicornInstance(url, [OPERATOR_TOKEN], workers=2, threads=8)
    web.start()
    port = free_port()
    log = (tmp_path / "events.log").open("wb")
    events = subprocess.Popen(
        [*casino_command(), "events", "--port", str(port)],
        cwd=REPO,
        env=web.environment(),
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for_port(port, 60, "the event server")
        proxy = SameOrigin(web.port, port)
        yield web, port, proxy
        proxy.close()
    finally:
        events.terminate()
        events.wait(15)
        log.close()
        web.stop()


def the_shoe(rules: TableRules) -> tuple[HashChain, SharedShoe, list[int]]:
    """The chain, its shoe 1, and the rounds the clients bet on (all but the other ties)."""
    chain = HashChain(CHAIN_SECRET, CHAIN_LENGTH)
    shoe = SharedShoe.deal(chain.seed(1), PUBLIC_VALUE, 1, rules)
    numbers = range(1, len(shoe.rounds) + 1)
    ties = [n for n in numbers if shoe.round(n).is_tie]
    assert ties[0] == TIED and not any(shoe.round(n).is_tie for n in BROWSER_ROUNDS[:-1])
    return chain, shoe, [n for n in numbers if n == TIED or n not in ties]


def new_player(operator: Operator) -> str:
    player = str(operator.create_player()["id"])
    operator.deposit(player, DEPOSIT)
    return player


def test_two_browsers_and_fifty_clients_through_ties_and_a_dealer_killed(
    url: str,
    browsers: list[WebDriver],  # first: without a browser the test skips (or fails) at once
    servers: tuple[GunicornInstance, int, SameOrigin],
    tmp_path: Path,
) -> None:
    started = time.monotonic()
    web, events_port, proxy = servers
    operator = Operator(web.base_url)
    body = {"id": TABLE, "currency": "EUR", "mode": "shared", "shared": SHARED, "rules": RULES}
    table = operator.call("POST", "/api/v1/tables", body)
    rules = TableRules.from_dict(engine_rules(table["rules"]))
    chain, shoe, client_rounds = the_shoe(rules)
    use_chain(url, chain, TABLE)
    with ThreadPoolExecutor(8) as pool:
        players = list(pool.map(lambda _: new_player(operator), range(CLIENTS + 2)))
        tokens = list(pool.map(lambda p: operator.session_token(p, TABLE), players[:CLIENTS]))
    in_browsers = players[CLIENTS:]
    clients = [
        Client(n, web.base_url, events_port, TABLE, players[n], tokens[n], client_rounds)
        for n in range(CLIENTS)
    ]
    database = Database.open(url)
    dealers_log = tmp_path / "dealers.log"
    dealers: dict[str, subprocess.Popen[bytes]] = {}
    pages: list[Browser] = []
    killed: tuple[str, float] | None = None
    survivor = None
    try:
        for client in clients:  # following before the first event: none is missed
            client.start()
        wait_for(
            lambda: all(c.stream is not None or c.errors for c in clients), PATIENCE, "followers"
        )
        dealers = {name: start_dealer(url, name, dealers_log) for name in ("dealer-a", "dealer-b")}
        wait_for(lambda: table_state(database, TABLE)[0].get("round"), PATIENCE, "round 1")
        for player, driver, action in zip(in_browsers, browsers, ("war", "surrender"), strict=True):
            launch = operator.launch(player, TABLE)["launch_url"]
            assert launch.startswith(f"/play/live/?table={TABLE}#code="), launch
            pages.append(Browser(driver, proxy.base_url + launch, action, [*BROWSER_ROUNDS]))
        for page in pages:
            page.start()

        # Mid-round: the tied round waits for decisions; kill -9 the dealer dealing it.
        _, holder = wait_for(
            lambda: (
                (s := table_state(database, TABLE))[0].get("round") == TIED
                and s[0].get("phase") == "decisions"
                and s
            ),
            PATIENCE,
            f"round {TIED}'s decisions",
        )
        assert holder in dealers
        dealers[holder].send_signal(signal.SIGKILL)
        dealers[holder].wait(10)
        killed = (holder, time.monotonic())
        survivor = next(name for name in dealers if name != holder)
        wait_for(lambda: table_state(database, TABLE)[1] == survivor, PATIENCE, "the takeover")
        takeover = time.monotonic() - killed[1]
        for page in pages:
            page.join(PATIENCE)
        # The cut card: the shoe ends, its seed is revealed with shoe 2's first round.
        wait_for(lambda: table_state(database, TABLE)[0].get("shoe") == 2, 240, "shoe 2")
        assert table_state(database, TABLE)[1] == survivor
        for client in clients:
            client.join(PATIENCE)
        for player, page in zip(in_browsers, pages, strict=True):
            final = operator.balance(player)
            wait_in_page(page.driver, lambda d, f=final: balance_shown(d) == f, "stale balance")
            follow = page.driver.execute_script("return document.body.dataset.follow")
            assert follow == "events", "the page fell back to polling"
        # The pages followed on the event server, each on a stream held open (the API's
        # bursts would have made one a second).
        assert len(pages) <= proxy.streams <= 2 * len(pages)
    except BaseException:
        for name in ("dealers.log", "events.log"):
            print(f"--- {name}\n" + (tmp_path / name).read_text(errors="replace")[-4000:])
        raise
    finally:
        for client in clients:
            client.stop()
        for process in dealers.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                process.wait(15)
    played = time.monotonic() - started

    assert [e for p in pages for e in p.errors] == []
    assert [e for c in clients for e in c.errors] == []
    assert not any(c.is_alive() for c in [*clients, *pages])
    assert [p.bets[-1] for p in pages] == [TIED, TIED]
    with database.unit_of_work("default") as uow:
        events = uow.shared.events_after(TABLE, 0, 10_000)
        record = uow.shared.get(TABLE)
        assert record is not None
        stored = shoe_of(record, 1, rules)
        numbers = range(1, len(shoe.rounds) + 1)
        bets = [b for n in numbers for b in uow.shared.round_bets(TABLE, 1, n)]
    database.dispose()
    assert stored.order == shoe.order  # the test's chain, as it planned
    assert [e["id"] for e in events] == list(range(1, len(events) + 1))
    # Nothing dealt, decided or settled twice: one event of a kind per round.
    per_round = Counter((e["shoe"], e["round"], e["type"]) for e in events)
    assert max(per_round.values()) == 1, per_round.most_common(3)
    for kind in ("cards", "decisions_due", "war", "results"):
        assert per_round[(1, TIED, kind)] == 1, kind
    revealed = next(e for e in events if e["type"] == "shoe_changed" and e["shoe"] == 2)
    assert revealed["data"]["previous"]["seed"] == chain.seed(1).hex()
    assert repeated_money(url) == []  # no stake, raise or payment twice

    # Every bet the clients were told was taken is stored, and settled as the cards pay.
    placed = Counter(b.player_id for b in bets)
    for client in clients:
        assert placed[client.player] == len(client.bets)
    for player, page in zip(in_browsers, pages, strict=True):
        assert placed[player] == len(page.bets)
    nets: Counter[str] = Counter()
    for bet in bets:
        assert bet.status == "settled"
        assert settle_bet(rules, shoe.round(bet.round), _engine_bet(bet)).net == bet.net
        nets[bet.player_id] += bet.net or 0
    tied = {b.player_id: (b.decision, b.decided_by) for b in bets if b.round == TIED}
    assert [tied[p] for p in in_browsers] == [("war", "player"), ("surrender", "player")]
    by_clients = Counter(tied[c.player] for c in clients if TIED in c.bets)
    assert by_clients[("war", "player")] and by_clients[("surrender", "player")]
    assert by_clients[("surrender", "timeout")]
    ledger = shared_ledger_nets(url)
    for player in players:
        assert ledger.get(player, 0) == nets[player]
        assert operator.balance(player) == DEPOSIT + nets[player]

    audit = run_audit(url)
    assert audit.ok, audit.output
    assert "shared_rounds_replay" in audit.output
    summary = verify_export_alone(url, tmp_path)
    assert summary["ok"], [c for c in summary["checks"] if not c["ok"]]
    shared = summary["shared"]
    assert shared["shoes_revealed"] == 1 and shared["not_verifiable"] == 0
    assert shared["bets"] == shared["redealt"] == len(bets)
    missed = sum(len(c.missed) for c in clients)
    print(
        f"{len(bets)} bets in {len(client_rounds)} rounds ({missed} too late; on the tie "
        f"{dict(by_clients)}), the pages placed theirs with {[p.left for p in pages]} s left; "
        f"{killed[0] if killed else None} killed in round {TIED}, takeover {takeover:.1f}s; "
        f"{proxy.streams} event streams through the proxy; "
        f"played in {played:.0f}s, checked in {time.monotonic() - started - played:.0f}s"
    )


def verify_export_alone(url: str, tmp_path: Path) -> dict[str, Any]:
    """``casino export``, then the standalone verifier copied alone and run by an isolated
    interpreter (no project package, no site-packages), with the sealer's public key."""
    alone = tmp_path / "auditor"
    alone.mkdir()
    exported = subprocess.run(
        [*casino_command(), "export", "--output", str(alone / "export.ndjson")],
        cwd=REPO,
        env=sealer_environment(url, new_record()),
        capture_output=True,
        text=True,
        timeout=PATIENCE,
    )
    assert exported.returncode == 0, exported.stderr
    shutil.copy(casino_audit_export.__file__, alone / "casino_audit_export.py")
    alone_python = [sys.executable, "-I", "-S", "casino_audit_export.py"]
    verified = subprocess.run(
        [*alone_python, "export.ndjson", "--json", "--key", harness_public_key()],
        cwd=alone,
        env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        capture_output=True,
        text=True,
        timeout=PATIENCE,
    )
    assert verified.stdout, verified.stderr
    return dict(json.loads(verified.stdout))
