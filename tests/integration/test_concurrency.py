"""Many threads betting on one wallet funded for fewer bets than they try.

Cards depend only on (server seed, client seed, nonce), nonces are handed out one per
accepted bet, and a new bet waits for the open round to be decided, so the sequence of
accepted rounds is known in advance: the test picks a client seed under which the wallet runs
dry after a few bets and checks the service lands exactly there, whatever the interleaving.
"""

from __future__ import annotations

import threading

from sqlalchemy import func, select

from casino.engine.casino_war import CasinoWarRound, TableRules, deal_casino_war
from casino.ledger.audit import format_report
from casino.service import rounds, seeds
from casino.service.demo import DEMO_TABLES
from casino.service.errors import Conflict
from casino.store.models import LedgerTransaction, Round

from .conftest import Svc

THREADS = 20
BETS_PER_THREAD = 10
ANTE = 1000
FUNDS = 5000


def simulate(server_seed: bytes, client_seed: str, rules: TableRules) -> tuple[int, int]:
    """(accepted bets, final balance) when betting ANTE until the wallet cannot pay."""
    balance, nonce = FUNDS, 0
    while balance >= ANTE and nonce < THREADS * BETS_PER_THREAD:
        game = CasinoWarRound.start(
            rules, deal_casino_war(server_seed, client_seed, nonce, rules.decks), ANTE
        )
        if game.status.value == "awaiting_decision":
            game.decide("surrender")
        balance += game.result.net
        nonce += 1
    return nonce, balance


def hammer(svc: Svc, pid: str) -> tuple[list[str], list[str], list[str]]:
    """Run the bettors, with an auditor reading the books all along; returns the accepted
    round ids, the refusal codes and the audit failures seen meanwhile."""
    accepted: list[str] = []
    refusals: list[str] = []
    audit_failures: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(THREADS + 1)
    done = threading.Event()
    audits: list[bool] = []

    def auditor() -> None:
        start.wait()
        while not done.is_set():
            report = svc.audit()
            audits.append(report.ok)
            if not report.ok:
                audit_failures.append(format_report(report))
            done.wait(0.05)  # leave the writers room (on SQLite the audit holds the lock)

    def worker() -> None:
        start.wait()
        for _ in range(BETS_PER_THREAD):
            try:
                view = svc.run(rounds.place_bet, pid, "classic", ANTE)
                if view.status == "awaiting_decision":
                    svc.run(rounds.decide, view.id, "surrender", player_id=pid)
                with lock:
                    accepted.append(view.id)
            except Conflict as exc:
                with lock:
                    refusals.append(exc.code)

    threads = [threading.Thread(target=worker) for _ in range(THREADS)]
    watcher = threading.Thread(target=auditor)
    watcher.start()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    done.set()
    watcher.join(120)
    assert audits, "the auditor never completed a pass"
    return accepted, refusals, audit_failures


def test_one_wallet_many_threads(svc: Svc, demo_tables: list[str]) -> None:
    pid = svc.player(funds=FUNDS)
    server_seed, _ = svc.active_seed(pid)
    rules = DEMO_TABLES["classic"]
    for i in range(10_000):
        client_seed = f"dry-{i}"
        expected_bets, expected_balance = simulate(server_seed, client_seed, rules)
        if 8 <= expected_bets <= 20:
            break
    svc.run(seeds.set_client_seed, pid, client_seed)

    accepted, refusals, audit_failures = hammer(svc, pid)

    assert audit_failures == []  # the books balance at every commit, seen from outside
    assert len(accepted) == expected_bets
    assert svc.balance(pid) == expected_balance >= 0
    assert "insufficient_funds" in refusals
    assert set(refusals) <= {"insufficient_funds", "round_in_progress"}
    assert len(accepted) + len(refusals) == THREADS * BETS_PER_THREAD
    with svc.uow() as uow:
        session = uow.session
        stored = set(session.scalars(select(Round.id).where(Round.player_id == pid)))
        # One transaction opens each round: a bet settled at once, or the stake of a tie.
        staked = session.scalar(
            select(func.count()).where(
                LedgerTransaction.kind.in_(["bet", "stake"]),
                LedgerTransaction.round_id.in_(accepted),
            )
        )
    report = svc.audit()
    assert stored == set(accepted) and staked == len(accepted)
    assert report.ok, format_report(report)
