from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from sqlalchemy import Engine, text, update

from casino.engine.casino_war import Decision, deal_casino_war
from casino.engine.errors import IllegalAction, InvalidBet
from casino.service import rounds, seeds, tables, wallets
from casino.service.errors import Conflict, Invalid, NotFound
from casino.store.models import Round, utcnow

from .conftest import Svc, is_tie, not_tie, tie_then

MISSING = "00000000-0000-0000-0000-000000000000"


def test_settled_at_once_without_a_tie(svc: Svc, demo_tables: list[str]) -> None:
    pid = svc.player(funds=10_000)
    deal = svc.steer(pid, not_tie)
    view = svc.run(rounds.place_bet, pid, "classic", 1000, 200)
    assert view.status == "settled" and view.player_id == pid and view.table_id == "classic"
    assert (view.player_card, view.dealer_card) == (deal.player.code, deal.dealer.code)
    won = deal.player.rank > deal.dealer.rank
    assert view.bets == {"ante": 1000, "tie_bet": 200, "raise": 0, "war_tie_bet": 0}
    assert view.payouts == {"ante": 2000 if won else 0, "tie_bet": 0, "raise": 0, "war_tie_bet": 0}
    assert view.net == (1000 if won else -1000) - 200
    assert view.balance_after == 10_000 + view.net == svc.balance(pid)
    assert view.war is None and view.decision is None and view.settled_at is not None
    assert view.currency == "EUR" and view.rules["decks"] == 6
    assert view.fairness["nonce"] == 0 and view.fairness["server_seed"] is None
    # Stakes and payouts in one transaction; nothing passes through in-play.
    (tx_id,) = view.transaction_ids
    with svc.uow() as uow:
        txs = {tx.id: tx for tx in wallets.list_transactions(uow, pid).items}
    bet = txs[tx_id]
    assert bet.kind == "bet" and bet.round_id == view.id and bet.balance_after == svc.balance(pid)
    assert bet.postings[:2] == [
        {"account": f"wallet:{pid}", "amount": -1200},
        {"account": "house", "amount": 1200},
    ]
    paid = [p["amount"] for p in bet.postings[2:] if p["account"] == f"wallet:{pid}"]
    assert paid == ([2000] if won else [])
    assert all(p["account"] != "in_play" for p in bet.postings)


def test_tie_pays_the_tie_bet_and_awaits(svc: Svc, demo_tables: list[str]) -> None:
    pid = svc.player(funds=10_000)
    svc.steer(pid, is_tie)
    view = svc.run(rounds.place_bet, pid, "classic", 1000, 100)
    assert view.status == "awaiting_decision" and view.settled_at is None
    assert view.payouts == {"ante": 0, "tie_bet": 1100, "raise": 0, "war_tie_bet": 0}
    assert view.net == 1100 - 1100
    assert svc.balance(pid) == view.balance_after == 10_000
    with svc.uow() as uow:
        assert rounds.get_round(uow, view.id, pid) == view


@pytest.mark.parametrize(
    ("war", "ante_payout", "raise_payout", "net", "labels"),
    [
        ("win", 1000, 2000, 1000, ("push", "win")),
        ("tie", 1000, 2000, 1000, ("push", "win")),
        ("lose", 0, 0, -2000, ("lose", "lose")),
    ],
)
def test_war_outcomes(
    svc: Svc,
    demo_tables: list[str],
    war: str,
    ante_payout: int,
    raise_payout: int,
    net: int,
    labels: tuple[str, str],
) -> None:
    pid = svc.player(funds=10_000)
    deal = svc.steer(pid, tie_then(war))
    opened = svc.run(rounds.place_bet, pid, "classic", 1000)
    settled = svc.run(rounds.decide, opened.id, Decision.WAR, player_id=pid)
    assert settled.status == "settled" and settled.decision == {
        "action": "war",
        "decided_by": "player",
    }
    assert settled.bets == {"ante": 1000, "tie_bet": 0, "raise": 1000, "war_tie_bet": 0}
    assert settled.payouts == {
        "ante": ante_payout,
        "tie_bet": 0,
        "raise": raise_payout,
        "war_tie_bet": 0,
    }
    # The standard statement: a war won pushes the ante and pays the raise even money.
    assert settled.outcomes == {
        "ante": labels[0],
        "tie_bet": "none",
        "raise": labels[1],
        "war_tie_bet": "none",
    }
    assert opened.outcomes == {
        "ante": "pending",
        "tie_bet": "none",
        "raise": "none",
        "war_tie_bet": "none",
    }
    assert settled.net == net and svc.balance(pid) == 10_000 + net == settled.balance_after
    assert settled.war == {
        "burns": [card.code for card in deal.burns],
        "player_card": deal.war_player.code,
        "dealer_card": deal.war_dealer.code,
    }
    # The stake at the bet, then the raise and the settlement in one decision transaction.
    stake_id, decision_id = settled.transaction_ids
    with svc.uow() as uow:
        txs = {tx.id: tx for tx in wallets.list_transactions(uow, pid).items}
    assert (txs[stake_id].kind, txs[decision_id].kind) == ("stake", "decision")
    assert {"account": "in_play", "amount": 1000} in txs[stake_id].postings
    assert {"account": "in_play", "amount": -1000} in txs[decision_id].postings
    assert txs[decision_id].postings[0] == {"account": f"wallet:{pid}", "amount": -1000}


def test_war_tie_bonus_table(svc: Svc, demo_tables: list[str]) -> None:
    pid = svc.player(funds=10_000)
    svc.steer(pid, tie_then("tie"))
    opened = svc.run(rounds.place_bet, pid, "bonus", 1000)
    settled = svc.run(rounds.decide, opened.id, "war", player_id=pid)
    assert settled.payouts == {
        "ante": 1000,
        "tie_bet": 0,
        "raise": 3000,
        "war_tie_bet": 0,
    }  # bonus on the raise
    assert settled.outcomes == {
        "ante": "push",
        "tie_bet": "none",
        "raise": "win",
        "war_tie_bet": "none",
    }
    assert settled.net == 2000


def test_surrender_returns_half(svc: Svc, demo_tables: list[str]) -> None:
    pid = svc.player(funds=10_000)
    svc.steer(pid, is_tie)
    opened = svc.run(rounds.place_bet, pid, "classic", 1000, 100)
    settled = svc.run(rounds.decide, opened.id, "surrender", player_id=pid)
    assert settled.payouts == {"ante": 500, "tie_bet": 1100, "raise": 0, "war_tie_bet": 0}
    assert settled.net == 500 and settled.war is None
    assert svc.balance(pid) == 10_500


def test_surrender_not_allowed_keeps_round_open(svc: Svc) -> None:
    from casino.engine.casino_war import TableRules

    svc.run(tables.create_table, "no-surrender", "EUR", TableRules(surrender_allowed=False))
    pid = svc.player(funds=10_000)
    svc.steer(pid, is_tie)
    opened = svc.run(rounds.place_bet, pid, "no-surrender", 100)
    with pytest.raises(IllegalAction) as caught:
        svc.run(rounds.decide, opened.id, "surrender", player_id=pid)
    assert caught.value.code == "surrender_not_allowed"
    with svc.uow() as uow:
        assert rounds.get_round(uow, opened.id, pid).status == "awaiting_decision"


@pytest.mark.parametrize(
    ("ante", "tie_bet", "code"),
    [
        (50, 0, "ante_out_of_range"),
        (600_000, 0, "ante_out_of_range"),
        (150, 0, "ante_not_multiple_of_increment"),
        (100, 200_000, "tie_bet_out_of_range"),
        (100, 50, "tie_bet_not_multiple_of_increment"),
        (100, -100, "tie_bet_out_of_range"),
    ],
)
def test_invalid_bets_change_nothing(
    svc: Svc, demo_tables: list[str], ante: int, tie_bet: int, code: str
) -> None:
    pid = svc.player(funds=10_000)
    with pytest.raises(InvalidBet) as caught:
        svc.run(rounds.place_bet, pid, "classic", ante, tie_bet)
    assert caught.value.code == code
    assert svc.balance(pid) == 10_000
    with svc.uow() as uow:
        assert seeds.get_seeds(uow, pid).next_nonce == 0


def test_insufficient_funds_changes_nothing(svc: Svc, demo_tables: list[str]) -> None:
    pid = svc.player(funds=1000)
    with pytest.raises(Conflict) as caught:
        svc.run(rounds.place_bet, pid, "classic", 1000, 100)
    assert caught.value.code == "insufficient_funds"
    assert svc.balance(pid) == 1000
    with svc.uow() as uow:
        assert seeds.get_seeds(uow, pid).next_nonce == 0
        assert rounds.list_rounds(uow, pid).items == []
    broke = svc.player()
    with pytest.raises(Conflict) as caught:
        svc.run(rounds.place_bet, broke, "classic", 100)
    assert caught.value.code == "insufficient_funds"


def test_table_errors(svc: Svc, demo_tables: list[str]) -> None:
    pid = svc.player(funds=1000)
    with pytest.raises(NotFound):
        svc.run(rounds.place_bet, pid, "no-such-table", 100)
    svc.run(tables.update_table, "classic", {"active": False})
    with pytest.raises(Conflict) as caught:
        svc.run(rounds.place_bet, pid, "classic", 100)
    assert caught.value.code == "table_inactive"
    svc.run(tables.create_table, "dollars", "USD", tables.TableRules())
    with pytest.raises(Conflict) as caught:  # no USD wallet
        svc.run(rounds.place_bet, pid, "dollars", 100)
    assert caught.value.code == "insufficient_funds"


def test_unknown_player_cannot_bet(svc: Svc, demo_tables: list[str]) -> None:
    with pytest.raises(NotFound):
        svc.run(rounds.place_bet, MISSING, "classic", 100)


def test_one_open_round_per_player(svc: Svc, demo_tables: list[str]) -> None:
    pid = svc.player(funds=10_000)
    svc.steer(pid, is_tie)
    opened = svc.run(rounds.place_bet, pid, "classic", 100)
    with pytest.raises(Conflict) as caught:
        svc.run(rounds.place_bet, pid, "single-deck", 100)
    assert caught.value.code == "round_in_progress"
    assert caught.value.extra["round_id"] == opened.id
    assert svc.balance(pid) == 9_900
    other = svc.player(funds=1000)
    svc.run(rounds.place_bet, other, "classic", 100)  # other players are not blocked


def test_database_enforces_one_open_round(svc: Svc, demo_tables: list[str]) -> None:
    pid = svc.player(funds=10_000)
    svc.steer(pid, is_tie)
    svc.run(rounds.place_bet, pid, "classic", 100)
    svc.steer(pid, not_tie)
    settled = svc.run(rounds.place_bet, svc.player(funds=1000), "classic", 100)
    from sqlalchemy.exc import IntegrityError

    with svc.uow() as uow, pytest.raises(IntegrityError):
        uow.session.execute(
            update(Round)
            .where(Round.id == settled.id)
            .values(player_id=pid, status="awaiting_decision")
        )


def test_decision_errors(svc: Svc, demo_tables: list[str]) -> None:
    pid = svc.player(funds=10_000)
    svc.steer(pid, not_tie)
    settled = svc.run(rounds.place_bet, pid, "classic", 100)
    with pytest.raises(Conflict) as caught:
        svc.run(rounds.decide, settled.id, "war", player_id=pid)
    assert caught.value.code == "round_not_awaiting_decision"
    svc.steer(pid, is_tie)
    opened = svc.run(rounds.place_bet, pid, "classic", 100)
    with pytest.raises(Invalid):
        svc.run(rounds.decide, opened.id, "double", player_id=pid)
    other = svc.player()
    with pytest.raises(NotFound):
        svc.run(rounds.decide, opened.id, "war", player_id=other)
    for bad_id in [MISSING, "not-a-uuid", opened.id.upper()]:
        with pytest.raises(NotFound):
            svc.run(rounds.decide, bad_id, "war", player_id=pid)
    svc.run(rounds.decide, opened.id, "war", player_id=None)  # an operator may decide
    with pytest.raises(Conflict):
        svc.run(rounds.decide, opened.id, "war", player_id=pid)


def test_war_without_funds_for_the_raise_keeps_round_open(svc: Svc, demo_tables: list[str]) -> None:
    pid = svc.player(funds=1000)
    svc.steer(pid, is_tie)
    opened = svc.run(rounds.place_bet, pid, "classic", 1000)
    with pytest.raises(Conflict) as caught:
        svc.run(rounds.decide, opened.id, "war", player_id=pid)
    assert caught.value.code == "insufficient_funds"
    with svc.uow() as uow:
        still = rounds.get_round(uow, opened.id, pid)
    assert still.status == "awaiting_decision" and svc.balance(pid) == 0
    svc.run(wallets.deposit, pid, "EUR", 1000, "top-up")
    assert svc.run(rounds.decide, opened.id, "war", player_id=pid).status == "settled"


def test_get_and_list_rounds(svc: Svc, demo_tables: list[str]) -> None:
    alice = svc.player(funds=100_000)
    bob = svc.player(funds=100_000)
    mine = []
    for _ in range(5):
        svc.steer(alice, not_tie)
        mine.append(svc.run(rounds.place_bet, alice, "classic", 100).id)
    svc.steer(alice, is_tie)
    open_id = svc.run(rounds.place_bet, alice, "classic", 100).id
    svc.steer(bob, not_tie)
    bobs = svc.run(rounds.place_bet, bob, "classic", 100).id
    with svc.uow() as uow:
        with pytest.raises(NotFound):
            rounds.get_round(uow, bobs, alice)
        assert rounds.get_round(uow, bobs, None).player_id == bob
        ids, cursor = [], None
        while True:
            page = rounds.list_rounds(uow, alice, None, cursor, 2)
            ids.extend(r.id for r in page.items)
            if page.next_cursor is None:
                break
            cursor = page.next_cursor
        assert ids == [open_id, *reversed(mine)]
        waiting = rounds.list_rounds(uow, alice, "awaiting_decision", None, 10).items
        assert [r.id for r in waiting] == [open_id]
        assert len(rounds.list_rounds(uow, None, "settled", None, 50).items) == 6
        assert len(rounds.list_rounds(uow, None, None, None, 50).items) == 7
        with pytest.raises(Invalid):
            rounds.list_rounds(uow, alice, "bogus")
        with pytest.raises(Invalid):
            rounds.list_rounds(uow, alice, None, "garbage!", 10)
        with pytest.raises(NotFound):
            rounds.list_rounds(uow, MISSING)


def test_resolve_stale(svc: Svc, demo_tables: list[str]) -> None:
    rich = svc.player(funds=10_000)
    poor = svc.player(funds=1000)
    fresh = svc.player(funds=10_000)
    svc.steer(rich, is_tie)
    svc.steer(poor, is_tie)
    rich_round = svc.run(rounds.place_bet, rich, "classic", 1000)
    poor_round = svc.run(rounds.place_bet, poor, "classic", 1000)
    with svc.uow() as uow:
        uow.session.execute(
            update(Round)
            .where(Round.id.in_([rich_round.id, poor_round.id]))
            .values(created_at=utcnow() - timedelta(hours=25))
        )
        uow.commit()
    svc.steer(fresh, is_tie)
    fresh_round = svc.run(rounds.place_bet, fresh, "classic", 1000)
    resolved = svc.run(rounds.resolve_stale, timedelta(hours=24))
    by_id = {r.id: r for r in resolved}
    assert set(by_id) == {rich_round.id, poor_round.id}
    assert by_id[rich_round.id].decision == {"action": "war", "decided_by": "system"}
    assert by_id[poor_round.id].decision == {"action": "surrender", "decided_by": "system"}
    assert svc.balance(poor) == 500
    with svc.uow() as uow:
        assert rounds.get_round(uow, fresh_round.id, None).status == "awaiting_decision"
    assert svc.run(rounds.resolve_stale, timedelta(hours=24)) == []
    with pytest.raises(Invalid):
        svc.run(rounds.resolve_stale, timedelta(hours=-1))


@pytest.mark.postgres
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_bet_racing_an_open_round_is_round_in_progress(
    svc: Svc, demo_tables: list[str], engine: Engine
) -> None:
    """Bet B waits on the seed row while bet A opens a round; B's snapshot predates A's round,
    so only the partial unique index (hit at B's one-round-trip commit) refuses B's tie."""
    pid = svc.player(funds=10_000)
    server_seed, nonce = svc.active_seed(pid)
    client_seed = next(
        f"twin-ties-{i}"
        for i in range(200_000)
        if deal_casino_war(server_seed, f"twin-ties-{i}", nonce, 6).is_tie
        and deal_casino_war(server_seed, f"twin-ties-{i}", nonce + 1, 6).is_tie
    )
    svc.run(seeds.set_client_seed, pid, client_seed)
    outcome: list[object] = []

    def bet_b() -> None:
        try:
            outcome.append(svc.run(rounds.place_bet, pid, "classic", 100))
        except Conflict as error:
            outcome.append(error)

    with svc.uow() as uow_a:
        opened = rounds.place_bet(uow_a, pid, "classic", 100)  # holds the seed row
        racer = threading.Thread(target=bet_b)
        racer.start()
        _wait_for_a_lock_wait(engine)
        uow_a.commit()
    racer.join(timeout=30)
    (refused,) = outcome
    assert isinstance(refused, Conflict) and refused.code == "round_in_progress"
    assert refused.extra["round_id"] == opened.id
    assert svc.balance(pid) == 9_900  # B's stake was rolled back with its round
    with svc.uow() as uow:
        assert [r.id for r in rounds.list_rounds(uow, pid).items] == [opened.id]


def _wait_for_a_lock_wait(engine: Engine) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with engine.connect() as conn:
            waiting = conn.execute(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                    "AND wait_event_type = 'Lock'"
                )
            ).scalar_one()
        if waiting:
            return
        time.sleep(0.01)
    raise AssertionError("the second bet never waited for the first")
