from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from sqlalchemy import update

from casino.cli import main as cli
from casino.cli.ops_cmds import parse_duration
from casino.service import rounds
from casino.service.auth import authenticate
from casino.service.errors import Unauthenticated
from casino.store import database_url
from casino.store.models import Round, utcnow

from .conftest import Svc, is_tie


def invoke(*args: str) -> click.testing.Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_database_url_default_and_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert database_url() == f"sqlite:///{tmp_path / 'instance' / 'casino.db'}"
    assert (tmp_path / "instance").is_dir()
    assert database_url({"DATABASE_URL": "postgres://u:p@h/db"}) == (
        "postgresql+psycopg://u:p@h/db"
    )
    assert database_url({"DATABASE_URL": "sqlite:///x.db"}) == "sqlite:///x.db"


def test_fresh_install_flow(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert "head" in invoke("db-upgrade").output
    first = invoke("seed-demo")
    assert first.exit_code == 0
    assert re.search(r"operator token:\s+op_\S+", first.output)
    assert re.search(r"player token:\s+pl_\S+", first.output)
    assert "1000000 EUR" in first.output
    again = invoke("seed-demo")  # a second run is harmless
    assert again.exit_code == 0 and "1000000 EUR" in again.output
    token = invoke("create-operator-token", "--name", "ci").output.strip()
    assert token.startswith("op_")
    audit = invoke("audit")
    assert audit.exit_code == 0 and "all checks passed" in audit.output
    assert (tmp_path / "instance" / "casino.db").exists()


def test_seed_demo_tokens_work(svc: Svc, db_url: str, tmp_path: Path) -> None:
    kept = str(tmp_path / "demo-credentials.json")
    output = invoke("seed-demo", "--database-url", db_url, "--credentials-file", kept).output
    operator = re.search(r"operator token:\s+(\S+)", output)
    player = re.search(r"player token:\s+(\S+)", output)
    assert operator and player
    with svc.uow() as uow:
        assert authenticate(uow, operator.group(1), []).role == "operator"
        assert authenticate(uow, player.group(1), []).role == "player"


def test_operator_tokens_have_a_scope(svc: Svc, db_url: str) -> None:
    create = ("create-operator-token", "--database-url", db_url, "--name")
    auditor = invoke(*create, "books", "--scope", "auditor").output.strip()
    admin = invoke(*create, "everything").output.strip()
    with svc.uow() as uow:
        assert authenticate(uow, auditor, []).scope == "auditor"
        assert authenticate(uow, admin, []).scope == "admin"
    listed = invoke("list-operator-tokens", "--database-url", db_url).output
    rows = {line.split("\t")[1]: line.split("\t")[-1] for line in listed.splitlines()}
    assert rows["books"] == "auditor" and rows["everything"] == "admin"
    wrong = CliRunner().invoke(cli, [*create, "x", "--scope", "root"])
    assert wrong.exit_code == 2 and "root" in wrong.output


def test_list_and_revoke_operator_tokens(svc: Svc, db_url: str) -> None:
    token = invoke("create-operator-token", "--database-url", db_url, "--name", "ci-bot").output
    token = token.strip()
    with svc.uow() as uow:
        assert authenticate(uow, token, []).role == "operator"
    listed = invoke("list-operator-tokens", "--database-url", db_url).output
    row = next(line for line in listed.splitlines() if "\tci-bot\t" in line)
    assert token not in listed
    token_id = row.split("\t")[0]
    revoked = invoke("revoke-operator-token", "--database-url", db_url, token_id)
    assert revoked.exit_code == 0 and "ci-bot" in revoked.output
    with svc.uow() as uow, pytest.raises(Unauthenticated):
        authenticate(uow, token, [])
    assert "ci-bot" not in invoke("list-operator-tokens", "--database-url", db_url).output
    again = CliRunner().invoke(cli, ["revoke-operator-token", "--database-url", db_url, token_id])
    assert again.exit_code == 1 and "no operator token" in again.output


def test_resolve_stale_command(svc: Svc, db_url: str, demo_tables: list[str]) -> None:
    pid = svc.player(funds=5000)
    svc.steer(pid, is_tie)
    opened = svc.run(rounds.place_bet, pid, "classic", 1000)
    assert (
        "0 round(s) resolved"
        in invoke("resolve-stale", "--older-than", "24h", "--database-url", db_url).output
    )
    with svc.uow() as uow:
        uow.session.execute(update(Round).values(created_at=utcnow() - timedelta(days=2)))
        uow.commit()
    output = invoke("resolve-stale", "--older-than", "24h", "--database-url", db_url).output
    assert opened.id in output and "war" in output and "1 round(s) resolved" in output
    with svc.uow() as uow:
        assert rounds.get_round(uow, opened.id, None).decision == {
            "action": "war",
            "decided_by": "system",
        }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("24h", timedelta(hours=24)),
        ("90m", timedelta(minutes=90)),
        ("1d12h", timedelta(days=1, hours=12)),
        ("3600", timedelta(seconds=3600)),
        ("2w", timedelta(weeks=2)),
    ],
)
def test_parse_duration(text: str, expected: timedelta) -> None:
    assert parse_duration(text) == expected


@pytest.mark.parametrize("text", ["", "h", "24x", "-1h", "1h junk"])
def test_parse_duration_rejects(text: str) -> None:
    with pytest.raises(click.BadParameter):
        parse_duration(text)


def test_the_wallet_retry_window_is_read_once_for_every_process() -> None:
    """The web tier's setting and the workers' default come from one reading."""
    from config import ConfigError, TestingConfig, wallet_retry_window

    assert wallet_retry_window({}) == 24 * 3600
    assert wallet_retry_window({"CASINO_WALLET_RETRY_WINDOW": "90m"}) == 5400
    loaded = TestingConfig.load({"CASINO_WALLET_RETRY_WINDOW": "2h"})
    assert loaded["WALLET_RETRY_WINDOW_SECONDS"] == 7200
    with pytest.raises(ConfigError, match="CASINO_WALLET_RETRY_WINDOW"):
        wallet_retry_window({"CASINO_WALLET_RETRY_WINDOW": "soon"})
