"""A seamless operator's shared table (docs/shared-tables.md, "Money"; docs/integration.md,
"Shared tables"): every bet is a `bet` debit at the operator's wallet, every settled bettor
gets a `win` (a zero one for a lost bet if the operator wants it), a war a `raise` debit, a
void round a `rollback` of each debit, and the reconciliation, the audit and the export
verifier agree with the wallet's books; on SQLite and PostgreSQL. When things go wrong:
test_shared_seamless_faults.py."""

from __future__ import annotations

from casino.audit_export import casino_audit_export as verifier
from casino.engine.casino_war import Decision, HandDecision, TableRules
from casino.engine.casino_war.rules import from_shown
from casino.engine.shared import SharedBet, settle_bet
from casino.service.shared.runner import Dealer
from casino.service.wallet_outbox import run_once
from casino.store.wallet_call_records import OK, PENDING

from .helpers import assert_problem, audit_database
from .seamless_helpers import FUNDS
from .shared_seamless_helpers import (  # noqa: F401  (the fixture)
    ROUND,
    SharedSeamless,
    agrees_with_wallet,
    close_and_settle,
    reconciliation,
    shared_seamless_fixture,
    void_round,
)


def _rules(table: SharedSeamless) -> TableRules:
    shown = table.api.get("/api/v1/tables/live", auth=table.auth).get_json()["rules"]
    return TableRules.from_dict(from_shown(shown))


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
    close_and_settle(table)
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
    close_and_settle(table)
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
    close_and_settle(table)
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
    assert table.call_states() == {}
    assert table.mirror(poor) == []


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
    close_and_settle(table)
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
    void_round(table)
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
    summary = reconciliation(table)
    assert summary["bets"] == {"count": 4, "amount": 410}
    assert summary["rollbacks"] == {"count": 4, "amount": 410}
    assert summary["wins"] == {"count": 0, "amount": 0}
    agrees_with_wallet(table)
    assert audit_database(database_url).ok


def test_the_export_verifier_accepts_a_seamless_shared_table(
    shared_seamless: SharedSeamless,
) -> None:
    """The mirror wallet's deposits and returns (bets, wins, rollbacks of a void) and the
    shared bets' own transactions, in the operator's export, as its auditor checks them."""
    table = shared_seamless
    alice = table.launch("alice")
    table.to_round("player")
    assert table.bet(alice, 100, 10).status_code == 201
    close_and_settle(table)
    table.to_round("dealer")
    assert table.bet(alice, 100).status_code == 201
    void_round(table)
    exported = table.api.get("/api/v1/ledger/export", auth=table.auth)
    assert exported.status_code == 200, exported.get_json()
    key = bytes.fromhex(table.api.get("/api/v1/ledger/public-key").get_json()["public_key"])
    summary = verifier.verify(
        exported.get_data().splitlines(keepends=True), [key], allow_unsealed=True
    )
    assert summary["ok"], [c for c in summary["checks"] if not c["ok"]]
    assert summary["counts"]["shared_bet"] == 2


def test_the_dealer_leaves_its_wallet_calls_to_the_worker(
    shared_seamless: SharedSeamless, database_url: str
) -> None:
    """``casino dealer``'s own loop (runner.Dealer) queues each win due at once instead of
    sending it after its commit, so a slow wallet holds the sending thread, never the
    table's clock; the outbox loop (the dealer's thread, or any wallet-worker) sends them."""
    table = shared_seamless
    alice = table.launch("alice")
    _, dealt = table.to_round("player")
    assert table.bet(alice, 100).status_code == 201
    dealer = Dealer(table.dealer.database, holder="test-dealer")
    for _ in range(6):  # betting closes, the cards, the settlement (the lease renewed first)
        table.clock.advance(seconds=10)
        dealer.renew()
        dealer.run_table("acme", "live")
        if any(c.endpoint == "win" for c in table.calls(alice)):
            break
    [win] = [c for c in table.calls(alice) if c.endpoint == "win"]
    assert win.state == PENDING and win.attempts == 0
    assert win.next_attempt_at is not None and win.next_attempt_at <= table.clock.now
    assert table.operator_balance("alice") == FUNDS - 100  # nothing sent yet
    assert run_once(table.dealer.database.unit_of_work) == 1
    expected = settle_bet(_rules(table), dealt, SharedBet(alice.id, 100, 0))
    assert table.operator_balance("alice") == FUNDS + expected.net
    assert all(c.state == OK for c in table.calls(alice))
    assert audit_database(database_url).ok
