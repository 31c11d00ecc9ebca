"""Issue 21 in the service: a round of several hands is one round for the money - limits and
funds take its total stake, each request is one transaction with the round's state, what is
unsettled is held in play between decisions (the audit agrees at every step) - and
resolve-stale decides every waiting hand. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import timedelta

import pytest
from sqlalchemy import select, update

from casino.engine.casino_war import HandBet, TableRound, TableRules
from casino.service import limits as limit_service
from casino.service import rounds, seeds, tables
from casino.service.errors import Conflict, Forbidden
from casino.service.protection import Actor
from casino.store.models import Round
from casino.store.uow import UnitOfWork

from .conftest import Svc

RULES = TableRules(max_hands=3, max_war_tie_bet=1000)
THREE = [HandBet(1000, 100), HandBet(500, 0), HandBet(200, 0)]


def steer(
    svc: Svc, player: str, bets: Sequence[HandBet], want: Callable[[TableRound], bool]
) -> None:
    server_seed, nonce = svc.active_seed(player)
    for i in range(200_000):
        client_seed = f"svc-{i}"
        if want(TableRound.deal(RULES, server_seed, client_seed, nonce, bets)):
            svc.run(seeds.set_client_seed, player, client_seed)
            return
    raise AssertionError("no client seed found")


@pytest.fixture
def table(svc: Svc) -> str:
    svc.run(tables.create_table, "three", "EUR", RULES)
    return "three"


def test_hands_decided_one_request_at_a_time_hold_their_stakes_in_play(
    svc: Svc, table: str
) -> None:
    player = svc.player(funds=100_000)
    steer(svc, player, THREE, lambda g: g.awaiting == (0, 2))
    opened = svc.run(rounds.place_bet, player, table, hands=THREE)
    assert opened.awaiting_hands == [0, 2]  # type: ignore[attr-defined]
    assert svc.audit().ok
    half = svc.run(rounds.decide_hands, opened.id, {0: ("war", 1000)}, player_id=player)  # type: ignore[attr-defined]
    assert half.status == "awaiting_decision" and half.awaiting_hands == [2]  # type: ignore[attr-defined]
    assert half.hands[0]["status"] == "at_war"  # type: ignore[attr-defined]
    assert half.wars == []  # type: ignore[attr-defined]  # the war waits for hand 2
    report = svc.audit()
    assert report.ok, [c for c in report.checks if not c.ok]  # in play: antes 0, 2 + raise + bet
    done = svc.run(rounds.decide_hands, opened.id, {2: ("surrender", 0)}, player_id=player)  # type: ignore[attr-defined]
    assert done.status == "settled" and len(done.wars) == 1  # type: ignore[attr-defined]
    assert len(done.transaction_ids) == 3  # type: ignore[attr-defined]
    assert svc.balance(player) == 100_000 + done.net  # type: ignore[attr-defined]
    assert svc.audit().ok


def test_funds_and_limits_take_the_rounds_total_stake(svc: Svc, table: str) -> None:
    player = svc.player(funds=1_500)
    with pytest.raises(Conflict) as refused:
        svc.run(rounds.place_bet, player, table, hands=THREE)  # 1800 staked in all
    assert refused.value.code == "insufficient_funds"
    rich = svc.player(funds=100_000)
    with UnitOfWork(svc.factory, operator=svc.operator) as uow:
        limit_service.set_limits(
            uow, rich, Actor("operator", "operator:test"), currency="EUR",
            money={"wager": {"day": 1_500}},
        )  # fmt: skip
        uow.commit()
    with pytest.raises((Conflict, Forbidden)) as limited:
        svc.run(rounds.place_bet, rich, table, hands=THREE)
    assert limited.value.code == "limit_exceeded"
    assert svc.balance(rich) == 100_000  # refused before anything moved
    with pytest.raises((Conflict, Forbidden)):
        svc.run(rounds.place_bet, rich, table, hands=THREE[:2])  # 1600: the tie bet counts
    steer(svc, rich, THREE[:1], lambda g: not g.awaiting)
    placed = svc.run(rounds.place_bet, rich, table, hands=THREE[:1])  # 1100 fits
    assert placed.bets["ante"] == 1000  # type: ignore[attr-defined]


def test_resolve_stale_decides_every_waiting_hand(svc: Svc, table: str) -> None:
    player = svc.player(funds=100_000)
    steer(svc, player, THREE, lambda g: g.awaiting == (0, 2))
    opened = svc.run(rounds.place_bet, player, table, hands=THREE)
    resolved = svc.run(rounds.resolve_stale, timedelta(0))
    (view,) = resolved  # type: ignore[misc]
    assert view.id == opened.id and view.status == "settled"  # type: ignore[attr-defined]
    for index in (0, 2):
        assert view.hands[index]["decision"] == {"action": "war", "decided_by": "system"}
    assert svc.audit().ok


def _tampered(svc: Svc, round_id: str, **values: object) -> list[str]:
    """The audit's complaints after the round's row was changed behind the service."""
    with svc.factory() as session:
        session.execute(update(Round).where(Round.id == round_id).values(**values))
        session.commit()
    report = svc.audit()
    return [check.detail for check in report.checks if not check.ok]


@pytest.mark.parametrize("field", ["hand_payout", "war_card", "war_tie_bet_payout", "net"])
def test_the_audit_replays_the_hands_shape_and_catches_an_edit(
    svc: Svc, table: str, field: str
) -> None:
    player = svc.player(funds=100_000)
    steer(svc, player, THREE, lambda g: g.awaiting == (0,))
    opened = svc.run(rounds.place_bet, player, table, hands=THREE)
    done = svc.run(rounds.decide_hands, opened.id, {0: ("war", 500)}, player_id=player)  # type: ignore[attr-defined]
    assert svc.audit().ok
    record = json.loads(json.dumps({"hands": done.hands, "wars": done.wars}))  # type: ignore[attr-defined]
    with svc.factory() as session:
        stored = dict(
            session.execute(select(Round.hands).where(Round.id == opened.id)).scalar_one()
        )  # type: ignore[attr-defined]
    assert stored["hands"] == record["hands"] and stored["wars"] == record["wars"]
    if field == "hand_payout":
        stored["hands"][1]["payouts"]["ante"] += 100
        problems = _tampered(svc, opened.id, hands=stored)  # type: ignore[attr-defined]
    elif field == "war_card":
        card = stored["wars"][0]["cards"][0]
        card["card"] = "AS" if card["card"] != "AS" else "2C"
        problems = _tampered(svc, opened.id, hands=stored)  # type: ignore[attr-defined]
    elif field == "war_tie_bet_payout":
        problems = _tampered(svc, opened.id, war_tie_bet_payout=done.payouts["war_tie_bet"] + 5500)  # type: ignore[attr-defined]
    else:
        problems = _tampered(svc, opened.id, net=done.net + 1)  # type: ignore[attr-defined]
    assert any(str(opened.id) in problem for problem in problems), problems  # type: ignore[attr-defined]
