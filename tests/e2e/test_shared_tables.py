"""Shared tables end to end (docs/shared-tables.md): one round for every bettor on the
table's clock, bets debited when placed, decisions in the window, settlement by the dealer,
voids, events; on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from flask import Flask
from sqlalchemy import text

from casino.engine.casino_war import Decision, HandDecision, TableRules
from casino.engine.casino_war.rules import from_shown
from casino.engine.shared import SharedBet, settle_bet

from .helpers import Api, Player, assert_problem, audit_database, new_key
from .protection_helpers import Clock, money_limit, set_limits
from .shared_helpers import DriveDealer, create_shared_table
from .test_concurrency import run_threads

ROUND = "/api/v1/tables/live/round"


@pytest.fixture
def dealer(database_url: str, clock: Clock) -> Iterator[DriveDealer]:
    driver = DriveDealer(database_url, clock)
    yield driver
    driver.close()


def _players(capi: Api, count: int) -> list[Player]:
    players = []
    for _ in range(count):
        someone = capi.create_player()
        capi.deposit(someone, 100_000)
        players.append(someone)
    return players


def _bet(capi: Api, who: Player, ante: int, tie_bet: int = 0) -> object:
    return capi.post(
        f"{ROUND}/bets", {"ante": ante, "tie_bet": tie_bet}, auth=who.auth, key=new_key()
    )


def _decide(capi: Api, who: Player, action: str) -> object:
    return capi.post(f"{ROUND}/decision", {"action": action}, auth=who.auth, key=new_key())


def _to_round_with(dealer: DriveDealer, clock: Clock, tie: bool) -> dict:
    """Deal empty rounds until the one taking bets is (not) a tie (a round in 13 ties, and
    15 s of the clock may deal two rounds: 1,000 steps leave no shoe a chance to miss)."""
    for _ in range(1000):
        state = dealer.state()
        if state["phase"] == "betting":
            dealt = dealer.shoe(state["shoe"]).round(state["round"])
            if dealt.is_tie == tie:
                return state
        clock.advance(seconds=15)
        dealer.run()
    raise AssertionError("no such round in 1,000 steps")


def test_shared_table_is_listed_with_its_clock(capi: Api) -> None:
    table = create_shared_table(capi)
    assert table["mode"] == "shared"
    assert table["rules"]["decks"] == 8 and table["rules"]["decision_seconds"] == 10
    assert table["shared"]["betting_seconds"] == 10
    assert len(table["shared"]["chain_commitment"]) == 64
    listed = capi.get("/api/v1/tables", auth=capi.operator_auth).get_json()["items"]
    assert [t["mode"] for t in listed if t["id"] == "live"] == ["shared"]


def test_a_table_without_surrender_cannot_be_shared(capi: Api) -> None:
    body = {"id": "nos", "currency": "EUR", "mode": "shared", "rules": {"surrender_allowed": False}}
    response = capi.post("/api/v1/tables", body, auth=capi.operator_auth)
    assert response.status_code == 422


def test_round_bets_and_settlement(capi: Api, clock: Clock, dealer: DriveDealer) -> None:
    create_shared_table(capi)
    a, b = _players(capi, 2)
    assert_problem(capi.get(ROUND, auth=a.auth), 404, "round_not_found")
    assert dealer.run() == ["open_table"]
    state = _to_round_with(dealer, clock, tie=False)
    first = _bet(capi, a, 100, 10)
    assert first.status_code == 201, first.get_json()
    assert capi.balance(a) == 100_000 - 110
    # A second bet adds to the first.
    again = _bet(capi, a, 50)
    assert again.status_code == 201 and again.get_json()["ante"] == 150
    assert _bet(capi, b, 30).status_code == 201
    assert_problem(_bet(capi, b, 5), 422, "ante_not_multiple_of_increment")
    mine = capi.get(ROUND, auth=a.auth).get_json()
    assert mine["phase"] == "betting" and mine["my_bet"]["ante"] == 150
    clock.advance(seconds=10)
    assert_problem(_bet(capi, b, 30), 409, "betting_closed")
    steps = dealer.run()
    assert steps[:2] == ["close_betting", "deal"] and "settle" in steps
    dealt = dealer.shoe(state["shoe"]).round(state["round"])
    table = TableRules.from_dict(  # the rules as the API shows them
        from_shown(capi.get("/api/v1/tables/live", auth=capi.operator_auth).get_json()["rules"])
    )
    for who, ante, tie in ((a, 150, 10), (b, 30, 0)):
        expected = settle_bet(table, dealt, SharedBet(who.id, ante, tie))
        assert capi.balance(who) == 100_000 + expected.net
    after = capi.get(ROUND, auth=a.auth).get_json()
    assert after["phase"] == "settled" and after["bettors"] == 2
    assert after["road"][-1]["round"] == state["round"]
    # Private bets are refused at a shared table.
    refused = capi.post(
        "/api/v1/rounds", {"table_id": "live", "ante": 100}, auth=a.auth, key=new_key()
    )
    assert_problem(refused, 409, "table_is_shared")
    assert audit_database(capi_url(capi)).ok


def capi_url(capi: Api) -> str:
    app = capi.client.application
    return str(app.config["DATABASE_URL"])


def test_tie_war_surrender_and_timeout(capi: Api, clock: Clock, dealer: DriveDealer) -> None:
    create_shared_table(capi)
    warrior, quitter, sleeper = _players(capi, 3)
    dealer.run()
    state = _to_round_with(dealer, clock, tie=True)
    for who in (warrior, quitter, sleeper):
        assert _bet(capi, who, 100).status_code == 201
    assert_problem(_decide(capi, warrior, "war"), 409, "round_not_awaiting_decision")
    clock.advance(seconds=10)
    assert dealer.run() == ["close_betting", "deal"]
    view = capi.get(ROUND, auth=warrior.auth).get_json()
    assert view["phase"] == "decisions" and view["my_bet"]["awaiting_decision"]
    war = _decide(capi, warrior, "war")
    assert war.status_code == 200, war.get_json()
    assert capi.balance(warrior) == 100_000 - 200
    assert _decide(capi, quitter, "surrender").status_code == 200
    assert_problem(_decide(capi, quitter, "war"), 409, "round_not_awaiting_decision")
    assert dealer.run() == []  # the sleeper has until the deadline
    clock.advance(seconds=10)
    steps = dealer.run()
    assert steps[0] == "close_decisions" and "settle" in steps
    dealt = dealer.shoe(state["shoe"]).round(state["round"])
    table = TableRules.from_dict(  # the rules as the API shows them
        from_shown(capi.get("/api/v1/tables/live", auth=capi.operator_auth).get_json()["rules"])
    )
    expected = {
        warrior.id: settle_bet(
            table, dealt, SharedBet(warrior.id, 100, 0, HandDecision(Decision.WAR))
        ),
        quitter.id: settle_bet(
            table, dealt, SharedBet(quitter.id, 100, 0, HandDecision(Decision.SURRENDER))
        ),
        sleeper.id: settle_bet(table, dealt, SharedBet(sleeper.id, 100)),
    }
    for who in (warrior, quitter, sleeper):
        assert capi.balance(who) == 100_000 + expected[who.id].net
    assert capi.balance(sleeper) == 100_000 - 50  # surrendered by the clock
    # Every event since the table opened, a page at a time (the tie may come after many rounds).
    types: list[str] = []
    after = 0
    while True:
        page = capi.get(
            f"/api/v1/tables/live/events?after={after}&limit=1000", auth=capi.operator_auth
        ).get_json()
        if not page["events"]:
            break
        types += [e["type"] for e in page["events"]]
        after = page["events"][-1]["id"]
    assert "decisions_due" in types and "war" in types and types.count("results") >= 1
    assert audit_database(capi_url(capi)).ok


def test_round_left_without_dealer_is_voided(capi: Api, clock: Clock, dealer: DriveDealer) -> None:
    create_shared_table(capi)
    (someone,) = _players(capi, 1)
    dealer.run()
    assert _bet(capi, someone, 100, 10).status_code == 201
    clock.advance(minutes=6)
    steps = dealer.run()
    assert steps[:2] == ["paid 1", "void"]
    assert capi.balance(someone) == 100_000
    road = capi.get(ROUND, auth=someone.auth).get_json()["road"]
    assert road[-1]["winner"] == "void"
    assert audit_database(capi_url(capi)).ok


def test_events_resume_and_stream(capi: Api, clock: Clock, dealer: DriveDealer) -> None:
    create_shared_table(capi)
    dealer.run()
    clock.advance(seconds=10)
    dealer.run()
    everything = capi.get("/api/v1/tables/live/events", auth=capi.operator_auth).get_json()
    ids = [e["id"] for e in everything["events"]]
    assert ids == list(range(1, len(ids) + 1)) and everything["last_event_id"] == ids[-1]
    assert everything["events"][0]["type"] == "shoe_changed"
    later = capi.get(
        "/api/v1/tables/live/events",
        auth=capi.operator_auth,
        headers={"Last-Event-ID": "2"},
    ).get_json()
    assert [e["id"] for e in later["events"]] == ids[2:]
    stream = capi.get(
        "/api/v1/tables/live/events?after=1",
        auth=capi.operator_auth,
        headers={"Accept": "text/event-stream"},
    )
    assert stream.status_code == 200 and stream.mimetype == "text/event-stream"
    text = stream.get_data(as_text=True)
    assert text.startswith("retry: ") and "id: 2\nevent: round_opened\n" in text
    assert_problem(
        capi.get("/api/v1/tables/nope/events", auth=capi.operator_auth), 404, "table_not_found"
    )


def test_audit_replays_shared_bets(capi: Api, clock: Clock, dealer: DriveDealer) -> None:
    create_shared_table(capi)
    (someone,) = _players(capi, 1)
    dealer.run()
    assert _bet(capi, someone, 100, 10).status_code == 201
    clock.advance(seconds=10)
    dealer.run()
    # A tie (about 1 deal in 13) waits for the decision window, then the clock surrenders.
    for _ in range(3):
        clock.advance(seconds=60)
        dealer.run()
    url = capi_url(capi)
    report = audit_database(url)
    shared = next(c for c in report.checks if c.name == "shared_rounds_replay")
    assert report.ok and "1 settled" in shared.detail
    # A payout written other than the cards pay it is found.
    with dealer.database.unit_of_work("default") as uow:
        uow.session.execute(text("UPDATE shared_bets SET net = net + 1"))
        uow.session.commit()
    tampered = audit_database(url)
    assert not tampered.ok
    assert not next(c for c in tampered.checks if c.name == "shared_rounds_replay").ok


def test_war_with_a_war_tie_bet(capi: Api, clock: Clock, dealer: DriveDealer) -> None:
    """Going to war adds a war tie bet where the table offers one (docs/shared-tables.md):
    debited with the raise, paid if the war's cards tie, refused out of the table's range."""
    create_shared_table(capi, war_tie_bet={"enabled": True, "max": 50, "pays": 10})
    warrior, plain = _players(capi, 2)
    dealer.run()
    state = _to_round_with(dealer, clock, tie=True)
    for who in (warrior, plain):
        assert _bet(capi, who, 100).status_code == 201
    clock.advance(seconds=10)
    assert dealer.run() == ["close_betting", "deal"]
    path = f"{ROUND}/decision"
    for refused in (60, 15):  # over the table's 50; not a multiple of the increment (10)
        answer = capi.post(
            path, {"action": "war", "war_tie_bet": refused}, auth=warrior.auth, key=new_key()
        )
        assert_problem(answer, 422, "invalid_bet")
    assert capi.balance(warrior) == 100_000 - 100
    war = capi.post(path, {"action": "war", "war_tie_bet": 30}, auth=warrior.auth, key=new_key())
    assert war.status_code == 200, war.get_json()
    assert war.get_json()["war_tie_bet"] == 30 and war.get_json()["raise"] == 100
    assert capi.balance(warrior) == 100_000 - 230
    assert _decide(capi, plain, "war").status_code == 200
    clock.advance(seconds=10)
    assert "settle" in dealer.run()
    dealt = dealer.shoe(state["shoe"]).round(state["round"])
    table = TableRules.from_dict(
        from_shown(capi.get("/api/v1/tables/live", auth=capi.operator_auth).get_json()["rules"])
    )
    for who, war_tie in ((warrior, 30), (plain, 0)):
        decision = HandDecision(Decision.WAR, war_tie_bet=war_tie)
        expected = settle_bet(table, dealt, SharedBet(who.id, 100, 0, decision))
        assert capi.balance(who) == 100_000 + expected.net
        mine = capi.get(ROUND, auth=who.auth).get_json()["my_bet"]
        assert mine["war_tie_bet"] == war_tie and mine["net"] == expected.net
    assert audit_database(capi_url(capi)).ok


def test_a_war_tie_bet_where_the_table_offers_none(
    capi: Api, clock: Clock, dealer: DriveDealer
) -> None:
    create_shared_table(capi)
    (warrior,) = _players(capi, 1)
    dealer.run()
    _to_round_with(dealer, clock, tie=True)
    assert _bet(capi, warrior, 100).status_code == 201
    clock.advance(seconds=10)
    dealer.run()
    answer = capi.post(
        f"{ROUND}/decision", {"action": "war", "war_tie_bet": 10}, auth=warrior.auth, key=new_key()
    )
    assert_problem(answer, 422, "invalid_bet")
    assert capi.balance(warrior) == 100_000 - 100


def test_concurrent_bets_of_one_player_add_up(
    capi: Api, clocked_app: Flask, clock: Clock, dealer: DriveDealer
) -> None:
    """Bets of one player racing on one round (other keys): each reads the round's bet
    after the one before it committed (the wallet is locked first), so every stake is in
    the bet and nothing is debited twice or lost."""
    create_shared_table(capi)
    (someone,) = _players(capi, 1)
    dealer.run()
    assert _bet(capi, someone, 100).status_code == 201

    def send(_: int) -> int:
        response = clocked_app.test_client().post(
            f"{ROUND}/bets",
            json={"ante": 100, "tie_bet": 0},
            headers={**someone.auth, "Idempotency-Key": new_key()},
        )
        return int(response.status_code)

    assert run_threads(6, send) == [201] * 6
    mine = capi.get(ROUND, auth=someone.auth).get_json()["my_bet"]
    assert mine["ante"] == 700 and len(mine["transaction_ids"]) == 7
    assert capi.balance(someone) == 100_000 - 700
    assert audit_database(capi_url(capi)).ok


def _loss_used(capi: Api, who: Player) -> int:
    limits = capi.get(f"/api/v1/players/{who.id}/limits", auth=capi.operator_auth).get_json()
    found = money_limit(limits, "loss", "day")
    assert found is not None
    return int(found["used"])


def test_a_win_lowers_the_loss_counted_against_the_limit(
    capi: Api, clock: Clock, dealer: DriveDealer
) -> None:
    """A shared stake counts as its possible loss when placed; what the settlement returns
    lowers the period's loss again, as a private round's net does: a player who won may
    stake again under a loss limit the two stakes together would pass."""
    create_shared_table(capi)
    [winner] = _players(capi, 1)
    set_limits(capi, winner, {"currency": "EUR", "loss": {"day": 1_000}})
    dealer.run()
    for _ in range(300):
        state = dealer.state()
        dealt = dealer.shoe(state["shoe"]).round(state["round"])
        if state["phase"] == "betting" and dealt.winner == "player":
            break
        clock.advance(seconds=15)
        dealer.run()
    else:
        raise AssertionError("no round won by the player's card in 300")
    assert _bet(capi, winner, 600).status_code == 201
    assert _loss_used(capi, winner) == 600
    clock.advance(seconds=10)
    assert "settle" in dealer.run()
    assert capi.balance(winner) == 100_000 + 600
    # 600 staked, 1,200 returned: the day's loss is -600, so 600 more fits the 1,000.
    assert _loss_used(capi, winner) == -600
    state = _to_round_with(dealer, clock, tie=False)
    assert _bet(capi, winner, 600).status_code == 201, state
    assert audit_database(capi_url(capi)).ok
