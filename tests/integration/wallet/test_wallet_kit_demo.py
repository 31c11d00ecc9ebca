"""The certification kit against the reference wallet: it passes a correct wallet, with and
without faults, and catches every broken mode by the check meant for it."""

from __future__ import annotations

import pytest

from casino.wallet.check import CHECKS, PASS, SKIP
from casino.wallet.demo import BROKEN, FaultPlan, Faults

from .conftest import CURRENCY, PLAYER, failed, kit

EXPIRED = "an-expired-session"
BLOCKED = "blocked-player"


def _with_optional_accounts(server, admin) -> None:  # type: ignore[no-untyped-def]
    client = admin(server)
    client.expire_session(EXPIRED)
    client.put_player(BLOCKED, CURRENCY, balance=1_000, blocked=True)


def test_the_kit_passes_the_reference_wallet_every_check_run(demo_wallet, admin) -> None:  # type: ignore[no-untyped-def]
    server = demo_wallet()
    _with_optional_accounts(server, admin)
    results, change = kit(server.url, expired_session=EXPIRED, blocked_player=BLOCKED)
    assert failed(results) == {}
    assert {result.verdict for result in results.values()} == {PASS}
    assert set(results) == {item.name for item in CHECKS}
    # Every round the kit opens is closed, and what it loses in one it wins back in another.
    assert change == 0
    assert admin(server).account(PLAYER, CURRENCY)["balance"] == 100_000


def test_optional_checks_are_skipped_and_say_how_to_run_them(demo_wallet) -> None:  # type: ignore[no-untyped-def]
    results, _ = kit(demo_wallet().url)
    assert failed(results) == {}
    skipped = {name: r.detail for name, r in results.items() if r.verdict == SKIP}
    assert skipped == {
        "expired session": "optional: give --expired-session",
        "blocked player": "optional: give --blocked-player",
    }


@pytest.mark.parametrize(
    "plan",
    ["timeout=0.15", "error=0.2", "drop=0.2", "timeout=0.05,error=0.1,drop=0.1"],
)
def test_the_kit_passes_the_reference_wallet_with_faults(demo_wallet, plan: str) -> None:  # type: ignore[no-untyped-def]
    # Retried like the game server would (same transaction id, new request id), every
    # unknown outcome settles: idempotency absorbs the dropped answers and late arrivals.
    faults = Faults(FaultPlan.parse(plan), delay=0.4, seed=7)
    server = demo_wallet(faults=faults)
    results, _ = kit(server.url, timeout_ms=200, attempts=12)
    assert failed(results) == {}
    planned = {kind for kind in ("timeout", "error", "drop") if getattr(faults.plan, kind)}
    assert {kind for kind, count in faults.counts.items() if count} == planned


# The check meant to catch each broken mode (others may fail too).
CAUGHT_BY = {
    "double-credit": "win",
    "no-idempotency": "bet repeated",
    "duplicate-as-repeat": "same id, other payload",
    "signature-over-reserialised-json": "signature over the bytes received",
    "no-timestamp-check": "stale timestamp",
    "rollback-unknown-as-error": "rollback of an unknown bet",
    "late-bet-accepted": "late bet after its rollback",
    "racy-duplicates": "concurrent duplicates",
    "win-needs-session": "expired session",
}


def test_every_broken_mode_has_the_check_that_catches_it() -> None:
    assert set(CAUGHT_BY) == set(BROKEN)
    assert set(CAUGHT_BY.values()) <= {item.name for item in CHECKS}


@pytest.mark.parametrize("mode", sorted(BROKEN))
def test_the_kit_catches_each_broken_wallet(demo_wallet, admin, mode: str) -> None:  # type: ignore[no-untyped-def]
    server = demo_wallet(broken=mode)
    _with_optional_accounts(server, admin)
    results, _ = kit(
        server.url, expired_session=EXPIRED, blocked_player=BLOCKED, attempts=2, timeout_ms=1000
    )
    assert CAUGHT_BY[mode] in failed(results), failed(results)
