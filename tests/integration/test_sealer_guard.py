"""Issue 19, point 3 (b) and (c): the sealer is no signing oracle.

Someone with write access to the database deletes checkpoints from some number on, rewrites
a wallet's history, recomputes the chain hashes (plain SHA-256) and waits for the sealer to
sign the forgery. The sealer refuses, with a non-zero exit, an error log line and a metric,
and signs nothing: because its own record (``CASINO_SEALER_STATE``) says it signed further,
or because a transaction does not continue its wallet's chain as it was sealed. On SQLite
and PostgreSQL; the triggers that refuse to delete a checkpoint are disabled the way a
database superuser would (tests/db_guard.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from prometheus_client import REGISTRY
from sqlalchemy import Engine, text

from casino.cli import main as cli
from casino.ledger.checkpoints import CheckpointRef
from casino.service import wallets
from casino.service.sealer_guard import CHAIN, RECORD
from casino.service.sealing import Sealer, SealRefused
from casino.store.sealer_state import SealerStateError, SealerStateFile
from tests.db_guard import tamper

from .conftest import SIGNING_KEY, Svc
from .test_ledger_audit import relink


def run_seal(db_url: str, *args: str) -> Result:
    return CliRunner().invoke(cli, ["seal", "--database-url", db_url, *args])


@pytest.fixture
def sealer_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The sealer's environment: its key, its record file and a metrics file; the record's
    path."""
    monkeypatch.setenv("CASINO_ENV", "testing")
    monkeypatch.setenv("CASINO_SIGNING_KEY", SIGNING_KEY.private_hex())
    monkeypatch.delenv("CASINO_TRUSTED_SIGNING_KEYS", raising=False)
    state = tmp_path / "sealer" / "state.json"
    monkeypatch.setenv("CASINO_SEALER_STATE", str(state))
    monkeypatch.setenv("CASINO_SEALER_METRICS_FILE", str(tmp_path / "sealer.prom"))
    return state


def refusals(reason: str) -> float:
    return REGISTRY.get_sample_value("casino_sealer_refusals_total", {"reason": reason}) or 0.0


def checkpoint_count(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(text("SELECT count(*) FROM ledger_checkpoints")).scalar_one())


def wallet_of(engine: Engine, player: str) -> int:
    with engine.connect() as conn:
        return int(
            conn.execute(text(f"SELECT id FROM accounts WHERE player_id = '{player}'")).scalar_one()
        )


def rewrite_deposit(engine: Engine, player: str, reference: str, amount: int) -> None:
    """A deposit of ``player`` made ``amount`` (its postings and the wallet's balance), and
    the wallet's chain relinked from there: consistent in every way SHA-256 can be."""
    with engine.connect() as conn:
        tx_id, old = conn.execute(
            text(
                "SELECT t.id, p.amount FROM ledger_transactions t JOIN postings p "
                "ON p.transaction_id = t.id AND p.amount > 0 "
                f"WHERE t.player_id = '{player}' AND t.reference = '{reference}'"
            )
        ).one()
    wallet = wallet_of(engine, player)
    tamper(
        engine,
        f"UPDATE postings SET amount = {amount} WHERE transaction_id = {tx_id} AND amount > 0",
        f"UPDATE postings SET amount = {-amount} WHERE transaction_id = {tx_id} AND amount < 0",
        f"UPDATE accounts SET balance = balance + {amount - old} WHERE id = {wallet}",
    )
    relink(engine, wallet)


# ---------------------------------------------------------------- (b) the sealer's record


def test_a_rewritten_history_behind_the_record_is_refused(
    svc: Svc, engine: Engine, db_url: str, sealer_env: Path, tmp_path: Path
) -> None:
    """The attack of the issue: checkpoints deleted from 2 on, a deposit they sealed made
    larger, the chain hashes recomputed. The sealer's record says it signed checkpoint 2."""
    player = svc.player()
    svc.run(wallets.deposit, player, "EUR", 1_000, "first")
    first = run_seal(db_url)
    assert first.exit_code == 0 and "checkpoint 1:" in first.output, first.output
    assert "no sealer record" in first.output  # a first record, said in the log
    svc.run(wallets.deposit, player, "EUR", 2_000, "second")
    svc.run(wallets.deposit, player, "EUR", 3_000, "third")
    assert "checkpoint 2:" in run_seal(db_url).output
    recorded = json.loads(sealer_env.read_text())
    assert recorded["seq"] == 2 and recorded["key_id"] == SIGNING_KEY.key_id
    assert sealer_env.stat().st_mode & 0o077 == 0

    tamper(engine, "DELETE FROM ledger_checkpoints WHERE seq >= 2")
    rewrite_deposit(engine, player, "third", 300_000)
    before = refusals(RECORD)
    refused = run_seal(db_url)
    assert refused.exit_code == 1, refused.output
    assert "sealer refused to sign (record)" in refused.stderr  # the error log line
    assert "this sealer signed up to 2: checkpoints were deleted" in refused.output
    assert refusals(RECORD) == before + 1  # the metric, also written for node_exporter
    assert 'casino_sealer_refusals_total{reason="record"}' in (tmp_path / "sealer.prom").read_text()
    assert checkpoint_count(engine) == 1  # nothing signed
    assert json.loads(sealer_env.read_text())["seq"] == 2  # the record stands
    # Scheduled, it stops too: a refusal is an alarm, not a retry.
    assert run_seal(db_url, "--every", "0.1").exit_code == 1
    assert checkpoint_count(engine) == 1


def test_a_sealer_without_its_record_trusts_the_ledger_only_when_told(
    svc: Svc, engine: Engine, db_url: str, sealer_env: Path
) -> None:
    """A first run on a fresh ledger starts the record; on a ledger with checkpoints and no
    record (a new sealer host, or a record deleted), the sealer refuses until ``--init``,
    which verifies the checkpoints' chain and signatures, records the last, and says so."""
    svc.player(funds=1_000)
    svc.seal()
    svc.player(funds=2_000)
    refused = run_seal(db_url)
    assert refused.exit_code == 1 and "--init" in refused.output, refused.output
    assert checkpoint_count(engine) == 1 and not sealer_env.exists()
    adopted = run_seal(db_url, "--init")
    assert adopted.exit_code == 0 and "checkpoint 2:" in adopted.output, adopted.output
    assert "--init" in adopted.stderr and "no sealer record" in adopted.stderr
    assert json.loads(sealer_env.read_text())["seq"] == 2
    svc.player(funds=3_000)
    assert "checkpoint 3:" in run_seal(db_url).output  # from now on without --init
    # --init never overrides a record: the ledger must still continue it.
    tamper(engine, "DELETE FROM ledger_checkpoints WHERE seq = 3")
    assert run_seal(db_url, "--init").exit_code == 1


def test_the_ledger_must_continue_the_recorded_checkpoint(
    svc: Svc, engine: Engine, db_url: str, sealer_env: Path
) -> None:
    svc.player(funds=1_000)
    assert run_seal(db_url).exit_code == 0
    genuine = sealer_env.read_text()
    sealer_env.write_text(json.dumps({"seq": 1, "hash": "ab" * 32}))
    other = run_seal(db_url)
    assert other.exit_code == 1 and "is not the one this sealer signed" in other.output
    sealer_env.write_text(json.dumps({"seq": 7, "hash": "ab" * 32}))
    ahead = run_seal(db_url)
    assert ahead.exit_code == 1 and "this sealer signed up to 7" in ahead.output
    sealer_env.write_text("not json")
    damaged = run_seal(db_url)
    assert damaged.exit_code == 1 and "is not a sealer record" in damaged.output
    sealer_env.write_text(genuine)
    svc.player(funds=2_000)
    assert run_seal(db_url).exit_code == 0 and checkpoint_count(engine) == 2


def test_a_later_checkpoint_must_be_signed_by_a_trusted_key(
    svc: Svc, engine: Engine, db_url: str, sealer_env: Path
) -> None:
    """Another sealer may have signed after this one's record (several hosts): accepted once
    its signature is checked; one signed by an unknown key is not."""
    svc.player(funds=1_000)
    assert run_seal(db_url).exit_code == 0
    svc.player(funds=2_000)
    from casino.ledger.checkpoints import SigningKey
    from casino.service.sealing import seal_pending

    stranger = SigningKey.parse("77" * 32)
    with svc.uow() as uow:
        seal_pending(uow, stranger, trusted=[SIGNING_KEY.verifying])
        uow.commit()
    refused = run_seal(db_url)
    assert refused.exit_code == 1 and "untrusted key" in refused.output, refused.output


# ---------------------------------------------------------------- (c) each wallet's chain


def test_a_rewritten_sealed_transaction_is_not_continued(
    svc: Svc, engine: Engine, db_url: str, sealer_env: Path
) -> None:
    """No checkpoint deleted this time: a deposit sealed by checkpoint 1 is rewritten and the
    chain relinked, with an unsealed deposit after it. The record holds (the checkpoints are
    untouched); the chain check refuses to seal the new deposit on top of the rewrite."""
    player = svc.player()
    svc.run(wallets.deposit, player, "EUR", 1_000, "first")
    assert run_seal(db_url).exit_code == 0
    svc.run(wallets.deposit, player, "EUR", 2_000, "second")
    rewrite_deposit(engine, player, "first", 100_000)
    before = refusals(CHAIN)
    refused = run_seal(db_url)
    assert refused.exit_code == 1, refused.output
    assert "sealer refused to sign (chain)" in refused.stderr
    assert "is not as its checkpoint sealed it" in refused.output
    assert refusals(CHAIN) == before + 1
    assert checkpoint_count(engine) == 1


def test_a_chain_broken_among_unsealed_transactions_is_not_sealed(svc: Svc, engine: Engine) -> None:
    """Two new deposits, the second no longer pointing at the first."""
    player = svc.player(funds=1_000)
    svc.seal()
    svc.run(wallets.deposit, player, "EUR", 500, "more")
    svc.run(wallets.deposit, player, "EUR", 600, "again")
    tamper(
        engine,
        f"UPDATE ledger_transactions SET prev_hash = '{'ab' * 32}' WHERE reference = 'again'",
    )
    with (
        svc.uow() as uow,
        pytest.raises(SealRefused, match="does not link to the one before") as no,
    ):
        Sealer(SIGNING_KEY).run(uow)
    assert no.value.reason == CHAIN and checkpoint_count(engine) == 1


def test_a_transaction_must_continue_the_last_sealed_one(svc: Svc, engine: Engine) -> None:
    """A fork: the last sealed link of a wallet moved out of the way (its position changed,
    its hash kept, so its checkpoint still matches) and a new transaction chained onto the
    one before it."""
    player = svc.player()
    for amount in (100, 200):
        svc.run(wallets.deposit, player, "EUR", amount, f"d{amount}")
    svc.seal()
    svc.run(wallets.deposit, player, "EUR", 300, "d300")
    wallet = wallet_of(engine, player)
    where = f"WHERE wallet_id = {wallet} AND wallet_seq"
    with engine.connect() as conn:
        first_hash = conn.execute(
            text(f"SELECT hash FROM ledger_transactions {where} = 1")
        ).scalar_one()
    tamper(
        engine,
        f"UPDATE ledger_transactions SET wallet_seq = 9 {where} = 2",
        f"UPDATE ledger_transactions SET wallet_seq = 2, prev_hash = '{first_hash}' {where} = 3",
    )
    with svc.uow() as uow, pytest.raises(SealRefused) as refused:
        Sealer(SIGNING_KEY).run(uow)
    assert refused.value.reason == CHAIN
    assert checkpoint_count(engine) == 1


def test_a_running_sealer_remembers_the_heads_it_sealed(svc: Svc, engine: Engine) -> None:
    """Without a record, a sealer still remembers what it sealed while it runs: checkpoints
    deleted and a sealed deposit rewritten behind its back are refused. A sealer with
    neither its record nor that memory (a fresh process without CASINO_SEALER_STATE) cannot
    tell the rewrite from new transactions: that is why production requires the record."""
    player = svc.player()
    sealer = Sealer(SIGNING_KEY)
    svc.run(wallets.deposit, player, "EUR", 1_000, "first")
    with svc.uow() as uow:
        assert len(sealer.seal(uow).made) == 1
    svc.run(wallets.deposit, player, "EUR", 2_000, "second")
    with svc.uow() as uow:
        assert len(sealer.seal(uow).made) == 1
    tamper(engine, "DELETE FROM ledger_checkpoints WHERE seq = 2")
    rewrite_deposit(engine, player, "second", 200_000)
    with svc.uow() as uow, pytest.raises(SealRefused, match="sealed already") as refused:
        sealer.seal(uow)
    assert refused.value.reason == CHAIN and checkpoint_count(engine) == 1
    with svc.uow() as uow:
        assert len(Sealer(SIGNING_KEY).seal(uow).made) == 1  # signed: hence the record


# ---------------------------------------------------------------- the record file


def test_sealers_may_share_one_record_file(svc: Svc, engine: Engine, tmp_path: Path) -> None:
    """Two sealers (two hosts) on one ledger, either sharing a record file or each with its
    own: each continues the other's checkpoints once it has checked them, and a shared
    record never moves back."""
    records = tmp_path / "records"
    shared = SealerStateFile(records / "shared.json")
    own = SealerStateFile(records / "own.json")
    first, second = Sealer(SIGNING_KEY), Sealer(SIGNING_KEY)
    for n in range(6):
        svc.player(funds=1_000 + n)
        sealer, record = (first, shared) if n % 2 == 0 else (second, shared)
        with svc.uow() as uow:
            assert [c.seq for c in sealer.seal(uow, record).made] == [n + 1]
        if n % 3 == 0:
            with svc.uow() as uow:  # a new host's first record needs --init (first_use)
                assert second.seal(uow, own, first_use=n == 0).made == []  # nothing new
            assert own.load() == shared.load()
    assert shared.load() is not None and shared.load().seq == 6  # type: ignore[union-attr]
    shared.save(CheckpointRef(3, "cd" * 32), SIGNING_KEY.key_id)  # a slower sealer's older news
    assert shared.load().seq == 6  # type: ignore[union-attr]
    with svc.uow() as uow:
        assert second.seal(uow, own).last.seq == 6  # type: ignore[union-attr]  # caught up
    assert sorted(p.name for p in records.iterdir()) == [
        "own.json",
        "own.json.lock",
        "shared.json",
        "shared.json.lock",
    ]  # no temporary file left behind


def test_a_record_file_that_cannot_be_read_is_no_first_run(tmp_path: Path) -> None:
    state = SealerStateFile(tmp_path / "state.json")
    assert state.load() is None
    for damaged in ("{}", '{"seq": 0, "hash": "' + "ab" * 32 + '"}', '{"seq": 1, "hash": 5}'):
        (tmp_path / "state.json").write_text(damaged)
        with pytest.raises(SealerStateError):
            state.load()


def test_production_seals_only_with_a_record_and_the_private_key(
    svc: Svc, db_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    svc.player(funds=1_000)
    monkeypatch.setenv("CASINO_ENV", "production")
    monkeypatch.setenv("DATABASE_URL", db_url)
    monkeypatch.setenv("CASINO_SIGNING_PUBLIC_KEY", SIGNING_KEY.verifying.hex)
    monkeypatch.delenv("CASINO_SIGNING_KEY", raising=False)
    monkeypatch.delenv("CASINO_SIGNING_KEY_FILE", raising=False)
    monkeypatch.delenv("CASINO_SEALER_STATE", raising=False)
    keyless = run_seal(db_url)
    assert keyless.exit_code == 1 and "needs the private key" in keyless.output
    monkeypatch.setenv("CASINO_SIGNING_KEY", SIGNING_KEY.private_hex())
    stateless = run_seal(db_url)
    assert stateless.exit_code == 1 and "CASINO_SEALER_STATE is required" in stateless.output
    monkeypatch.setenv("CASINO_SEALER_STATE", str(tmp_path / "state.json"))
    sealed = run_seal(db_url)
    assert sealed.exit_code == 0 and "checkpoint 1:" in sealed.output, sealed.output


def test_a_new_key_for_a_rotation(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``casino new-signing-key FILE`` (owner-only, never overwriting) prints the public key
    the web tier is given; ``casino public-key`` prints what is configured, retired keys
    with their ranges (docs/audit.md, "Keys and their rotation")."""
    from casino.ledger.checkpoints import SigningKey

    runner = CliRunner()
    key_file = tmp_path / "signing.key"
    made = runner.invoke(cli, ["new-signing-key", str(key_file)])
    assert made.exit_code == 0, made.output
    key = SigningKey.parse(key_file.read_text())
    assert key_file.stat().st_mode & 0o077 == 0 and key.private_hex() not in made.output
    assert f"(CASINO_SIGNING_PUBLIC_KEY): {key.verifying.hex}" in made.output
    again = runner.invoke(cli, ["new-signing-key", str(key_file)])
    assert again.exit_code == 1 and SigningKey.parse(key_file.read_text()).key_id == key.key_id
    monkeypatch.setenv("CASINO_ENV", "testing")
    monkeypatch.delenv("CASINO_SIGNING_KEY", raising=False)
    monkeypatch.setenv("CASINO_SIGNING_KEY_FILE", str(key_file))
    monkeypatch.setenv("CASINO_TRUSTED_SIGNING_KEYS", f"{SIGNING_KEY.verifying.hex}@1-9")
    shown = runner.invoke(cli, ["public-key"])
    assert shown.exit_code == 0, shown.output
    assert key.verifying.hex in shown.output and "BEGIN PUBLIC KEY" in shown.output
    assert f"{SIGNING_KEY.verifying.hex}@1-9 (checkpoints 1 to 9)" in shown.output


def test_a_refusal_counts_where_the_apps_metrics_are_collected(
    svc: Svc, db_url: str, tmp_path: Path
) -> None:
    """Beside ``casino serve`` the sealer inherits gunicorn's PROMETHEUS_MULTIPROC_DIR: its
    refusal is in the app's /metrics, after the sealer has exited."""
    import os
    import subprocess
    import sys

    from prometheus_client import CollectorRegistry
    from prometheus_client.multiprocess import MultiProcessCollector

    svc.player(funds=1_000)
    directory = tmp_path / "metrics"
    directory.mkdir()
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"seq": 3, "hash": "ab" * 32}))  # ahead of an empty ledger
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CASINO_")},
        "CASINO_ENV": "testing",
        "CASINO_SIGNING_KEY": SIGNING_KEY.private_hex(),
        "CASINO_SEALER_STATE": str(state),
        "PROMETHEUS_MULTIPROC_DIR": str(directory),
    }
    done = subprocess.run(
        [sys.executable, "-c", "from casino.cli import main; main()", "seal", "--database-url",
         db_url],
        env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1 and "sealer refused to sign (record)" in done.stderr
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(directory))
    assert registry.get_sample_value("casino_sealer_refusals_total", {"reason": "record"}) == 1
