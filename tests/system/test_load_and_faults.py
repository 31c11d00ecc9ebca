"""Issue 5, sections 1 and 2 in their short CI form: two gunicorn instances (2 workers each)
on one PostgreSQL database, 32 client threads over 50 players (some wallets shared by several
threads), ties decided both ways, retries with the same Idempotency-Key, reused keys with
another body, the same key sent twice at once; during the load one worker is killed with
``kill -9`` and PostgreSQL is restarted once.

The restart hits a private PostgreSQL server started for this test (``PrivateCluster``), so
other tests using the machine's server at the same moment are not disturbed. Everything is
bounded: ``CASINO_SYSTEM_LOAD_SECONDS`` of load (default 30), then the checks.

``make soak`` runs the same scenario for longer (``bench/soak.py``).
"""

from __future__ import annotations

import os

import pytest

from harness import pg
from harness.scenario import Scenario, run_scenario

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


def test_load_with_worker_kill_and_database_restart() -> None:
    if not pg.can_run_private_cluster():
        pytest.fail("PostgreSQL server binaries (initdb, pg_ctl) are needed for the fault run")
    seconds = float(os.environ.get("CASINO_SYSTEM_LOAD_SECONDS", "30"))
    scenario = Scenario(
        name="system",
        instances=2,
        workers=2,
        load={"duration": seconds, "threads": 32, "players": 50, "shared_players": 10},
        kill_worker_at=[0.3],
        restart_postgres_at=0.6,
        postgres="private",
    )
    result = run_scenario(scenario, log=lambda line: None)
    summary = result.summary()
    print(summary)  # shown with -s, and in the report of a failure
    stats = result.run.stats

    # Both faults happened, and the service was whole again without any restart of the app.
    assert [e.kind for e in result.faults] == ["kill -9 worker", "restart PostgreSQL"], summary
    assert all(e.recovered_after is not None for e in result.faults), summary
    assert result.recovery_seconds is not None and result.recovery_seconds < 30, summary

    # Real load went through, and each idempotency path was exercised.
    assert stats.settled >= 50, summary
    assert stats.replays_checked >= 1, summary
    assert stats.reuses_checked >= 1, summary
    assert stats.duplicates_checked >= 1, summary

    # Every client learnt the outcome of everything it sent.
    assert stats.unresolved_after_run == 0, summary

    # The money: audit clean, no wallet ever negative, balances agree three ways, no double
    # charge, no half-settled round, no stake without its round; no 5xx but problem+json 503.
    assert result.report is not None and result.report.audit is not None, summary
    assert result.report.audit.ok, result.report.audit.output
    assert result.failures == [], summary
