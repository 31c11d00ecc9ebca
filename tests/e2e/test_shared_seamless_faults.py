"""A seamless operator's shared table when things go wrong: what the dealer could not send
the worker retries, an unanswered bet or raise is rolled back before anything else of the
bettor's round goes to the wallet (and the dealer waits for it without stopping), a wallet
that forgets a bet it applied is flagged, and a player's racing requests debit the wallet
only for what is recorded; on SQLite and PostgreSQL."""

from __future__ import annotations

from casino.service import wallet_clients
from casino.service.shared.runner import Dealer
from casino.store.wallet_call_records import NEEDS_ATTENTION, OK, PENDING, UNKNOWN
from casino.wallet.client import Outcome, WalletCalls
from casino.wallet.demo.faults import FaultPlan
from casino.wallet.protocol import Bet, BetKind, Call, Status

from .helpers import Player, assert_problem, audit_database, new_key
from .seamless_helpers import FUNDS
from .shared_seamless_helpers import (  # noqa: F401  (the fixture)
    ROUND,
    SharedSeamless,
    agrees_with_wallet,
    close_and_settle,
    reconciliation,
    run_worker,
    shared_seamless_fixture,
    void_round,
)
from .test_concurrency import run_threads


def test_the_worker_sends_the_rollbacks_and_wins_the_dealer_could_not(
    shared_seamless: SharedSeamless, database_url: str
) -> None:
    table = shared_seamless
    alice = table.launch("alice")
    table.to_round("player")
    assert table.bet(alice, 100).status_code == 201
    table.wallet.faults.plan = FaultPlan.parse("error=1")
    close_and_settle(table)  # the win's first attempt fails
    assert table.call_states() == {OK: 1, PENDING: 1}
    assert_problem(table.bet(alice, 100), 409, "betting_closed")
    table.wallet.faults.plan = FaultPlan.parse("")
    table.clock.advance(seconds=5)  # the retry falls due after 1 s
    assert run_worker(table) == 1
    assert table.operator_balance("alice") > FUNDS
    # A void while the wallet fails: its rollback is sent by the worker too.
    table.to_round("player")
    assert table.bet(alice, 100).status_code == 201
    before = table.operator_balance("alice")
    table.wallet.faults.plan = FaultPlan.parse("error=1")
    void_round(table)
    rollback = table.calls(alice)[-1]
    assert (rollback.endpoint, rollback.state, rollback.attempts) == ("rollback", PENDING, 1)
    assert table.mirror(alice) == [("EUR", 100)]  # owed until the wallet confirms
    table.wallet.faults.plan = FaultPlan.parse("")
    table.clock.advance(seconds=5)
    assert run_worker(table) == 1
    rollback = table.calls(alice)[-1]
    assert (rollback.state, rollback.attempts) == (OK, 2)
    assert table.operator_balance("alice") == before + 100
    assert table.mirror(alice) == [("EUR", 0)]
    assert table.call_states() == {OK: 4}  # bet, win, bet, rollback
    summary = reconciliation(table)
    assert summary["pending"] == {"count": 0, "amount": 0}
    assert summary["rollbacks"] == {"count": 1, "amount": 100}
    agrees_with_wallet(table)
    assert audit_database(database_url).ok


class _SilentRaise:
    """A wallet whose raises are applied but never answered."""

    def __init__(self, real: WalletCalls) -> None:
        self.real = real

    def send(self, call: Call, timeout_ms: int | None = None) -> Outcome:
        outcome = self.real.send(call, timeout_ms)
        if isinstance(call, Bet) and call.kind is BetKind.RAISE:
            return Outcome(call, outcome.request_id, Status.UNKNOWN, definite=False)
        return outcome


def _war_unanswered(table: SharedSeamless, who: Player) -> None:
    """``who`` goes to war; the wallet applies the raise and its answer is lost."""
    real = wallet_clients._client
    wallet_clients.use_factory(lambda operator, secrets: _SilentRaise(real(operator, secrets)))
    try:
        assert_problem(table.decide(who, "war"), 503, "wallet_unavailable")
    finally:
        wallet_clients.use_factory(None)


def test_an_unknown_raise_is_rolled_back_before_the_round_settles(
    shared_seamless: SharedSeamless, database_url: str
) -> None:
    table = shared_seamless
    alice = table.launch("alice")
    _, dealt = table.to_round("tie")
    assert table.bet(alice, 100).status_code == 201
    table.clock.advance(seconds=10)
    table.dealer.run()
    _war_unanswered(table, alice)
    assert table.operator_balance("alice") == FUNDS - 100  # the rollback went out at once
    assert sorted((c.endpoint, c.state) for c in table.calls(alice)) == [
        ("bet", OK),
        ("bet", UNKNOWN),
        ("rollback", OK),
    ]
    # Undecided at the deadline: surrendered for; the win of half the ante goes out.
    close_and_settle(table)
    assert table.operator_balance("alice") == FUNDS - 50
    assert table.mirror(alice) == [("EUR", 0)]
    assert audit_database(database_url).ok
    assert dealt.is_tie


def test_a_settlement_waiting_for_a_rollback_does_not_stop_the_dealer(
    shared_seamless: SharedSeamless,
) -> None:
    """The raise's rollback fails too: the round's settlement waits for it (the dealer
    deals its other tables meanwhile), then its wins go out."""
    table = shared_seamless
    alice = table.launch("alice")
    table.to_round("tie")
    assert table.bet(alice, 100).status_code == 201
    table.clock.advance(seconds=10)
    table.dealer.run()
    # The raise is unknown and the wallet then fails its rollback: left pending.
    table.wallet.faults.plan = FaultPlan.parse("error=1")
    try:
        _war_unanswered(table, alice)
    finally:
        table.wallet.faults.plan = FaultPlan.parse("")
    assert table.call_states() == {OK: 1, UNKNOWN: 1, PENDING: 1}
    table.clock.advance(seconds=10)
    dealer = Dealer(table.dealer.database, holder="test")
    dealer.renew()
    due = dealer.run_table("acme", "live")  # closes the decisions, then waits
    assert due is not None and due > table.clock.now
    assert table.dealer.state()["phase"] in ("dealt", "war")
    table.clock.advance(seconds=5)
    assert run_worker(table) == 1
    table.clock.advance(seconds=1)
    dealer.run_table("acme", "live")
    assert table.dealer.state()["phase"] == "settled"
    # The dealer leaves its wins to the outbox loop (its own thread in `casino dealer`).
    assert run_worker(table) >= 1
    assert table.operator_balance("alice") == FUNDS - 50
    assert NEEDS_ATTENTION not in table.call_states()
    dealer.release()


class _SilentBets:
    """A wallet whose bets are applied but never answered."""

    def __init__(self, real: WalletCalls) -> None:
        self.real = real

    def send(self, call: Call, timeout_ms: int | None = None) -> Outcome:
        outcome = self.real.send(call, timeout_ms)
        if isinstance(call, Bet):
            return Outcome(call, outcome.request_id, Status.UNKNOWN, definite=False)
        return outcome


def test_an_unanswered_bet_is_rolled_back_and_takes_no_part(
    shared_seamless: SharedSeamless,
) -> None:
    table = shared_seamless
    alice = table.launch("alice")
    table.to_round("player")
    key = new_key()
    body = {"ante": 100, "tie_bet": 0}
    real = wallet_clients._client
    wallet_clients.use_factory(lambda operator, secrets: _SilentBets(real(operator, secrets)))
    try:
        answer = table.api.post(f"{ROUND}/bets", body, auth=alice.auth, key=key)
        problem = assert_problem(answer, 503, "wallet_unavailable")
        assert answer.headers["Retry-After"] == "2"
        again = table.api.post(f"{ROUND}/bets", body, auth=alice.auth, key=key)
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.get_json() == answer.get_json()
    finally:
        wallet_clients.use_factory(None)
    assert problem["round_id"].startswith("shared:live:") and alice.id in problem["round_id"]
    assert table.operator_balance("alice") == FUNDS  # rolled back at once
    assert sorted((c.endpoint, c.state) for c in table.calls(alice)) == [
        ("bet", UNKNOWN),
        ("rollback", OK),
    ]
    view = table.api.get(ROUND, auth=alice.auth).get_json()
    assert view["my_bet"] is None and view["bettors"] == 0
    assert table.mirror(alice) == [("EUR", 0)]
    # A new bet plays; the round settles with the cancelled bet left out.
    assert table.bet(alice, 100).status_code == 201
    close_and_settle(table)
    assert table.operator_balance("alice") > FUNDS
    assert table.mirror(alice) == [("EUR", 0)]


class _ForgetfulRollbacks:
    """A wallet that answers every rollback as if it had never seen the bet."""

    def __init__(self, real: WalletCalls) -> None:
        self.real = real

    def send(self, call: Call, timeout_ms: int | None = None) -> Outcome:
        if call.endpoint.value == "rollback":
            return Outcome(call, "r-1", Status.TRANSACTION_NOT_FOUND, definite=True)
        return self.real.send(call, timeout_ms)


def test_a_void_bet_the_wallet_says_it_never_saw_needs_attention(
    shared_seamless: SharedSeamless,
) -> None:
    """TRANSACTION_NOT_FOUND ends the rollback of a bet of unknown outcome; for a bet the
    wallet answered OK, the books disagree: a person must look (the refund stays owed)."""
    table = shared_seamless
    alice = table.launch("alice")
    table.to_round("player")
    assert table.bet(alice, 100).status_code == 201
    real = wallet_clients._client
    wallet_clients.use_factory(
        lambda operator, secrets: _ForgetfulRollbacks(real(operator, secrets))
    )
    try:
        void_round(table)
    finally:
        wallet_clients.use_factory(None)
    rollback = table.calls(alice)[-1]
    assert (rollback.endpoint, rollback.state) == ("rollback", NEEDS_ATTENTION)
    assert table.mirror(alice) == [("EUR", 100)]
    assert reconciliation(table)["needs_attention"] == {"count": 1, "amount": 100}


def test_racing_decisions_debit_one_raise(shared_seamless: SharedSeamless) -> None:
    """War sent several times at once (other keys): the operator's wallet hears one raise;
    the others find the decision made before anything is debited."""
    table = shared_seamless
    alice = table.launch("alice")
    table.to_round("tie")
    assert table.bet(alice, 100).status_code == 201
    table.clock.advance(seconds=10)
    table.dealer.run()

    def send(_: int) -> int:
        response = table.app.test_client().post(
            f"{ROUND}/decision",
            json={"action": "war"},
            headers={**alice.auth, "Idempotency-Key": new_key()},
        )
        return int(response.status_code)

    assert sorted(run_threads(4, send)) == [200, 409, 409, 409]
    assert table.operator_balance("alice") == FUNDS - 200
    assert [(c.call.get("kind"), c.state) for c in table.calls(alice)] == [
        ("deal", OK),
        ("raise", OK),
    ]


def test_racing_first_bets_of_a_new_player_add_up(shared_seamless: SharedSeamless) -> None:
    """A player's first bets, at once: the ledger's mirror wallet does not exist yet, and
    is made before the wallet is called, so the bets still come one after the other."""
    table = shared_seamless
    alice = table.launch("alice")
    table.to_round("player")

    def send(_: int) -> int:
        response = table.app.test_client().post(
            f"{ROUND}/bets",
            json={"ante": 100, "tie_bet": 0},
            headers={**alice.auth, "Idempotency-Key": new_key()},
        )
        return int(response.status_code)

    assert run_threads(4, send) == [201] * 4
    assert table.api.get(ROUND, auth=alice.auth).get_json()["my_bet"]["ante"] == 400
    assert table.operator_balance("alice") == FUNDS - 400
