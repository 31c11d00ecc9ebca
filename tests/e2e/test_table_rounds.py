"""Issue 21 through the API: tables of several hands, repeated wars with a tie ladder, the
war tie bet, tie-only hands and the decision clock - dealt, paid, recalled, verified offline
(``casino verify``) and audited, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from click.testing import CliRunner

from casino.cli import main as casino_cli
from casino.engine.casino_war import HandBet, TableRound, TableRules
from casino.service.rounds import time_out_due
from casino.store.database import Database

from .helpers import Api, Player, active_server_seed, assert_problem, audit_database, new_key
from .protection_helpers import Clock

EVO = {
    "decks": 8,
    "max_hands": 3,
    "war_ties": "repeat",
    "max_war_ties": 4,
    "tie_ladder": [10, 25, 50, 200],
    "war_tie_bet": {"enabled": True, "pays": 10, "max": 10_000},
    "tie_only": True,
}
#: The same rules in the engine's names.
EVO_RULES = TableRules(
    decks=8,
    max_hands=3,
    war_ties="repeat",  # type: ignore[arg-type]
    tie_ladder=(10, 25, 50, 200),
    max_war_tie_bet=10_000,
    tie_only=True,
)


def steer(
    api: Api,
    database_url: str,
    player: Player,
    rules: TableRules,
    bets: Sequence[HandBet],
    wanted: Callable[[TableRound], bool],
) -> None:
    """Choose the client seed whose next round (these rules and bets) is ``wanted``."""
    server_seed, nonce = active_server_seed(database_url, player.id)
    for attempt in range(200_000):
        client_seed = f"tables-{attempt}"
        if wanted(TableRound.deal(rules, server_seed, client_seed, nonce, bets)):
            response = api.put(
                f"/api/v1/players/{player.id}/seeds/client",
                {"client_seed": client_seed},
                auth=player.auth,
            )
            assert response.status_code == 200, response.get_json()
            return
    raise AssertionError("no client seed gives the wanted round")


def bet(api: Api, player: Player, table: str, hands: list[dict[str, int]]) -> Any:
    return api.post(
        "/api/v1/rounds", {"table_id": table, "hands": hands}, auth=player.auth, key=new_key()
    )


def decide(api: Api, player: Player, round_id: str, body: dict[str, Any]) -> Any:
    return api.post(f"/api/v1/rounds/{round_id}/decision", body, auth=player.auth, key=new_key())


def verify(doc: dict[str, Any]) -> int:
    result = CliRunner().invoke(casino_cli, ["verify", "--round", "-"], input=json.dumps(doc))
    return result.exit_code


def revealed(api: Api, player: Player, round_id: str) -> dict[str, Any]:
    rotation = api.post(f"/api/v1/players/{player.id}/seeds/rotate", auth=player.auth)
    assert rotation.status_code == 200
    return dict(api.get(f"/api/v1/rounds/{round_id}", auth=player.auth).get_json())


def test_the_rules_read_back_and_a_combination_the_engine_cannot_deal_names_the_rule(
    api: Api,
) -> None:
    table = api.create_table("evo", **EVO)
    assert table["rules"]["max_hands"] == 3 and table["rules"]["war_ties"] == "repeat"
    assert table["rules"]["war_tie_bet"] == {"enabled": True, "pays": 10, "max": 10_000}
    assert table["rules"]["decision_seconds"] is None
    assert set(table["rtp"]["bets"]) >= {"ante_best", "tie_bet", "tie_bet_alone", "war_tie_bet"}
    best = table["rtp"]["bets"]["ante_best"]
    assert best["house_edge_per_total"] < best["house_edge"]  # the raise widens the base
    classic = api.create_table("classic")
    assert classic["rules"]["war_ties"] == "push" and classic["rules"]["max_hands"] == 1
    response = api.post(
        "/api/v1/tables",
        {"id": "bad", "currency": "EUR", "rules": {"tie_ladder": [10, 25, 50, 200]}},
        auth=api.operator_auth,
    )
    assert assert_problem(response, 422, "invalid_rules")["rule"] == "tie_ladder"
    response = api.post(
        "/api/v1/tables",
        {
            "id": "bad",
            "currency": "EUR",
            "rules": {"decision_seconds": 20, "surrender_allowed": False},
        },
        auth=api.operator_auth,
    )
    assert assert_problem(response, 422, "invalid_rules")["rule"] == "decision_seconds"


def test_three_hands_decided_together_pay_verify_and_audit(
    api: Api, funded: Player, database_url: str
) -> None:
    api.create_table("evo", **EVO)
    hands = [
        {"ante": 1000, "tie_bet": 100},
        {"ante": 500, "tie_bet": 0},
        {"ante": 200, "tie_bet": 0},
    ]
    stakes = [HandBet(h["ante"], h["tie_bet"]) for h in hands]

    def two_ties(game: TableRound) -> bool:
        return game.awaiting == (0, 2)

    steer(api, database_url, funded, EVO_RULES, stakes, two_ties)
    before = api.balance(funded)
    opened = bet(api, funded, "evo", hands)
    assert opened.status_code == 201, opened.get_json()
    body = opened.get_json()
    assert body["status"] == "awaiting_decision" and body["awaiting_hands"] == [0, 2]
    assert body["dealing"] == "table" and len(body["hands"]) == 3
    assert body["bets"]["ante"] == 1700 and body["hands"][0]["outcomes"]["tie_bet"] == "pending"
    decided = decide(
        api,
        funded,
        body["id"],
        {"hands": {"0": "war", "2": "surrender"}, "war_tie_bets": {"0": 100}},
    )
    assert decided.status_code == 200, decided.get_json()
    settled = decided.get_json()
    assert settled["status"] == "settled" and settled["awaiting_hands"] == []
    assert settled["hands"][2]["outcome"] == "surrender"
    assert settled["hands"][0]["bets"]["raise"] == 1000
    assert settled["hands"][0]["bets"]["war_tie_bet"] == 100
    assert settled["hands"][0]["decision"] == {"action": "war", "decided_by": "player"}
    assert len(settled["wars"]) >= 1 and settled["wars"][0]["cards"][0]["hand"] == 0
    assert api.balance(funded) == before + settled["net"]
    assert sum(hand["net"] for hand in settled["hands"]) == settled["net"]
    recalled = revealed(api, funded, body["id"])
    assert verify(recalled) == 0
    for path in (("hands", 0, "payouts", "war_tie_bet"), ("hands", 2, "payouts", "ante")):
        tampered = json.loads(json.dumps(recalled))
        tampered[path[0]][path[1]][path[2]][path[3]] += 2
        assert verify(tampered) == 1, path
    tampered = json.loads(json.dumps(recalled))
    tampered["hands"][0]["ties"] += 1
    assert verify(tampered) == 1
    tampered = json.loads(json.dumps(recalled))
    card = tampered["wars"][0]["cards"][0]
    card["card"] = "AS" if card["card"] != "AS" else "2C"
    assert verify(tampered) == 1
    tampered = json.loads(json.dumps(recalled))  # a clock this table does not have
    tampered["hands"][2]["decision"]["decided_by"] = "timeout"
    assert verify(tampered) == 1
    tampered = json.loads(json.dumps(recalled))  # more war tie bet than the table takes
    tampered["hands"][0]["bets"]["war_tie_bet"] = 20_000
    assert verify(tampered) == 1
    report = audit_database(database_url)
    assert report.ok, [c for c in report.checks if not c.ok]


def test_a_repeated_war_climbs_the_tie_ladder(api: Api, funded: Player, database_url: str) -> None:
    api.create_table("evo", **EVO)
    stakes = [HandBet(1000, 100)]

    def war_ties_then_ends(game: TableRound) -> bool:
        if game.awaiting != (0,):
            return False
        game.decide(0, "war")
        return game.hands[0].result().ties >= 2

    steer(api, database_url, funded, EVO_RULES, stakes, war_ties_then_ends)
    before = api.balance(funded)
    opened = api.bet(funded, ante=1000, tie_bet=100, table="evo").get_json()
    assert opened["hands"][0]["outcomes"]["tie_bet"] == "pending"  # the ladder waits
    settled = decide(api, funded, opened["id"], {"action": "war"}).get_json()
    hand = settled["hands"][0]
    ties = hand["ties"]
    assert ties >= 2 and len(settled["wars"]) == min(ties, 3)
    assert hand["payouts"]["tie_bet"] == 100 * ([10, 25, 50, 200][ties - 1] + 1)
    assert api.balance(funded) == before + settled["net"]
    assert verify(revealed(api, funded, opened["id"])) == 0
    assert audit_database(database_url).ok


def test_a_tie_only_hand_settles_on_its_first_cards(api: Api, funded: Player) -> None:
    api.create_table("evo", **EVO)
    before = api.balance(funded)
    body = bet(api, funded, "evo", [{"ante": 0, "tie_bet": 200}]).get_json()
    assert body["status"] == "settled" and body["hands"][0]["bets"]["ante"] == 0
    assert api.balance(funded) == before + body["net"]
    refused = api.bet(funded, ante=0, tie_bet=200)  # the classic table takes no tie-only bet
    assert_problem(refused, 422, "ante_out_of_range")
    too_many = bet(api, funded, "classic", [{"ante": 100}, {"ante": 100}])
    assert_problem(too_many, 422, "invalid_bet")


def test_the_decision_clock_surrenders_at_the_deadline(
    capi: Api, clock: Clock, database_url: str
) -> None:
    capi.create_table("timed", decision_seconds=20, max_hands=2)
    player = capi.create_player()
    capi.deposit(player, 1_000_000)
    rules = TableRules(decision_seconds=20, max_hands=2)
    stakes = [HandBet(1000, 0), HandBet(500, 0)]
    for step in range(2):
        steer(capi, database_url, player, rules, stakes, lambda g: g.awaiting == (0,))
        opened = bet(capi, player, "timed", [{"ante": 1000}, {"ante": 500}]).get_json()
        assert opened["decision_deadline"] is not None
        clock.advance(seconds=21)
        if step == 0:  # read past the deadline: the clock decided it
            recalled = capi.get(f"/api/v1/rounds/{opened['id']}", auth=player.auth).get_json()
        else:  # a late decision: answered with the clock's
            recalled = decide(capi, player, opened["id"], {"action": "war"}).get_json()
        assert recalled["status"] == "settled"
        assert recalled["hands"][0]["decision"] == {"action": "surrender", "decided_by": "timeout"}
        assert recalled["decision_deadline"] is None
        assert recalled["settled_at"].startswith(opened["decision_deadline"][:19])
    # A list that shows a round past its deadline shows it decided by the clock.
    steer(capi, database_url, player, rules, stakes, lambda g: g.awaiting == (0,))
    listed_open = bet(capi, player, "timed", [{"ante": 1000}, {"ante": 500}]).get_json()
    clock.advance(seconds=21)
    page = capi.get("/api/v1/rounds?status=settled", auth=player.auth).get_json()
    assert listed_open["id"] in {item["id"] for item in page["items"]}
    # A bet while a round is past its deadline: the clock decides it, then the bet is dealt.
    steer(capi, database_url, player, rules, stakes, lambda g: g.awaiting == (0,))
    opened = bet(capi, player, "timed", [{"ante": 1000}, {"ante": 500}]).get_json()
    clock.advance(seconds=30)
    again = bet(capi, player, "timed", [{"ante": 1000}])
    assert again.status_code == 201, again.get_json()
    first = capi.get(f"/api/v1/rounds/{opened['id']}", auth=player.auth).get_json()
    assert first["hands"][0]["decision"]["decided_by"] == "timeout"
    assert audit_database(database_url).ok


def test_the_scheduler_times_out_rounds_nobody_touches(
    capi: Api, clock: Clock, database_url: str
) -> None:
    capi.create_table("timed", decision_seconds=20)
    player = capi.create_player()
    capi.deposit(player, 1_000_000)
    rules = TableRules(decision_seconds=20)
    steer(capi, database_url, player, rules, [HandBet(1000, 0)], lambda g: g.awaiting == (0,))
    opened = capi.bet(player, ante=1000, table="timed").get_json()
    assert opened["status"] == "awaiting_decision"
    clock.advance(seconds=25)
    database = Database.open(database_url, clock=clock)
    try:
        with database.unit_of_work("default") as uow:
            assert [view.id for view in time_out_due(uow)] == [opened["id"]]
            uow.commit()
    finally:
        database.dispose()
    recalled = capi.get(f"/api/v1/rounds/{opened['id']}", auth=player.auth).get_json()
    assert recalled["decision"] == {"action": "surrender", "decided_by": "timeout"}
    result = CliRunner().invoke(casino_cli, ["time-out-rounds", "--database-url", database_url])
    assert result.exit_code == 0, result.output
    assert "0 round(s) timed out" in result.output
