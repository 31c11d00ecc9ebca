"""Many rounds through the real dealing path, then the audit; and tampering it must catch.

Each tampering test works on its own database: a sealed ledger (every transaction in a signed
checkpoint) with some later, unsealed play on top, edited in SQL behind the service's back.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from click.testing import CliRunner
from sqlalchemy import Engine, create_engine, text

from casino.cli import main as cli
from casino.engine.fairness import deal
from casino.ledger.audit import AuditReport, format_report
from casino.ledger.checkpoints import SigningKey, checkpoint_hash
from casino.service import rounds, seeds, wallets
from tests.db_guard import checkpoints_unguarded, tamper

from .conftest import SIGNING_KEY, Svc, is_tie, tie_then


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
    report = svc.audit()
    assert report.ok, format_report(report)
    assert "60 rounds" in next(c.detail for c in report.checks if c.name == "rounds_replay")
    made = svc.seal()
    assert made and made[-1].total_count == 3 + 60 + ties
    report = svc.audit()
    assert report.ok, format_report(report)
    sealed = next(c.detail for c in report.checks if c.name == "checkpoints")
    assert f"{3 + 60 + ties} of {3 + 60 + ties} transactions sealed" in sealed


def test_open_round_counts_as_in_play(svc: Svc, demo_tables: list[str]) -> None:
    pid = svc.player(funds=10_000)
    svc.steer(pid, is_tie)
    svc.run(rounds.place_bet, pid, "classic", 700, 100)
    report = svc.audit()
    assert report.ok, format_report(report)
    check = next(c for c in report.checks if c.name == "in_play_matches_open_stakes")
    assert "700" in check.detail


def test_sealing_is_idempotent_and_rolls_up_the_shared_balances(
    svc: Svc, demo_tables: list[str]
) -> None:
    pid = svc.player(funds=50_000)
    play_session(svc, pid, 8)
    first = svc.seal()
    assert len(first) == 1 and svc.seal() == []  # nothing new: nothing sealed
    play_session(svc, pid, 4)
    (second,) = svc.seal()
    assert second.seq == 2 and second.prev_hash == first[0].hash
    assert second.commit_from == first[0].commit_to
    # The shared accounts' balances are the sums of every sealed posting.
    with svc.uow() as uow:
        house = uow.session.execute(
            text(
                "SELECT coalesce(sum(p.amount), 0) FROM postings p "
                "JOIN accounts a ON a.id = p.account_id WHERE a.key = 'house:EUR'"
            )
        ).scalar_one()
    assert second.balances["house:EUR"] == house
    assert second.balances["cash:EUR"] == -50_000
    assert sum(second.balances.values()) + svc.balance(pid) == 0
    assert svc.audit().ok


@pytest.fixture
def played(svc: Svc, demo_tables: list[str]) -> str:
    """A sealed session of play, then a few unsealed rounds on top."""
    pid = svc.player(funds=50_000)
    play_session(svc, pid, 12)
    assert svc.seal()
    play_session(svc, pid, 3)
    assert svc.audit().ok
    return pid


def raw(engine: Engine, *statements: str) -> None:
    with engine.begin() as conn:
        for statement in statements:
            conn.execute(text(statement))


def scalar(engine: Engine, sql: str) -> object:
    with engine.connect() as conn:
        return conn.execute(text(sql)).scalar()


def sealed_tx(engine: Engine, kind: str = "bet") -> int:
    """A sealed transaction of ``kind`` with a successor in its wallet's chain."""
    return int(
        scalar(  # type: ignore[arg-type]
            engine,
            f"SELECT min(t.id) FROM ledger_transactions t WHERE t.kind = '{kind}' "
            "AND t.commit_seq < (SELECT max(commit_to) FROM ledger_checkpoints)",
        )
    )


def test_audit_catches_an_edited_posting(svc: Svc, engine: Engine, played: str) -> None:
    tx = sealed_tx(engine)
    raw(engine, f"UPDATE postings SET amount = amount + 7 WHERE transaction_id = {tx} AND leg = 0")
    assert {"transactions_balanced", "wallet_chains"} <= failed(svc.audit())


def test_audit_catches_a_balanced_edit(svc: Svc, engine: Engine, played: str) -> None:
    """A bet's two house legs shifted by the same amount keep every sum right; only the
    transaction's hash can tell."""
    tx = int(
        scalar(  # type: ignore[arg-type]
            engine,
            "SELECT min(p.transaction_id) FROM postings p JOIN ledger_transactions t "
            "ON t.id = p.transaction_id WHERE p.leg = 3 AND t.kind = 'bet'",
        )
    )
    raw(
        engine,
        f"UPDATE postings SET amount = amount + 50 WHERE transaction_id = {tx} AND leg = 1",
        f"UPDATE postings SET amount = amount - 50 WHERE transaction_id = {tx} AND leg = 2",
    )
    assert failed(svc.audit()) == {"wallet_chains"}


def test_audit_catches_a_deleted_transaction_with_balances_fixed_up(
    svc: Svc, engine: Engine, played: str
) -> None:
    """The thief removes a sealed withdrawal-like loss, relinks the wallet's chain from there
    on and fixes the wallet's balance and head: every sum and link is right again, but the
    checkpoint that sealed it no longer matches."""
    tx = sealed_tx(engine)
    wallet, delta = (
        int(v)  # type: ignore[call-overload]
        for v in _one(
            engine,
            f"SELECT t.wallet_id, (SELECT sum(amount) FROM postings p JOIN accounts a "
            f"ON a.id = p.account_id WHERE p.transaction_id = {tx} AND a.kind = 'wallet') "
            f"FROM ledger_transactions t WHERE t.id = {tx}",
        )
    )
    raw(
        engine,
        f"DELETE FROM postings WHERE transaction_id = {tx}",
        f"DELETE FROM ledger_transactions WHERE id = {tx}",
        f"UPDATE accounts SET balance = balance - ({delta}) WHERE id = {wallet}",
    )
    relink(engine, wallet)
    found = failed(svc.audit())
    # The chain was relinked well enough to pass; the signed checkpoint is what catches it.
    assert "checkpoints" in found and "wallet_chains" not in found


def relink(engine: Engine, wallet_id: int) -> None:
    """Rebuild a wallet's chain (positions, running balances, links, head) as a forger with
    database access would, so only what the database cannot forge remains to catch it."""
    from casino.ledger.audit import TransactionRow, transaction_digest
    from casino.ledger.chain import GENESIS_HASH, link_hash

    with engine.begin() as conn:
        keys = dict(conn.execute(text("SELECT id, key FROM accounts")).all())
        rows = conn.execute(
            text(
                f"SELECT * FROM ledger_transactions WHERE wallet_id = {wallet_id} "
                "ORDER BY wallet_seq"
            )
        ).all()
        prev, balance = GENESIS_HASH, 0
        for n, row in enumerate(rows, start=1):
            postings = [
                (int(leg), int(account), int(amount))
                for leg, account, amount in conn.execute(
                    text(
                        "SELECT leg, account_id, amount FROM postings "
                        f"WHERE transaction_id = {row.id} ORDER BY leg"
                    )
                )
            ]
            balance += sum(a for _, account, a in postings if account == wallet_id)
            tx = TransactionRow(
                id=row.id, kind=row.kind, currency=row.currency, player_id=row.player_id,
                wallet_id=wallet_id, round_id=row.round_id, reference=row.reference,
                wallet_balance_after=balance, created_at=_dt(row.created_at), wallet_seq=n,
                prev_hash=prev, hash="", commit_seq=row.commit_seq, postings=postings,
            )  # fmt: skip
            digest = link_hash(prev, n, transaction_digest(tx, keys))
            conn.execute(
                text(
                    "UPDATE ledger_transactions SET wallet_seq = :n, prev_hash = :p, hash = :h, "
                    "wallet_balance_after = :b WHERE id = :id"
                ),
                {"n": n + _OFFSET, "p": prev, "h": digest, "b": balance, "id": row.id},
            )
            prev = digest
        conn.execute(
            text(
                f"UPDATE ledger_transactions SET wallet_seq = wallet_seq - {_OFFSET} "
                f"WHERE wallet_id = {wallet_id}"
            )
        )
        conn.execute(
            text("UPDATE accounts SET chain_length = :n, chain_hash = :h WHERE id = :id"),
            {"n": len(rows), "h": prev, "id": wallet_id},
        )


_OFFSET = 1_000_000  # positions moved out of the way while a chain is renumbered


def _dt(value: object) -> datetime:
    """A timestamp as read by raw SQL: SQLite gives text back."""
    if isinstance(value, datetime):
        return value
    return datetime.fromisoformat(str(value)).replace(tzinfo=UTC)


def _one(engine: Engine, sql: str) -> tuple[object, ...]:
    with engine.connect() as conn:
        return tuple(conn.execute(text(sql)).one())


def test_audit_catches_a_deleted_unsealed_transaction(
    svc: Svc, engine: Engine, played: str
) -> None:
    """Not sealed yet: the wallet's chain has a hole where it was."""
    tx = scalar(
        engine,
        "SELECT min(t.id) FROM ledger_transactions t WHERE t.wallet_seq < "
        "(SELECT max(u.wallet_seq) FROM ledger_transactions u WHERE u.wallet_id = t.wallet_id)"
        " AND t.commit_seq >= (SELECT max(commit_to) FROM ledger_checkpoints)",
    )
    raw(
        engine,
        f"DELETE FROM postings WHERE transaction_id = {tx}",
        f"DELETE FROM ledger_transactions WHERE id = {tx}",
    )
    assert "wallet_chains" in failed(svc.audit())


def test_audit_catches_an_edited_round(svc: Svc, engine: Engine, played: str) -> None:
    raw(
        engine,
        "UPDATE rounds SET net = net + 100, ante_payout = ante_payout + 100 "
        "WHERE id = (SELECT min(id) FROM rounds)",
    )
    assert "rounds_replay" in failed(svc.audit())


def test_audit_catches_a_changed_card(svc: Svc, engine: Engine, played: str) -> None:
    card = scalar(engine, "SELECT player_card FROM rounds ORDER BY id LIMIT 1")
    other = "2H" if card != "2H" else "3H"
    raw(
        engine, f"UPDATE rounds SET player_card = '{other}' WHERE id = (SELECT min(id) FROM rounds)"
    )
    assert failed(svc.audit()) == {"rounds_replay"}


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
    assert "rounds_replay" in failed(svc.audit())


def test_audit_catches_a_wallet_balance_edit(svc: Svc, engine: Engine, played: str) -> None:
    raw(engine, f"UPDATE accounts SET balance = balance + 1 WHERE player_id = '{played}'")
    assert failed(svc.audit()) == {"balances_match_postings"}


def test_audit_catches_an_edited_checkpoint(svc: Svc, engine: Engine, played: str) -> None:
    # As a database superuser would (the table refuses updates: test_append_only_checkpoints).
    tamper(engine, "UPDATE ledger_checkpoints SET tx_count = tx_count - 1 WHERE seq = 1")
    assert failed(svc.audit()) == {"checkpoints"}


def test_audit_catches_a_re_signed_checkpoint(svc: Svc, engine: Engine, played: str) -> None:
    """Rewritten and signed again, consistently, with a key the operator does not trust."""
    row = _mapping(engine, "SELECT * FROM ledger_checkpoints WHERE seq = 1")
    forger = SigningKey.parse("22" * 32)
    balances = row["balances"] if isinstance(row["balances"], dict) else json.loads(row["balances"])
    balances["house:EUR"] = balances.get("house:EUR", 0) + 1
    digest = checkpoint_hash(
        seq=1, commit_from=row["commit_from"], commit_to=row["commit_to"],
        tx_count=row["tx_count"], total_count=row["total_count"], root=row["root"],
        balances=balances, created_at=_dt(row["created_at"]), prev_hash=row["prev_hash"],
    )  # fmt: skip
    as_json = "CAST(:b AS json)" if engine.dialect.name == "postgresql" else ":b"
    with engine.begin() as conn, checkpoints_unguarded(conn):
        conn.execute(
            text(
                f"UPDATE ledger_checkpoints SET balances = {as_json}, hash = :h, "
                "signature = :s, key_id = :k WHERE seq = 1"
            ),
            {
                "b": json.dumps(balances),
                "h": digest,
                "s": forger.sign(digest),
                "k": forger.key_id,
            },
        )
    assert failed(svc.audit()) == {"checkpoints", "balances_match_postings"}


def _mapping(engine: Engine, sql: str) -> dict[str, object]:
    with engine.connect() as conn:
        return dict(conn.execute(text(sql)).one()._mapping)


def test_audit_catches_a_transaction_inserted_behind_a_checkpoint(
    svc: Svc, engine: Engine, played: str
) -> None:
    """A forged deposit slipped into the sealed range, with the chain relinked around it."""
    player, wallet = _one(
        engine, f"SELECT player_id, id FROM accounts WHERE player_id = '{played}'"
    )
    cash = scalar(engine, "SELECT id FROM accounts WHERE key = 'cash:EUR'")
    raw(
        engine,
        "INSERT INTO ledger_transactions (id, kind, currency, player_id, wallet_id, round_id, "
        "reference, wallet_balance_after, created_at, wallet_seq, prev_hash, hash, commit_seq) "
        f"VALUES (999999, 'deposit', 'EUR', '{player}', {wallet}, NULL, 'forged', 0, "
        f"'2026-01-01 00:00:00+00', 999, '', '', 1)",
        f"INSERT INTO postings VALUES (999999, 0, {cash}, -5000)",
        f"INSERT INTO postings VALUES (999999, 1, {wallet}, 5000)",
        f"UPDATE accounts SET balance = balance + 5000 WHERE id = {wallet}",
    )
    relink(engine, int(wallet))  # type: ignore[call-overload]
    assert "checkpoints" in failed(svc.audit())


def test_audit_command_exit_codes(
    svc: Svc, engine: Engine, db_url: str, played: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CASINO_ENV", "testing")
    monkeypatch.setenv("CASINO_SIGNING_KEY", SIGNING_KEY.private_hex())
    runner = CliRunner()
    ok = runner.invoke(cli, ["audit", "--database-url", db_url])
    assert ok.exit_code == 0, ok.output
    assert "all checks passed" in ok.output and "wallet_chains" in ok.output
    sealed = runner.invoke(cli, ["seal", "--database-url", db_url])
    assert sealed.exit_code == 0 and "checkpoint 2:" in sealed.output, sealed.output
    again = runner.invoke(cli, ["seal", "--database-url", db_url])
    assert "nothing new to seal" in again.output
    monkeypatch.setenv("CASINO_SIGNING_KEY", "33" * 32)  # a key that signed none of them
    untrusted = runner.invoke(cli, ["audit", "--database-url", db_url])
    assert untrusted.exit_code == 1 and "untrusted key" in untrusted.output
    monkeypatch.setenv("CASINO_TRUSTED_SIGNING_KEYS", SIGNING_KEY.verifying.hex)
    assert runner.invoke(cli, ["audit", "--database-url", db_url]).exit_code == 0
    raw(
        engine,
        f"UPDATE postings SET amount = amount * 2 WHERE transaction_id = {sealed_tx(engine)}",
    )
    bad = runner.invoke(cli, ["audit", "--database-url", db_url])
    assert bad.exit_code == 1
    assert "FAIL" in bad.output


@pytest.mark.postgres
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_checkpoint_never_seals_past_a_request_still_running(
    svc: Svc, demo_tables: list[str], db_url: str
) -> None:
    """A bet whose transaction is still open holds the sealer back in its own database (its
    rows may yet commit below anything sealed after it), while an open writer in another
    database of the cluster does not."""
    from .conftest import drop_pg_database, new_pg_database, pg_url

    first = svc.player(funds=10_000)
    second = svc.player(funds=10_000)
    other = new_pg_database("casino_other")
    other_engine = create_engine(pg_url(other))
    try:
        with other_engine.connect() as elsewhere:
            elsewhere.execute(text("CREATE TABLE t (x int)"))
            elsewhere.execute(text("INSERT INTO t VALUES (1)"))  # a writer left open
            with svc.uow() as pending:
                rounds.place_bet(pending, first, "classic", 100)  # claimed, not committed
                svc.run(rounds.place_bet, second, "classic", 100)
                made = svc.seal()
                # Everything committed before the open bet began is sealed; the bet after it
                # waits with it.
                assert made and made[-1].total_count == 2
                pending.commit()
            (later,) = svc.seal()
            assert later.tx_count == 2
            assert svc.audit().ok
            elsewhere.rollback()
    finally:
        other_engine.dispose()
        drop_pg_database(other)
