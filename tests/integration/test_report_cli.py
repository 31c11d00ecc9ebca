"""``casino report`` (JSON and text) and ``casino audit --json --since``."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import click
import pytest
from click.testing import CliRunner
from sqlalchemy import update

from casino.cli import main as cli
from casino.cli.report_cmds import parse_instant
from casino.engine.casino_war import TableRules
from casino.service import rounds as round_service
from casino.service import tables
from casino.service.reports import report_json, table_report
from casino.store.models import Account, Round
from harness.synthetic_rounds import insert_rounds
from harness.synthetic_rounds import rounds as synthetic_rounds

from .conftest import Svc
from .test_reports import DAY, seat


def invoke(*args: str) -> click.testing.Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def dealer_always_wins(nonce: int, deal: Any) -> bool:
    return bool(deal.player.rank < deal.dealer.rank)


@pytest.fixture
def two_tables(svc: Svc) -> None:
    rules = TableRules()
    svc.run(tables.create_table, "fair", "EUR", rules)
    svc.run(tables.create_table, "crooked", "EUR", rules)
    player = svc.player()
    seats = {
        table_id: seat(svc, player, table_id, "EUR", rules) for table_id in ("fair", "crooked")
    }
    with svc.factory() as session:
        for table_id, rig in (("fair", None), ("crooked", dealer_always_wins)):
            insert_rounds(
                session,
                synthetic_rounds(
                    seats[table_id],
                    300,
                    bets=[(100, 0), (200, 100)],
                    war=lambda i: bool(i % 2),
                    when=lambda i: DAY + timedelta(minutes=i * 7),
                    rig=rig,
                ),
            )
        session.commit()


def without_clock(report: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in report.items() if key != "generated_at"}


@pytest.mark.usefixtures("two_tables")
def test_report_json_is_the_service_report(svc: Svc, db_url: str) -> None:
    result = invoke("report", "--database-url", db_url, "--json", "--since", "2026-11-02")
    assert result.exit_code == 0, result.output
    printed = json.loads(result.output)
    with svc.uow() as uow:
        expected = report_json(table_report(uow, since=datetime(2026, 11, 2, tzinfo=UTC)))
    assert without_clock(printed) == without_clock(expected)
    assert [t["table_id"] for t in printed["tables"]] == ["crooked", "fair"]


@pytest.mark.usefixtures("two_tables")
def test_report_text_shows_every_table_day_and_the_flag(db_url: str) -> None:
    result = invoke("report", "--database-url", db_url, "--until", "2026-11-03")
    assert result.exit_code == 0, result.output
    text = result.output
    assert "fair (EUR): 6 decks, tie bet 10:1 (300 rounds" in text
    crooked = text[text.index("crooked (EUR)") : text.index("fair (EUR)")]
    assert "** FLAGGED **" in crooked and "OUTSIDE" in crooked
    fair = text[text.index("fair (EUR)") :]
    for label in ("2026-11-02", "2026-11-03", "total", "all bets", "ante game", "tie bet"):
        assert label in fair
    assert "ties " in fair and "war " in fair and "surrender " in fair
    # The crooked dealer never lets the player win: an RTP of 0 % on the ante game.
    assert "0.00%" in crooked


def test_report_refuses_a_bad_period(db_url: str) -> None:
    result = CliRunner().invoke(cli, ["report", "--database-url", db_url, "--since", "soon"])
    assert result.exit_code == 2 and "not a date, date-time or age" in result.output
    result = CliRunner().invoke(
        cli, ["report", "--database-url", db_url, "--since", "2026-11-02", "--until", "2026-11-01"]
    )
    assert result.exit_code == 1 and "since must be before until" in result.output
    empty = invoke("report", "--database-url", db_url)
    assert "No rounds settled in this period." in empty.output


def test_instants_for_the_command_line() -> None:
    now = datetime(2026, 11, 30, 12, tzinfo=UTC)
    assert parse_instant("7d", now=now) == now - timedelta(days=7)
    assert parse_instant("2026-11-30") == datetime(2026, 11, 30, tzinfo=UTC)
    assert parse_instant("2026-11-30", end_of_day=True) == datetime(2026, 12, 1, tzinfo=UTC)
    assert parse_instant("2026-11-30T12:00:00+01:00") == datetime(2026, 11, 30, 11, tzinfo=UTC)
    assert parse_instant("2026-11-30T12:00") == datetime(2026, 11, 30, 12, tzinfo=UTC)
    with pytest.raises(click.BadParameter):
        parse_instant("tomorrow")


# ---------------------------------------------------------------- audit --json --since


def audit_json(db_url: str, *extra: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(cli, ["audit", "--database-url", db_url, "--json", *extra])
    return result.exit_code, json.loads(result.output)


def test_audit_json_and_since(svc: Svc, db_url: str) -> None:
    svc.run(tables.create_table, "classic", "EUR", TableRules())
    player = svc.player(funds=100_000)
    for _ in range(6):
        view = svc.run(round_service.place_bet, player, "classic", 100)
        if view.status == "awaiting_decision":  # type: ignore[attr-defined]
            svc.run(round_service.decide, view.id, "war", player_id=player)  # type: ignore[attr-defined]
    code, report = audit_json(db_url)
    assert code == 0 and report["ok"] is True and report["rounds_since"] is None
    names = [check["name"] for check in report["checks"]]
    # The shared tables' replay (issue 22) comes after the private rounds'.
    assert names[-2:] == ["rounds_replay", "shared_rounds_replay"] and "wallet_chains" in names
    assert all(check["ok"] for check in report["checks"])
    assert report["checks"][-2]["detail"].startswith("6 rounds re-dealt")

    # Push the rounds back a day, and tamper one of them: the full replay catches it...
    earlier = datetime.now(UTC) - timedelta(days=1)
    with svc.factory() as session:
        session.execute(update(Round).values(created_at=earlier))
        first = session.query(Round).first()
        assert first is not None
        first.ante_payout += 100
        session.commit()
    code, report = audit_json(db_url)
    assert code == 1 and report["ok"] is False
    assert not report["checks"][-2]["ok"] and "ante" in report["checks"][-2]["detail"]
    # ... a replay of the last hour does not look at it, and finds no "missing" round either.
    code, report = audit_json(db_url, "--since", "1h")
    assert code == 0, report
    assert report["rounds_since"] is not None
    assert report["checks"][-2]["detail"].startswith("0 rounds (started since ")

    # The books are checked whole whatever --since says.
    with svc.factory() as session:
        session.execute(
            update(Account).where(Account.kind == "wallet").values(balance=Account.balance + 1)
        )
        session.commit()
    code, report = audit_json(db_url, "--since", "1h")
    assert code == 1
    failed = {check["name"] for check in report["checks"] if not check["ok"]}
    assert "balances_match_postings" in failed and "rounds_replay" not in failed

    text = CliRunner().invoke(cli, ["audit", "--database-url", db_url, "--since", "1h"])
    assert text.exit_code == 1 and "FAIL" in text.output and "{" not in text.output
