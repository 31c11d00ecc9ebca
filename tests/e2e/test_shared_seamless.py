"""A seamless operator's shared table (docs/shared-tables.md, "Money"; docs/integration.md):
every bet is a `bet` debit at the operator's wallet, every settled bettor gets a `win` (a
zero one for a lost bet if the operator wants it), a war a `raise` debit, a void round a
`rollback` of each debit, what could not be sent is retried by the worker, and the
reconciliation agrees with the wallet's books; on SQLite and PostgreSQL."""

from __future__ import annotations

from casino.audit_export import casino_audit_export as verifier
from casino.engine.casino_war import Decision, HandDecision, TableRules
from casino.engine.casino_war.rules import from_shown
from casino.engine.shared import SharedBet, settle_bet
from casino.service import wallet_clients
from casino.service.reconciliation import compare, read_theirs
from casino.service.shared.runner import Dealer
from casino.service.wallet_outbox import run_once
from casino.store.uow import UnitOfWork
from casino.store.wallet_call_records import NEEDS_ATTENTION, OK, PENDING, UNKNOWN
from casino.wallet.client import Outcome, WalletCalls
from casino.wallet.demo.faults import FaultPlan
from casino.wallet.demo.server import csv_text
from casino.wallet.protocol import Bet, BetKind, Call, Status

from .helpers import Player, assert_problem, audit_database, new_key
from .seamless_helpers import FUNDS
from .shared_seamless_helpers import (  # noqa: F401  (the fixture)
    ROUND,
    SharedSeamless,
    shared_seamless_fixture,
)
from .test_concurrency import run_threads


def _rules(table: SharedSeamless) -> TableRules:
    shown = table.api.get("/api/v1/tables/live", auth=table.auth).get_json()["rules"]
    return TableRules.from_dict(from_shown(shown))


def _close_and_settle(table: SharedSeamless) -> list[str]:
    table.clock.advance(seconds=10)
    steps = table.dealer.run()
    for _ in range(3):  # a tie: the decision window, then the war
        if "settle" in steps:
            break
        table.clock.advance(seconds=10)
        steps += table.dealer.run()
    assert "settle" in steps, steps
    return steps


def _summary(table: SharedSeamless) -> dict:
    day = table.clock.now.date().isoformat()
    path = f"/api/v1/operators/acme/reconciliation?date={day}"
    answer = table.api.get(path, auth=table.auth)
    assert answer.status_code == 200, answer.get_json()
    (eur,) = answer.get_json()["currencies"]
    return dict(eur)


def _agrees(table: SharedSeamless) -> None:
    """Our calls of the day against the wallet's own records: no difference."""
    rows = table.wallet.wallet.store.export_rows()
    theirs = read_theirs(csv_text(rows).splitlines())
    with table.uow() as uow:
        assert compare(uow, table.clock.now.date().isoformat(), theirs) == []


def test_bets_debit_and_every_bettor_gets_a_win(
    shared_seamless: SharedSeamless, database_url: str
) -> None:
    table = shared_seamless
    alice, bob = table.launch("alice"), table.launch("bob")
    _, dealt = table.to_round("player")
    first = table.bet(alice, 100, 10)
    assert first.status_code == 201, first.get_json()
    # The answer shows the operator's balance after the debit (the mirror wallet holds 0).
    assert first.get_json()["balance_after"] == FUNDS - 110 == table.operator_balance("alice")
    more = table.bet(alice, 50)
    assert more.status_code == 201 and more.get_json()["ante"] == 150
    assert table.operator_balance("alice") == FUNDS - 160
    assert table.bet(bob, 30).status_code == 201
    # The round view does not guess the operator's balance; the wallets listing asks it.
    view = table.api.get(ROUND, auth=alice.auth).get_json()
    assert view["my_bet"]["ante"] == 150 and view["my_bet"]["balance_after"] is None
    _close_and_settle(table)
    rules = _rules(table)
    for who, ante, tie in ((alice, 150, 10), (bob, 30, 0)):
        expected = settle_bet(rules, dealt, SharedBet(who.id, ante, tie))
        assert expected.net > 0 or tie  # the player's card won
        assert table.operator_balance(who.external_ref) == FUNDS + expected.net
        listed = table.api.get(f"/api/v1/players/{who.id}/wallets", auth=table.auth)
        assert listed.get_json() == [{"currency": "EUR", "balance": FUNDS + expected.net}]
        assert table.mirror(who) == [("EUR", 0)]
        calls = table.calls(who)
        assert [c.endpoint for c in calls][-1] == "win" and all(c.state == OK for c in calls)
        assert all(c.call.get("kind") in (None, "deal") for c in calls)
    # Each bettor's part is a round of its own at the wallet: one win each, both applied.
    rounds = {c.round_id for who in (alice, bob) for c in table.calls(who)}
    assert len(rounds) == 2
    assert all(r.startswith("shared:live:") for r in rounds)
    assert audit_database(database_url).ok


def test_a_lost_round_is_closed_with_a_zero_win_if_the_operator_wants_it(
    shared_seamless: SharedSeamless, database_url: str
) -> None:
    table = shared_seamless
    alice = table.launch("alice")
    table.to_round("dealer")
    assert table.bet(alice, 100).status_code == 201
    _close_and_settle(table)
    assert table.operator_balance("alice") == FUNDS - 100
    assert [(c.endpoint, c.amount, c.state) for c in table.calls(alice)] == [
        ("bet", 100, OK),
        ("win", 0, OK),
    ]
    changed = table.api.patch(
        "/api/v1/operators/acme",
        {"wallet": {"close_losing_round_with_zero_win": False}},
        auth=table.api.platform_auth,
    )
    assert changed.status_code == 200, changed.get_json()
    table.to_round("dealer")
    assert table.bet(alice, 100).status_code == 201
    _close_and_settle(table)
    assert table.operator_balance("alice") == FUNDS - 200
    assert [c.endpoint for c in table.calls(alice)] == ["bet", "win", "bet"]
    assert table.mirror(alice) == [("EUR", 0)]
    assert audit_database(database_url).ok


def test_a_refused_debit_writes_nothing(shared_seamless: SharedSeamless) -> None:
    table = shared_seamless
    poor = table.launch("poor", funds=50)
    table.to_round("player")
    assert_problem(table.bet(poor, 100), 409, "insufficient_funds")
    store = table.wallet.wallet.store
    store.put_account("poor", "EUR", blocked=True)
    assert_problem(table.bet(poor, 10), 403, "player_blocked")
    assert table.operator_balance("poor") == 50
    view = table.api.get(ROUND, auth=poor.auth).get_json()
    assert view["my_bet"] is None and view["bettors"] == 0
    with table.uow() as uow:
        assert uow.wallet_calls.states() == {}
        assert uow.ledger.balances(poor.id) == []


def test_a_war_debits_the_raise_and_a_refused_raise_can_still_surrender(
    shared_seamless: SharedSeamless, database_url: str
) -> None:
    table = shared_seamless
    warrior, short = table.launch("warrior"), table.launch("short", funds=150)
    _, dealt = table.to_round("tie")
    assert table.bet(warrior, 100).status_code == 201
    assert table.bet(short, 100).status_code == 201
    table.clock.advance(seconds=10)
    assert table.dealer.run() == ["close_betting", "deal"]
    war = table.decide(warrior, "war")
    assert war.status_code == 200, war.get_json()
    assert war.get_json()["balance_after"] == FUNDS - 200 == table.operator_balance("warrior")
    # The wallet has 50 left for a raise of 100: refused, nothing written, still undecided.
    assert_problem(table.decide(short, "war"), 409, "insufficient_funds")
    assert table.api.get(ROUND, auth=short.auth).get_json()["my_bet"]["awaiting_decision"]
    surrender = table.decide(short, "surrender")
    assert surrender.status_code == 200, surrender.get_json()
    assert surrender.get_json()["balance_after"] is None
    _close_and_settle(table)
    rules = _rules(table)
    expected = settle_bet(rules, dealt, SharedBet(warrior.id, 100, 0, HandDecision(Decision.WAR)))
    assert table.operator_balance("warrior") == FUNDS + expected.net
    assert table.operator_balance("short") == 150 - 50
    warrior_calls = table.calls(warrior)
    assert [(c.endpoint, c.call.get("kind"), c.amount) for c in warrior_calls[:2]] == [
        ("bet", "deal", 100),
        ("bet", "raise", 100),
    ]
    assert [(c.endpoint, c.amount) for c in table.calls(short)] == [("bet", 100), ("win", 50)]
    assert audit_database(database_url).ok


def _void(table: SharedSeamless) -> list[str]:
    table.clock.advance(minutes=6)
    steps = table.dealer.run()
    assert "void" in steps, steps
    return steps


def test_a_void_round_rolls_back_every_debit(
    shared_seamless: SharedSeamless, database_url: str
) -> None:
    table = shared_seamless
    alice, bob = table.launch("alice"), table.launch("bob")
    table.to_round("tie")
    assert table.bet(alice, 100, 10).status_code == 201
    assert table.bet(alice, 50).status_code == 201
    assert table.bet(bob, 100).status_code == 201
    table.clock.advance(seconds=10)
    assert table.dealer.run() == ["close_betting", "deal"]
    assert table.decide(alice, "war").status_code == 200  # a raise of 150
    assert table.operator_balance("alice") == FUNDS - 310
    # No dealer for 5 minutes past the decision deadline: the round is void.
    _void(table)
    for who in (alice, bob):
        assert table.operator_balance(who.external_ref) == FUNDS
        assert table.mirror(who) == [("EUR", 0)]
        calls = table.calls(who)
        bets = [c for c in calls if c.endpoint == "bet"]
        rollbacks = [c for c in calls if c.endpoint == "rollback"]
        assert not [c for c in calls if c.endpoint == "win"]
        # One rollback of each debit, for its amount, each applied.
        assert sorted((r.reference_transaction_id, r.amount) for r in rollbacks) == sorted(
            (b.transaction_id, b.amount) for b in bets
        )
        assert all(c.state == OK for c in calls)
    assert len(table.calls(alice)) == 6  # deal, deal, raise and their rollbacks
    view = table.api.get(ROUND, auth=alice.auth).get_json()
    assert view["road"][-1]["winner"] == "void"
    summary = _summary(table)
    assert summary["bets"] == {"count": 4, "amount": 410}
    assert summary["rollbacks"] == {"count": 4, "amount": 410}
    assert summary["wins"] == {"count": 0, "amount": 0}
    _agrees(table)
    assert audit_database(database_url).ok


def _worker(table: SharedSeamless) -> int:
    def open_uow(operator: str | None) -> UnitOfWork:
        return table.dealer.database.unit_of_work(operator)

    return run_once(open_uow)


def test_the_worker_sends_the_rollbacks_and_wins_the_dealer_could_not(
    shared_seamless: SharedSeamless, database_url: str
) -> None:
    table = shared_seamless
    alice = table.launch("alice")
    table.to_round("player")
    assert table.bet(alice, 100).status_code == 201
    table.wallet.faults.plan = FaultPlan.parse("error=1")
    _close_and_settle(table)  # the win's first attempt fails
    with table.uow() as uow:
        assert uow.wallet_calls.states() == {OK: 1, PENDING: 1}
    assert_problem(table.bet(alice, 100), 409, "betting_closed")
    table.wallet.faults.plan = FaultPlan.parse("")
    table.clock.advance(seconds=5)  # the retry falls due after 1 s
    assert _worker(table) == 1
    assert table.operator_balance("alice") > FUNDS
    # A void while the wallet fails: its rollback is sent by the worker too.
    table.to_round("player")
    assert table.bet(alice, 100).status_code == 201
    before = table.operator_balance("alice")
    table.wallet.faults.plan = FaultPlan.parse("error=1")
    _void(table)
    rollback = table.calls(alice)[-1]
    assert (rollback.endpoint, rollback.state, rollback.attempts) == ("rollback", PENDING, 1)
    assert table.mirror(alice) == [("EUR", 100)]  # owed until the wallet confirms
    table.wallet.faults.plan = FaultPlan.parse("")
    table.clock.advance(seconds=5)
    assert _worker(table) == 1
    rollback = table.calls(alice)[-1]
    assert (rollback.state, rollback.attempts) == (OK, 2)
    assert table.operator_balance("alice") == before + 100
    assert table.mirror(alice) == [("EUR", 0)]
    with table.uow() as uow:
        assert uow.wallet_calls.states() == {OK: 4}  # bet, win, bet, rollback
    summary = _summary(table)
    assert summary["pending"] == {"count": 0, "amount": 0}
    assert summary["rollbacks"] == {"count": 1, "amount": 100}
    _agrees(table)
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
    _close_and_settle(table)
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
    with table.uow() as uow:
        assert uow.wallet_calls.states() == {OK: 1, UNKNOWN: 1, PENDING: 1}
    table.clock.advance(seconds=10)
    dealer = Dealer(table.dealer.database, holder="test")
    dealer.renew()
    due = dealer.run_table("acme", "live")  # closes the decisions, then waits
    assert due is not None and due > table.clock.now
    assert table.dealer.state()["phase"] in ("dealt", "war")
    table.clock.advance(seconds=5)
    assert _worker(table) == 1
    table.clock.advance(seconds=1)
    dealer.run_table("acme", "live")
    assert table.dealer.state()["phase"] == "settled"
    assert table.operator_balance("alice") == FUNDS - 50
    with table.uow() as uow:
        assert NEEDS_ATTENTION not in uow.wallet_calls.states()
    dealer.release()


def test_the_export_verifier_accepts_a_seamless_shared_table(
    shared_seamless: SharedSeamless,
) -> None:
    """The mirror wallet's deposits and returns (bets, wins, rollbacks of a void) and the
    shared bets' own transactions, in the operator's export, as its auditor checks them."""
    table = shared_seamless
    alice = table.launch("alice")
    table.to_round("player")
    assert table.bet(alice, 100, 10).status_code == 201
    _close_and_settle(table)
    table.to_round("dealer")
    assert table.bet(alice, 100).status_code == 201
    _void(table)
    exported = table.api.get("/api/v1/ledger/export", auth=table.auth)
    assert exported.status_code == 200, exported.get_json()
    key = bytes.fromhex(table.api.get("/api/v1/ledger/public-key").get_json()["public_key"])
    summary = verifier.verify(
        exported.get_data().splitlines(keepends=True), [key], allow_unsealed=True
    )
    assert summary["ok"], [c for c in summary["checks"] if not c["ok"]]
    assert summary["counts"]["shared_bet"] == 2


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
    _close_and_settle(table)
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
        _void(table)
    finally:
        wallet_clients.use_factory(None)
    rollback = table.calls(alice)[-1]
    assert (rollback.endpoint, rollback.state) == ("rollback", NEEDS_ATTENTION)
    assert table.mirror(alice) == [("EUR", 100)]
    assert _summary(table)["needs_attention"] == {"count": 1, "amount": 100}


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
