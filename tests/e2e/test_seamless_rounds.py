"""Seamless rounds (issue 20, item 3): the operator's wallet is debited before the deal,
credited with the win in the settlement's own transaction (an outbox sent at once), and
its refusals and silences map to the API's problems."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest

from casino.api.database import EXTENSION_KEY
from casino.service import wallet_clients
from casino.service.wallet_outbox import run_once
from casino.store.types import utcnow
from casino.store.uow import UnitOfWork
from casino.store.wallet_call_records import OK, PENDING, UNKNOWN
from casino.wallet.client import Outcome
from casino.wallet.protocol import Bet, Status

from .helpers import (
    assert_problem,
    audit_database,
    new_key,
    steer_next_deal,
    tie_then_war_won,
)
from .seamless_helpers import FUNDS, Seamless, seamless_fixture  # noqa: F401  (the fixture)


def call_states(uow: UnitOfWork) -> dict[str, int]:
    """How many of the unit of work's operator's wallet calls are in each state."""
    return {state: n for (_operator, state), n in uow.wallet_calls.states().items()}


def test_a_round_debits_then_credits_the_operator_wallet(
    seamless: Seamless, database_url: str
) -> None:
    alice = seamless.launch()
    paid_total = 0
    for _ in range(20):
        made = seamless.bet(alice, ante=100, tie_bet=100)
        assert made.status_code == 201, made.get_json()
        body = made.get_json()
        if body["status"] == "awaiting_decision":
            decided = seamless.api.post(
                f"/api/v1/rounds/{body['id']}/decision",
                {"action": "war"},
                auth=alice.auth,
                key=new_key(),
            )
            assert decided.status_code == 200, decided.get_json()
            body = decided.get_json()
        paid_total += body["net"]
        # The answer shows the operator's balance after the round.
        assert body["balance_after"] == seamless.operator_balance()
    assert seamless.operator_balance() == FUNDS + paid_total
    wallets = seamless.api.get(f"/api/v1/players/{alice.id}/wallets", auth=seamless.auth)
    assert wallets.get_json() == [{"currency": "EUR", "balance": FUNDS + paid_total}]
    with seamless.uow() as uow:
        assert call_states(uow).get(PENDING, 0) == 0
        # Every win and bet answered OK is in the ledger: the mirror wallet owes nothing.
        assert uow.ledger.balances(alice.id) == [("EUR", 0)]
    assert audit_database(database_url).ok


def test_deposits_and_withdrawals_are_the_operators(seamless: Seamless) -> None:
    alice = seamless.launch()
    for path in ("deposits", "withdrawals"):
        answer = seamless.api.post(
            f"/api/v1/players/{alice.id}/{path}",
            {"currency": "EUR", "amount": 100, "reference": "r-1"},
            auth=seamless.auth,
            key=new_key(),
        )
        assert_problem(answer, 409, "operator_wallet")


class _Answering:
    """A wallet that answers every bet with one status."""

    def __init__(self, status: Status) -> None:
        self.status = status

    def send(self, call: object, timeout_ms: int | None = None) -> Outcome:
        return Outcome(call, "r-1", self.status, definite=True, balance=0)  # type: ignore[arg-type]


def test_definite_refusals_deal_nothing(seamless: Seamless) -> None:
    poor = seamless.launch("poor", funds=50)
    assert_problem(seamless.bet(poor, ante=100), 409, "insufficient_funds")
    store = seamless.wallet.wallet.store
    store.put_account("poor", "EUR", balance=10_000, max_bet=100)
    assert_problem(seamless.bet(poor, ante=200), 409, "limit_exceeded")
    store.put_account("poor", "EUR", blocked=True)
    assert_problem(seamless.bet(poor, ante=100), 403, "player_blocked")
    store.put_account("poor", "EUR", blocked=False)
    store.expire_session("s-1")
    assert_problem(seamless.bet(poor, ante=100), 401, "session_expired")
    wallet_clients.use_factory(lambda operator, secrets: _Answering(Status.DUPLICATE_TRANSACTION))
    try:
        problem = assert_problem(seamless.bet(poor, ante=100), 502, "wallet_error")
        assert problem["wallet_status"] == "DUPLICATE_TRANSACTION"
    finally:
        wallet_clients.use_factory(None)
    assert seamless.operator_balance("poor") == 10_000
    with seamless.uow() as uow:
        assert uow.rounds.open_round_id(poor.id) is None
        assert call_states(uow) == {}


class _Silent:
    """A wallet whose bets are applied but never answered (a dropped answer)."""

    def __init__(self, real: object) -> None:
        self.real = real

    def send(self, call: object, timeout_ms: int | None = None) -> Outcome:
        outcome = self.real.send(call, timeout_ms)  # type: ignore[attr-defined]
        if isinstance(call, Bet):
            return Outcome(call, outcome.request_id, Status.UNKNOWN, definite=False, reason="drop")
        return outcome


def test_an_unknown_bet_voids_the_round_and_is_rolled_back(seamless: Seamless) -> None:
    alice = seamless.launch()
    real = wallet_clients._client
    wallet_clients.use_factory(lambda operator, secrets: _Silent(real(operator, secrets)))
    try:
        key = new_key()
        answer = seamless.bet(alice, ante=100, key=key)
        problem = assert_problem(answer, 503, "wallet_unavailable")
        assert answer.headers["Retry-After"] == "2"
        again = seamless.bet(alice, ante=100, key=key)
        assert again.status_code == 503 and again.headers["Idempotent-Replayed"] == "true"
        assert again.get_json() == answer.get_json()
        assert again.headers["Retry-After"] == "2"
    finally:
        wallet_clients.use_factory(None)
    # The request sent the rollback at once: the wallet has its money back.
    assert seamless.operator_balance() == FUNDS
    with seamless.uow() as uow:
        assert uow.rounds.open_round_id(alice.id) is None
        states = call_states(uow)
        assert states == {UNKNOWN: 1, OK: 1}, states
        assert uow.ledger.balances(alice.id) == [("EUR", 0)]
        rounds = uow.rounds.page(player_id=alice.id, status=None, before=None, limit=5)
        assert rounds == [] and problem["round_id"]


def test_the_worker_sends_what_the_request_could_not(seamless: Seamless) -> None:
    alice = seamless.launch()
    seamless.wallet.faults.plan = type(seamless.wallet.faults.plan).parse("error=1")
    answer = seamless.bet(alice, ante=100)
    assert_problem(answer, 503, "wallet_unavailable")
    with seamless.uow() as uow:
        assert call_states(uow).get(PENDING) == 1
    seamless.wallet.faults.plan = type(seamless.wallet.faults.plan).parse("")
    database = seamless.app.extensions[EXTENSION_KEY]

    def open_uow(operator: str | None) -> UnitOfWork:
        # The retry is due 1 s after the first attempt: the worker's clock is 10 s on.
        uow = database.unit_of_work(operator)
        uow.clock = lambda: utcnow() + timedelta(seconds=10)
        return uow

    assert run_once(open_uow) == 1
    with seamless.uow() as uow:
        assert call_states(uow) == {UNKNOWN: 1, "final": 1}
    assert seamless.operator_balance() == FUNDS


def test_reconciliation_totals_and_every_call(seamless: Seamless) -> None:
    alice = seamless.launch()
    for _ in range(5):
        seamless.play(alice)
    today = utcnow().date().isoformat()
    path = f"/api/v1/operators/acme/reconciliation?date={today}"
    summary = seamless.api.get(path, auth=seamless.api.platform_auth)
    assert summary.status_code == 200, summary.get_json()
    (eur,) = summary.get_json()["currencies"]
    assert eur["currency"] == "EUR" and eur["bets"]["amount"] >= 500
    assert eur["pending"] == {"count": 0, "amount": 0}
    assert seamless.api.get(path, auth=seamless.auth).status_code == 200  # its own
    assert_problem(
        seamless.api.get(path, auth=seamless.api.operator_auth), 404, "operator_not_found"
    )
    assert_problem(
        seamless.api.get(path[:-10] + "2026-13-01", auth=seamless.auth), 422, "invalid_date"
    )
    lines = seamless.api.get(path + "&format=ndjson", auth=seamless.auth)
    assert lines.mimetype == "application/x-ndjson"
    calls = [json.loads(line) for line in lines.get_data(as_text=True).splitlines()]
    lines.close()  # the streamed answer ends its request (as a server closes it)
    assert {c["kind"] for c in calls} <= {"bet", "win"} and len(calls) >= 5
    assert all(c["status"] == "ok" for c in calls)
    # Against the wallet's own records: no difference.
    from casino.service.reconciliation import compare, read_theirs
    from casino.wallet.demo.server import csv_text

    theirs = read_theirs(csv_text(seamless.wallet.wallet.store.export_rows()).splitlines())
    with seamless.uow() as uow:
        assert compare(uow, today, theirs) == []
        first = calls[0]["transaction_id"]
        del theirs[first]
        assert len(compare(uow, today, theirs)) == 1


class _SilentRaise:
    """A wallet whose raises are applied but never answered."""

    def __init__(self, real: object) -> None:
        self.real = real

    def send(self, call: object, timeout_ms: int | None = None) -> Outcome:
        outcome = self.real.send(call, timeout_ms)  # type: ignore[attr-defined]
        if isinstance(call, Bet) and call.kind.value == "raise":
            return Outcome(call, outcome.request_id, Status.UNKNOWN, definite=False, reason="drop")
        return outcome


def test_an_unknown_raise_leaves_the_round_awaiting_its_decision(
    seamless: Seamless, database_url: str
) -> None:
    alice = seamless.launch()
    steer_next_deal(seamless.api, database_url, alice, tie_then_war_won)
    made = seamless.bet(alice, ante=100)
    assert made.status_code == 201 and made.get_json()["status"] == "awaiting_decision"
    round_id = made.get_json()["id"]
    path = f"/api/v1/rounds/{round_id}/decision"
    real = wallet_clients._client
    wallet_clients.use_factory(lambda operator, secrets: _SilentRaise(real(operator, secrets)))
    try:
        war = seamless.api.post(path, {"action": "war"}, auth=alice.auth, key=new_key())
        assert_problem(war, 503, "wallet_unavailable")
    finally:
        wallet_clients.use_factory(None)
    # The raise was rolled back at once: only the deal's stake is out.
    assert seamless.operator_balance() == FUNDS - 100
    recalled = seamless.api.get(f"/api/v1/rounds/{round_id}", auth=alice.auth).get_json()
    assert recalled["status"] == "awaiting_decision"
    # Refused by the wallet: still awaiting; the player can surrender.
    surrender = seamless.api.post(path, {"action": "surrender"}, auth=alice.auth, key=new_key())
    assert surrender.status_code == 200, surrender.get_json()
    assert seamless.operator_balance() == FUNDS - 50
    with seamless.uow() as uow:
        assert uow.ledger.balances(alice.id) == [("EUR", 0)]
        assert call_states(uow) == {OK: 3, UNKNOWN: 1}  # deal, rollback, win; raise
    assert audit_database(database_url).ok


def test_a_refused_raise_leaves_the_round_awaiting_its_decision(
    seamless: Seamless, database_url: str
) -> None:
    alice = seamless.launch("bob", funds=150)
    steer_next_deal(seamless.api, database_url, alice, tie_then_war_won)
    made = seamless.bet(alice, ante=100)
    round_id = made.get_json()["id"]
    path = f"/api/v1/rounds/{round_id}/decision"
    war = seamless.api.post(path, {"action": "war"}, auth=alice.auth, key=new_key())
    assert_problem(war, 409, "insufficient_funds")
    recalled = seamless.api.get(f"/api/v1/rounds/{round_id}", auth=alice.auth).get_json()
    assert recalled["status"] == "awaiting_decision"
    surrender = seamless.api.post(path, {"action": "surrender"}, auth=alice.auth, key=new_key())
    assert surrender.status_code == 200
    assert seamless.operator_balance("bob") == 150 - 50


def test_player_protection_applies_before_the_wallet_is_called(seamless: Seamless) -> None:
    alice = seamless.launch()
    limits = seamless.api.put(
        f"/api/v1/players/{alice.id}/limits",
        {"currency": "EUR", "wager": {"day": 300}},
        auth=seamless.auth,
    )
    assert limits.status_code == 200, limits.get_json()
    for _ in range(3):
        seamless.play(alice, action="surrender")
    # The wager limit counts seamless rounds as any other, and refuses the next stake before
    # the operator's wallet hears of it.
    with seamless.uow() as uow:
        calls_before = sum(call_states(uow).values())
    refused = seamless.bet(alice, ante=100)
    assert_problem(refused, 409, "limit_exceeded")
    with seamless.uow() as uow:
        assert sum(call_states(uow).values()) == calls_before


def test_stale_seamless_rounds_are_resolved_through_the_wallet(
    seamless: Seamless, database_url: str
) -> None:
    from casino.service.rounds import resolve_stale

    alice = seamless.launch()
    steer_next_deal(seamless.api, database_url, alice, tie_then_war_won)
    assert seamless.bet(alice, ante=100).get_json()["status"] == "awaiting_decision"
    with seamless.uow() as uow:
        (view,) = resolve_stale(uow, timedelta(0))
        uow.commit()  # the win is sent right after
    assert view.decision == {"action": "war", "decided_by": "system"}
    assert seamless.operator_balance() == FUNDS + view.net
    assert audit_database(database_url).ok


def test_a_stuck_call_sent_again_on_request_follows_the_deployments_retry_window(
    seamless: Seamless,
) -> None:
    alice = seamless.launch()
    seamless.wallet.faults.plan = type(seamless.wallet.faults.plan).parse("error=1")
    assert_problem(seamless.bet(alice, ante=100), 503, "wallet_unavailable")
    database = seamless.app.extensions[EXTENSION_KEY]

    def open_uow(operator: str | None) -> UnitOfWork:
        uow = database.unit_of_work(operator)
        uow.clock = lambda: utcnow() + timedelta(seconds=10)
        return uow

    def stuck() -> list[dict[str, object]]:
        run_once(open_uow, window=timedelta(seconds=1))  # still refused: past its window
        path = "/api/v1/operators/acme/wallet-calls/needing-attention"
        listed = seamless.api.get(path, auth=seamless.auth)
        assert listed.status_code == 200, listed.get_json()
        return listed.get_json()["items"]

    (call,) = stuck()
    retry = f"/api/v1/operators/acme/wallet-calls/{call['transaction_id']}/retry"
    # Within the deployment's window, an unanswered retry goes back to the workers ...
    seamless.app.config["WALLET_RETRY_WINDOW_SECONDS"] = 3600
    again = seamless.api.post(retry, None, auth=seamless.auth)
    assert again.status_code == 200 and again.get_json()["status"] == PENDING, again.get_json()
    # ... past it, it needs a person again at once.
    assert [c["transaction_id"] for c in stuck()] == [call["transaction_id"]]
    seamless.app.config["WALLET_RETRY_WINDOW_SECONDS"] = 0
    again = seamless.api.post(retry, None, auth=seamless.auth)
    assert again.status_code == 200 and again.get_json()["status"] == "needs_attention"
    seamless.wallet.faults.plan = type(seamless.wallet.faults.plan).parse("")
    fixed = seamless.api.post(retry, None, auth=seamless.auth)
    assert fixed.status_code == 200 and fixed.get_json()["status"] == "final", fixed.get_json()
    assert seamless.operator_balance() == FUNDS


def _failing_commit(monkeypatch: pytest.MonkeyPatch, after: bool) -> list[int]:
    """The next commit of a unit of work that holds a wallet's debit fails: before the
    database commits (``after`` False) or once it has, its answer lost (``after`` True)."""
    from sqlalchemy.exc import OperationalError

    original = UnitOfWork.commit
    failed: list[int] = []

    def commit(self: UnitOfWork) -> None:
        if failed or not self.if_not_committed:
            return original(self)
        failed.append(1)
        hooks = list(self.if_not_committed)
        if after:
            original(self)
            self.if_not_committed = hooks
        raise OperationalError("COMMIT", {}, Exception("database is locked"))

    monkeypatch.setattr(UnitOfWork, "commit", commit)
    return failed


def test_a_debit_whose_round_does_not_commit_is_rolled_back(
    seamless: Seamless, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = seamless.launch()
    failed = _failing_commit(monkeypatch, after=False)
    key = new_key()
    answer = seamless.bet(alice, ante=100, tie_bet=100, key=key)
    assert failed and answer.status_code == 503, answer.get_json()
    # The wallet took 200 for a round that does not exist: it has them back at once.
    assert seamless.operator_balance() == FUNDS
    with seamless.uow() as uow:
        assert uow.rounds.page(player_id=alice.id, status=None, before=None, limit=5) == []
        assert call_states(uow) == {UNKNOWN: 1, OK: 1}
        assert uow.ledger.balances(alice.id) == [("EUR", 0)]
    # The client's retry with the same key is a new bet (nothing was stored under it), here
    # a tie whose tie bet wins.
    steer_next_deal(seamless.api, database_url, alice, lambda deal: deal.is_tie)
    again = seamless.bet(alice, ante=100, tie_bet=100, key=key)
    assert again.status_code == 201 and "Idempotent-Replayed" not in again.headers
    settled = _finished(seamless, alice, again)  # a tie is surrendered first
    assert seamless.operator_balance() == FUNDS + settled["net"]
    assert audit_database(database_url).ok


def _finished(seamless: Seamless, player: Any, made: Any) -> dict[str, Any]:
    """The round ``made`` answered, surrendered if it tied."""
    round_: dict[str, Any] = made.get_json()
    if round_["status"] == "awaiting_decision":
        decided = seamless.api.post(
            f"/api/v1/rounds/{round_['id']}/decision",
            {"action": "surrender"},
            auth=player.auth,
            key=new_key(),
        )
        assert decided.status_code == 200, decided.get_json()
        round_ = decided.get_json()
    return round_


def test_a_debit_whose_round_did_commit_is_kept_though_the_answer_was_lost(
    seamless: Seamless, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    alice = seamless.launch()
    failed = _failing_commit(monkeypatch, after=True)
    key = new_key()
    answer = seamless.bet(alice, ante=100, key=key)
    assert failed and answer.status_code == 503, answer.get_json()
    # The round is on record: its bet is not rolled back (the record's insert refused it).
    again = seamless.bet(alice, ante=100, key=key)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    settled = _finished(seamless, alice, again)  # a tie is surrendered first
    assert seamless.operator_balance() == FUNDS + settled["net"]
    with seamless.uow() as uow:
        assert UNKNOWN not in call_states(uow)
    assert audit_database(database_url).ok
