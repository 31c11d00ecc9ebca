"""Issue 19, point 1: ``casino audit`` reports how many transactions are not sealed yet, and
fails once one has waited longer than a bound (``--unsealed-max-age``, else
``CASINO_UNSEALED_MAX_AGE_SECONDS``, else 10 minutes): a sealer that stopped, or refuses, is
an alarm, not a silent pass. (The review found an audit of 24,741 transactions with none
sealed saying "all checks passed".)"""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from click.testing import CliRunner

from casino.cli import main as cli
from casino.service import wallets
from casino.service.audit import run_audit
from casino.store.types import utcnow

from .conftest import SIGNING_KEY, Svc


def check(report: object, name: str) -> dict[str, object]:
    found = next(c for c in report.to_dict()["checks"] if c["name"] == name)  # type: ignore[attr-defined]
    return dict(found)


def test_the_audit_counts_unsealed_transactions_and_bounds_their_age(svc: Svc) -> None:
    player = svc.player(funds=1_000)
    svc.seal()
    svc.run(wallets.deposit, player, "EUR", 500, "after the seal")
    svc.run(wallets.withdraw, player, "EUR", 200, "and another")
    ten_minutes = timedelta(minutes=10)
    with svc.uow() as uow:
        fresh = run_audit(uow, [SIGNING_KEY.verifying], unsealed_max_age=ten_minutes)
    assert fresh.ok and (fresh.sealed, fresh.unsealed) == (1, 2)
    assert fresh.to_dict()["transactions"] == {"sealed": 1, "unsealed": 2}
    assert "1 transactions sealed, 2 not yet" in str(check(fresh, "unsealed")["detail"])
    # The same books eleven minutes later, the sealer stopped meanwhile.
    later = utcnow() + timedelta(minutes=11)
    with svc.uow() as uow:
        stale = run_audit(uow, [SIGNING_KEY.verifying], unsealed_max_age=ten_minutes, now=later)
    assert not stale.ok
    assert [c.name for c in stale.checks if not c.ok] == ["unsealed"]
    assert "the oldest for 11 min (more than 10 min)" in str(check(stale, "unsealed")["detail"])
    # Without a bound they are counted only; once sealed there is nothing to wait for.
    with svc.uow() as uow:
        assert run_audit(uow, [SIGNING_KEY.verifying], now=later).ok
    svc.seal()
    with svc.uow() as uow:
        sealed = run_audit(uow, [SIGNING_KEY.verifying], unsealed_max_age=ten_minutes, now=later)
    assert sealed.ok and (sealed.sealed, sealed.unsealed) == (3, 0)


def test_the_audit_command_fails_on_a_transaction_left_unsealed(
    svc: Svc, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CASINO_ENV", "testing")
    monkeypatch.setenv("CASINO_SIGNING_KEY", SIGNING_KEY.private_hex())
    monkeypatch.delenv("CASINO_UNSEALED_MAX_AGE_SECONDS", raising=False)
    svc.player(funds=1_000)  # a deposit nobody sealed
    runner = CliRunner()

    def audit(*args: str) -> tuple[int, dict[str, object]]:
        result = runner.invoke(cli, ["audit", "--database-url", db_url, "--json", *args])
        return result.exit_code, json.loads(result.output)

    status, report = audit()  # the default bound: 10 minutes, and it is fresh
    assert status == 0 and report["transactions"] == {"sealed": 0, "unsealed": 1}
    assert report["unsealed_max_age_seconds"] == 600
    monkeypatch.setenv("CASINO_UNSEALED_MAX_AGE_SECONDS", "0.000001")  # anything waited longer
    status, report = audit()
    assert status == 1
    assert [c["name"] for c in report["checks"] if not c["ok"]] == ["unsealed"]  # type: ignore[attr-defined, index]
    assert audit("--unsealed-max-age", "1h")[0] == 0  # the option wins
    text = runner.invoke(cli, ["audit", "--database-url", db_url])
    assert text.exit_code == 1 and "is the sealer running?" in text.output
    assert runner.invoke(cli, ["seal", "--database-url", db_url]).exit_code == 0
    assert audit()[0] == 0  # sealed: nothing waits
    bad = runner.invoke(cli, ["audit", "--database-url", db_url, "--unsealed-max-age", "soon"])
    assert bad.exit_code == 2
