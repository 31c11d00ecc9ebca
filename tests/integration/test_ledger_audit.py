"""Many rounds through the real dealing path, then the audit; and tampering it must catch."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from sqlalchemy import Engine, text

from casino.cli import main as cli
from casino.engine.fairness import deal
from casino.ledger.audit import AuditReport, format_report, run_audit
from casino.service import rounds, seeds, wallets

from .conftest import Svc, is_tie, tie_then


def audit(svc: Svc) -> AuditReport:
    with svc.uow() as uow:
        return run_audit(uow.session)


def failed(report: AuditReport) -> set[str]:
    return {check.name for check in report.checks if not check.ok}


def play_session(svc: Svc, pid: str, count: int) -> tuple[int, int]:
    """``count`` rounds with forced ties every few rounds; returns (sum of nets, ties)."""
    total = ties = 0
    plans = [is_tie, tie_then("win"), tie_then("tie"), tie_then("lose")]
    for i in range(count):
        tables = ("classic", "bonus", "single-deck")[i % 3]
        decks = 1 if tables == "single-deck" else 6
        if i % 4 == 0:
            svc.steer(pid, plans[(i // 4) % len(plans)], decks)
        else:
            svc.run(seeds.set_client_seed, pid, f"free-{i}")
        view = svc.run(rounds.place_bet, pid, tables, 100 * (1 + i % 5), 100 * (i % 2))
        if view.status == "awaiting_decision":
            ties += 1
            action = "surrender" if i % 8 == 4 else "war"
            view = svc.run(rounds.decide, view.id, action, player_id=pid)
        assert view.status == "settled"
        total += view.net
    return total, ties


def test_balance_is_deposits_plus_nets_and_audit_is_clean(svc: Svc, demo_tables: list[str]) -> None:
    pid = svc.player(funds=100_000)
    svc.run(wallets.deposit, pid, "EUR", 50_000, "second deposit")
    svc.run(wallets.withdraw, pid, "EUR", 20_000, "cash out")
    nets, ties = play_session(svc, pid, 60)
    assert ties >= 15
    assert svc.balance(pid) == 100_000 + 50_000 - 20_000 + nets
    with svc.uow() as uow:
        listed = rounds.list_rounds(uow, pid, None, None, 200).items
    assert sum(r.net for r in listed) == nets and len(listed) == 60
    assert {r.decision["action"] for r in listed if r.decision} == {"war", "surrender"}
    report = audit(svc)
    assert report.ok, format_report(report)
    assert "60 rounds" in next(c.detail for c in report.checks if c.name == "rounds_replay")


def test_open_round_counts_as_in_play(svc: Svc, demo_tables: list[str]) -> None:
    pid = svc.player(funds=10_000)
    svc.steer(pid, is_tie)
    svc.run(rounds.place_bet, pid, "classic", 700, 100)
    report = audit(svc)
    assert report.ok, format_report(report)
    check = next(c for c in report.checks if c.name == "in_play_matches_open_stakes")
    assert "700" in check.detail


@pytest.fixture
def played(svc: Svc, demo_tables: list[str]) -> str:
    pid = svc.player(funds=50_000)
    play_session(svc, pid, 12)
    assert audit(svc).ok
    return pid


def tx(seq: int) -> str:
    """SQL for the id of the transaction at chain position ``seq``."""
    return f"(SELECT id FROM ledger_transactions WHERE seq = {seq})"


def raw(engine: Engine, *statements: str) -> None:
    with engine.begin() as conn:
        for statement in statements:
            conn.execute(text(statement))


def test_audit_catches_an_edited_posting(svc: Svc, engine: Engine, played: str) -> None:
    raw(
        engine,
        f"UPDATE postings SET amount = amount + 7 WHERE transaction_id = {tx(3)} AND leg = 0",
    )
    assert {"transactions_balanced", "hash_chain"} <= failed(audit(svc))


def test_audit_catches_a_balanced_edit(svc: Svc, engine: Engine, played: str) -> None:
    """Moving money between two legs keeps the sums right; only the chain can tell."""
    raw(
        engine,
        f"UPDATE postings SET amount = amount - 50 WHERE transaction_id = {tx(1)} AND leg = 0",
        f"UPDATE postings SET amount = amount + 50 WHERE transaction_id = {tx(1)} AND leg = 1",
        "UPDATE accounts SET balance = balance - 50 WHERE id = "
        f"(SELECT account_id FROM postings WHERE transaction_id = {tx(1)} AND leg = 0)",
        "UPDATE accounts SET balance = balance + 50 WHERE id = "
        f"(SELECT account_id FROM postings WHERE transaction_id = {tx(1)} AND leg = 1)",
    )
    assert failed(audit(svc)) == {"hash_chain"}


def test_audit_catches_a_deleted_transaction(svc: Svc, engine: Engine, played: str) -> None:
    raw(
        engine,
        f"DELETE FROM postings WHERE transaction_id = {tx(5)}",
        "DELETE FROM ledger_transactions WHERE seq = 5",
    )
    assert "hash_chain" in failed(audit(svc))


def test_audit_catches_a_deleted_last_transaction(svc: Svc, engine: Engine, played: str) -> None:
    with engine.connect() as conn:
        last = conn.execute(
            text("SELECT id FROM ledger_transactions ORDER BY seq DESC LIMIT 1")
        ).scalar_one()
    raw(
        engine,
        f"DELETE FROM postings WHERE transaction_id = {last}",
        f"DELETE FROM ledger_transactions WHERE id = {last}",
    )
    assert "hash_chain" in failed(audit(svc))


def test_audit_catches_an_edited_round(svc: Svc, engine: Engine, played: str) -> None:
    raw(
        engine,
        "UPDATE rounds SET net = net + 100, ante_payout = ante_payout + 100 "
        "WHERE id = (SELECT min(id) FROM rounds)",
    )
    assert "rounds_replay" in failed(audit(svc))


def test_audit_catches_a_changed_seed(svc: Svc, engine: Engine, played: str) -> None:
    with engine.connect() as conn:
        round_id, nonce, decks, cards, server_seed = conn.execute(
            text(
                "SELECT r.id, r.nonce, r.rules, r.player_card || '/' || r.dealer_card, s.seed"
                " FROM rounds r JOIN server_seeds s ON s.id = r.server_seed_id"
                " ORDER BY r.id LIMIT 1"
            )
        ).one()
    decks = (decks if isinstance(decks, dict) else json.loads(decks))["decks"]
    # A forged seed that happens to deal the same two cards (about 1 in 2,700) would be a
    # forgery nobody can see; pick one that changes the cards, so the test cannot flake.
    forged = next(
        seed
        for seed in (f"forged-{k}" for k in range(100))
        if "/".join(c.code for c in deal(bytes(server_seed), seed, int(nonce), 2, decks=decks))
        != cards
    )
    raw(engine, f"UPDATE rounds SET client_seed = '{forged}' WHERE id = '{round_id}'")
    assert "rounds_replay" in failed(audit(svc))


def test_audit_catches_a_cached_balance_edit(svc: Svc, engine: Engine, played: str) -> None:
    raw(engine, f"UPDATE accounts SET balance = balance + 1 WHERE player_id = '{played}'")
    assert {"balances_match_postings", "currencies_balanced"} <= failed(audit(svc))


def test_audit_command_exit_codes(svc: Svc, engine: Engine, db_url: str, played: str) -> None:
    runner = CliRunner()
    ok = runner.invoke(cli, ["audit", "--database-url", db_url])
    assert ok.exit_code == 0, ok.output
    assert "all checks passed" in ok.output and "hash_chain" in ok.output
    raw(engine, f"UPDATE postings SET amount = amount * 2 WHERE transaction_id = {tx(2)}")
    bad = runner.invoke(cli, ["audit", "--database-url", db_url])
    assert bad.exit_code == 1
    assert "FAIL" in bad.output
