"""Each operator's ledger on its own (docs/operators.md): its shared accounts, its chain of
signed checkpoints, its audit and its export, which the standalone verifier checks without a
row of another operator; the operator ``default`` keeps the keys and the chain it had."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import insert, select

from casino.audit_export import casino_audit_export as verifier
from casino.cli import main as cli
from casino.service import operators, rounds, tables
from casino.service.demo import DEMO_TABLES
from casino.service.export import export
from casino.service.sealing import get_checkpoint, list_checkpoints
from casino.store.models import Account, LedgerCheckpoint, LedgerTransaction, Posting

from .conftest import SIGNING_KEY, Svc

KEYS = [SIGNING_KEY.verifying]


@pytest.fixture
def twin(svc: Svc) -> Svc:
    with svc.uow() as uow:
        operators.create_operator(uow, "twin", "Twin casino", currencies=["EUR"])
        uow.commit()
    return Svc(svc.factory, operator="twin")


def _play(who: Svc, bets: int) -> str:
    who.run(tables.create_table, "classic", "EUR", DEMO_TABLES["classic"])
    player = who.player("same-ref", funds=100_000)
    for _ in range(bets):
        placed = who.run(rounds.place_bet, player, "classic", 100)
        if placed.status == "awaiting_decision":
            who.run(rounds.decide, placed.id, "surrender", player_id=player)
    return player


def _exported(who: Svc) -> bytes:
    with who.uow() as uow:
        return b"".join(export(uow, since=None, until=None, keys=KEYS))


def _lines(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.splitlines()]


def test_each_operator_seals_its_own_chain_and_exports_its_own_books(svc: Svc, twin: Svc) -> None:
    mine = _play(svc, 6)
    theirs = _play(twin, 3)
    made = svc.seal()
    assert sorted({c.seq for c in made}) == [1]  # one checkpoint in each chain
    with svc.uow() as uow:
        (own,) = list_checkpoints(uow, 0, 10)
        assert (
            {"cash:EUR", "house:EUR"}
            <= set(own.balances)
            <= {
                "cash:EUR",
                "house:EUR",
                "in_play:EUR",
            }
        )
    with twin.uow() as uow:
        (their,) = list_checkpoints(uow, 0, 10)
        assert (
            {"cash:twin:EUR", "house:twin:EUR"}
            <= set(their.balances)
            <= {
                "cash:twin:EUR",
                "house:twin:EUR",
                "in_play:twin:EUR",
            }
        )
        assert get_checkpoint(uow, 1).hash == their.hash
    assert own.hash != their.hash and own.total_count > their.total_count
    for who, player, other in ((svc, mine, theirs), (twin, theirs, mine)):
        data = _exported(who)
        summary = verifier.verify(data.splitlines(keepends=True), [k.raw for k in KEYS])
        assert summary["ok"], [c for c in summary["checks"] if not c["ok"]]
        lines = _lines(data)
        assert lines[0]["operator"] == who.operator
        text = data.decode()
        assert player in text and other not in text
        shared = {line["key"] for line in lines if line["type"] == "account"} - {
            f"wallet:{player}:EUR"
        }
        prefix = "" if who.operator == "default" else "twin:"
        assert shared == {f"{kind}:{prefix}EUR" for kind in ("cash", "house", "in_play")}
    assert svc.audit().ok


def test_a_verifier_reading_another_operators_keys_refuses_them(svc: Svc, twin: Svc) -> None:
    """The header says whose books these are: its shared accounts must carry that operator's
    keys (a twin's export relabelled as the operator default's is refused)."""
    _play(twin, 2)
    twin.seal()
    lines = _exported(twin).splitlines(keepends=True)
    header = json.loads(lines[0])
    header["operator"] = "default"
    lines[0] = (verifier.canonical(header).decode() + "\n").encode()
    summary = verifier.verify(lines, [k.raw for k in KEYS])
    accounts = next(c for c in summary["checks"] if c["name"] == "accounts")
    assert not accounts["ok"]
    assert "account key house:twin:EUR does not match" in " ".join(accounts["examples"])


def test_the_audit_keeps_each_operators_books_apart(svc: Svc, twin: Svc) -> None:
    """A posting of one operator's transaction to another operator's house account balances
    the sum of all books but not the operator's own: the audit finds it."""
    _play(svc, 2)
    theirs = _play(twin, 2)
    svc.seal()
    assert svc.audit().ok
    with svc.factory() as session:
        house = session.scalars(select(Account.id).where(Account.key == "house:EUR")).one()
        tx, wallet = session.execute(
            select(LedgerTransaction.id, LedgerTransaction.wallet_id)
            .where(LedgerTransaction.player_id == theirs, LedgerTransaction.kind == "bet")
            .limit(1)
        ).one()
        leg = session.scalars(
            select(Posting.leg).where(Posting.transaction_id == tx, Posting.account_id != wallet)
        ).first()
        session.execute(
            Posting.__table__.update()
            .where(Posting.transaction_id == tx, Posting.leg == leg)
            .values(account_id=house)
        )
        session.commit()
    report = svc.audit()
    assert not report.ok
    failed = {check.name: check.detail for check in report.checks if not check.ok}
    assert "transactions_balanced" in failed and "twin:" in failed["transactions_balanced"]


def test_the_sealer_command_seals_every_operators_chain_with_its_own_record(
    svc: Svc, twin: Svc, db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CASINO_ENV", "testing")
    monkeypatch.setenv("CASINO_SIGNING_KEY", SIGNING_KEY.private_hex())
    monkeypatch.delenv("CASINO_TRUSTED_SIGNING_KEYS", raising=False)
    state = tmp_path / "sealer" / "state.json"
    monkeypatch.setenv("CASINO_SEALER_STATE", str(state))
    _play(svc, 2)
    _play(twin, 2)
    sealed = CliRunner().invoke(cli, ["seal", "--database-url", db_url])
    assert sealed.exit_code == 0, sealed.output
    lines = sealed.output.splitlines()
    assert any(line.startswith("checkpoint 1:") for line in lines)
    assert any(line.startswith("twin: checkpoint 1:") for line in lines)
    assert json.loads(state.read_text())["seq"] == 1
    assert json.loads((state.parent / "state.twin.json").read_text())["seq"] == 1
    audited = CliRunner().invoke(cli, ["audit", "--database-url", db_url])
    assert audited.exit_code == 0, audited.output
    assert "default:" in audited.output and "twin:" in audited.output
    one = CliRunner().invoke(cli, ["audit", "--database-url", db_url, "--operator", "twin"])
    assert one.exit_code == 0 and "default:" not in one.output, one.output
    exported = CliRunner().invoke(
        cli, ["export", "--database-url", db_url, "--operator", "twin", "-o", "-"]
    )
    assert exported.exit_code == 0
    summary = verifier.verify(
        exported.stdout_bytes.splitlines(keepends=True), [k.raw for k in KEYS]
    )
    assert summary["ok"]


def test_a_checkpoint_row_moved_to_another_operator_breaks_both_chains(svc: Svc, twin: Svc) -> None:
    """Copying one operator's checkpoint into another's chain (a database writer's trick)
    does not pass: its Merkle root is not that of the other operator's transactions."""
    _play(svc, 2)
    svc.seal()
    with svc.factory() as session:
        row = session.execute(select(LedgerCheckpoint.__table__)).mappings().one()
        copied = {**row, "operator_id": "twin", "hash": "f" * 64}
        session.execute(insert(LedgerCheckpoint.__table__).values(copied))
        session.commit()
    _play(twin, 1)
    report = twin.audit()
    assert not report.ok
    assert any(check.name == "checkpoints" and not check.ok for check in report.checks)
