"""Issue 12, point 3: twenty bets (and deposits) sent at once at the edge of a limit never
take its usage past it: the check and the money commit in one transaction.

The deals are steered ahead (a client seed under which the next nonces deal as wanted), and
a refused bet consumes no nonce, so what must happen is known exactly whatever the order the
threads run in: the accepted bets are the first deals, up to the last one the limit allows.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from flask import Flask

from casino.engine.casino_war import CasinoWarDeal
from casino.ledger.audit import format_report

from .helpers import Api, Player, audit_database, new_key
from .protection_helpers import money_limit, set_limits, steer_deals
from .test_concurrency import run_threads

ANTE = 100
THREADS = 20


def accepted_by_loss_limit(deals: list[CasinoWarDeal], limit: int) -> int:
    """How many bets of ANTE a loss limit lets through, in nonce order."""
    used = accepted = 0
    for deal in deals:
        if used + ANTE > limit:
            break
        used += ANTE if deal.player.rank < deal.dealer.rank else -ANTE
        accepted += 1
    return accepted


def bet_all_at_once(app: Flask, player: Player) -> list[tuple[int, dict[str, Any]]]:
    def bet(_: int) -> tuple[int, dict[str, Any]]:
        response = app.test_client().post(
            "/api/v1/rounds",
            json={"table_id": "classic", "ante": ANTE},
            headers={**player.auth, "Idempotency-Key": new_key()},
        )
        return response.status_code, response.get_json()

    return run_threads(THREADS, bet)


def audit_ok(database_url: str) -> None:
    report = audit_database(database_url)
    assert report.ok, format_report(report)


@pytest.mark.parametrize("kind", ["loss", "wager"])
def test_twenty_bets_at_once_never_overshoot_a_limit(
    clocked_app: Flask, capi: Api, gambler: Player, database_url: str, kind: str
) -> None:
    limit = 500 if kind == "loss" else 1_000
    if kind == "loss":
        # Deals under which the loss limit binds before the twentieth bet, without a tie
        # among those it lets through (a tie would hold the next bets on round_in_progress).
        def wanted(deals: list[CasinoWarDeal]) -> bool:
            allowed = accepted_by_loss_limit(deals, limit)
            return allowed < 15 and not any(d.is_tie for d in deals[:allowed])
    else:

        def wanted(deals: list[CasinoWarDeal]) -> bool:
            return not any(d.is_tie for d in deals[: limit // ANTE])

    deals = steer_deals(capi, database_url, gambler, wanted, THREADS)
    expected = accepted_by_loss_limit(deals, limit) if kind == "loss" else limit // ANTE
    set_limits(capi, gambler, {"currency": "EUR", kind: {"day": limit}})

    results = bet_all_at_once(clocked_app, gambler)
    statuses = Counter(status for status, _ in results)
    assert statuses == {201: expected, 409: THREADS - expected}, results
    refusals = [body for status, body in results if status == 409]
    assert {body["code"] for body in refusals} == {"limit_exceeded"}
    assert all(body["used"] + ANTE > body["limit_amount"] == limit for body in refusals)

    rounds = [body for status, body in results if status == 201]
    # The accepted bets are the first deals, each once, whatever thread sent it.
    dealt = sorted((r["fairness"]["nonce"], r["player_card"], r["dealer_card"]) for r in rounds)
    first = dealt[0][0]
    assert [(n - first, p, d) for n, p, d in dealt] == [
        (i, deal.player.code, deal.dealer.code) for i, deal in enumerate(deals[:expected])
    ]
    net_loss = -sum(r["net"] for r in rounds)
    wagered = ANTE * expected
    limits = capi.get(f"/api/v1/players/{gambler.id}/limits", auth=gambler.auth).get_json()
    used = money_limit(limits, kind, "day")["used"]
    assert used == (net_loss if kind == "loss" else wagered)
    assert used <= limit
    assert capi.balance(gambler) == 1_000_000 - net_loss
    audit_ok(database_url)


def test_twenty_deposits_at_once_never_overshoot_a_deposit_limit(
    clocked_app: Flask, capi: Api, database_url: str
) -> None:
    player = capi.create_player()
    set_limits(capi, player, {"currency": "EUR", "deposit": {"day": 1_000}})

    def deposit(index: int) -> int:
        response = clocked_app.test_client().post(
            f"/api/v1/players/{player.id}/deposits",
            json={"currency": "EUR", "amount": 100, "reference": f"pay-{index}"},
            headers={**capi.operator_auth, "Idempotency-Key": new_key()},
        )
        assert response.status_code in (201, 409), response.get_json()
        if response.status_code == 409:
            assert response.get_json()["code"] == "limit_exceeded"
        return response.status_code

    assert Counter(run_threads(THREADS, deposit)) == {201: 10, 409: 10}
    assert capi.balance(player) == 1_000
    audit_ok(database_url)
