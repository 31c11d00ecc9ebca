"""GET /api/v1/reports/tables over HTTP: operators only, figures that match the rounds the
API itself reports, the period and its validation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from casino.engine.casino_war import HandBet, TableRound

from .helpers import Api, Player, assert_problem, is_tie, steer_next_deal
from .test_table_rounds import EVO, EVO_RULES, bet, decide, steer

URL = "/api/v1/reports/tables"


def play(api: Api, database_url: str, player: Player, rounds: int) -> list[dict[str, Any]]:
    """Rounds with and without tie bets; every third is steered to a tie, decided both ways."""
    played = []
    for i in range(rounds):
        if i % 3 == 0:
            steer_next_deal(api, database_url, player, is_tie)
        reply = api.bet(player, ante=100 * (1 + i % 4), tie_bet=100 if i % 2 else 0)
        assert reply.status_code == 201, reply.get_json()
        body = reply.get_json()
        if body["status"] == "awaiting_decision":
            action = "war" if i % 2 else "surrender"
            reply = api.post(
                f"/api/v1/rounds/{body['id']}/decision",
                {"action": action},
                auth=player.auth,
                key=f"decide-{body['id']}",
            )
            assert reply.status_code == 200, reply.get_json()
            body = reply.get_json()
        played.append(body)
    return played


def test_operator_report_matches_the_rounds(api: Api, database_url: str, funded: Player) -> None:
    played = play(api, database_url, funded, 24)
    reply = api.get(URL, auth=api.operator_auth)
    assert reply.status_code == 200, reply.get_json()
    report = reply.get_json()
    [table] = report["tables"]
    assert (table["table_id"], table["currency"], table["open_rounds"]) == ("classic", "EUR", 0)
    total = table["total"]
    handle = sum(sum(r["bets"].values()) for r in played)
    wins = sum(sum(r["payouts"].values()) for r in played)
    assert total["rounds"] == 24
    assert total["all_bets"]["handle"] == handle and total["all_bets"]["wins"] == wins
    assert total["all_bets"]["ggr"] == handle - wins == -sum(r["net"] for r in played)
    assert total["all_bets"]["observed_rtp"] == pytest.approx(wins / handle)
    assert total["tie_bet"]["rounds"] == 12
    assert total["tie_bet"]["handle"] == sum(r["bets"]["tie_bet"] for r in played)
    ties = [r for r in played if r["decision"] is not None]
    assert total["decisions"]["ties"] == len(ties) >= 8
    assert total["decisions"]["war"] == sum(r["decision"]["action"] == "war" for r in ties)
    today = datetime.now(UTC).date().isoformat()
    assert [day["day"] for day in table["days"]] in ([today], [today, _tomorrow()])
    assert table["rules"][0]["rtp"]["war"]["exact"]


def _tomorrow() -> str:
    return (datetime.now(UTC) + timedelta(days=1)).date().isoformat()


def test_the_period_filters_and_a_date_until_includes_its_day(
    api: Api, database_url: str, funded: Player
) -> None:
    play(api, database_url, funded, 3)
    today = datetime.now(UTC).date()
    query = f"?since={today.isoformat()}&until={today.isoformat()}&currency=EUR"
    report = api.get(URL + query, auth=api.operator_auth).get_json()
    assert report["since"] == f"{today.isoformat()}T00:00:00+00:00"
    assert report["until"] == f"{(today + timedelta(days=1)).isoformat()}T00:00:00+00:00"
    assert report["tables"][0]["total"]["rounds"] == 3
    later = (today + timedelta(days=2)).isoformat()
    report = api.get(f"{URL}?since={later}", auth=api.operator_auth).get_json()
    assert report["tables"] == []
    report = api.get(f"{URL}?currency=USD", auth=api.operator_auth).get_json()
    assert report["tables"] == [] and report["currency"] == "USD"
    # Date-times with an offset are instants.
    since = (datetime.now(UTC) - timedelta(hours=1)).astimezone().isoformat()
    reply = api.get(URL, auth=api.operator_auth, query_string={"since": since})
    assert reply.status_code == 200
    assert reply.get_json()["tables"][0]["total"]["rounds"] == 3


def test_only_operators_see_reports(api: Api, funded: Player) -> None:
    assert_problem(api.get(URL), 401, "unauthenticated")
    assert_problem(api.get(URL, auth=funded.auth), 403, "forbidden")


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("?since=2026-11-30&until=2026-11-01", "invalid_period"),
        ("?since=2026-11-30T00:00:00Z&until=2026-11-30T00:00:00Z", "invalid_period"),
        ("?since=yesterday", "validation_failed"),
        ("?since=2026-02-30", "validation_failed"),
        ("?until=9999-12-31", "validation_failed"),
        ("?since=0001-01-01T00:00:00+01:00", "validation_failed"),
        ("?currency=eur", "validation_failed"),
        ("?table=classic", "validation_failed"),
    ],
)
def test_bad_queries_are_refused(api: Api, query: str, code: str) -> None:
    assert_problem(api.get(URL + query, auth=api.operator_auth), 422, code)


def test_the_report_is_in_the_openapi_document(api: Api) -> None:
    spec = api.get("/api/v1/openapi.json").get_json()
    operation = spec["paths"]["/api/v1/reports/tables"]["get"]
    assert {p["name"] for p in operation["parameters"]} == {"since", "until", "currency"}
    assert {"200", "401", "403", "422"} <= set(operation["responses"])


def test_a_table_of_several_hands_ladder_and_war_tie_bets_reports_the_api_money(
    api: Api, database_url: str, funded: Player
) -> None:
    """Issue 21 rules over HTTP: the war tie bets on their own line, in the handle; the rules
    entry names the rules that set the odds; GGR is the players' net as the API reported it."""
    api.create_table("evo", **EVO)
    hands = [{"ante": 1000, "tie_bet": 100}, {"ante": 500, "tie_bet": 0}]
    stakes = [HandBet(h["ante"], h["tie_bet"]) for h in hands]
    played = []
    for i in range(6):
        if i % 2 == 0:  # a tie to decide, with a war tie bet

            def tied(game: TableRound) -> bool:
                return bool(game.awaiting)

            steer(api, database_url, funded, EVO_RULES, stakes, tied)
        reply = bet(api, funded, "evo", hands if i % 3 else [{"ante": 0, "tie_bet": 200}])
        assert reply.status_code == 201, reply.get_json()
        body = reply.get_json()
        if body["status"] == "awaiting_decision":
            waiting = body["awaiting_hands"]
            reply = decide(
                api,
                funded,
                body["id"],
                {
                    "hands": {str(h): "war" for h in waiting},
                    "war_tie_bets": {str(h): 300 for h in waiting},
                },
            )
            assert reply.status_code == 200, reply.get_json()
            body = reply.get_json()
        assert body["status"] == "settled"
        played.append(body)
    reply = api.get(URL, auth=api.operator_auth)
    assert reply.status_code == 200, reply.get_json()
    [table] = [t for t in reply.get_json()["tables"] if t["table_id"] == "evo"]
    total = table["total"]
    handle = sum(sum(r["bets"].values()) for r in played)
    wins = sum(sum(r["payouts"].values()) for r in played)
    assert (total["all_bets"]["handle"], total["all_bets"]["wins"]) == (handle, wins)
    assert total["all_bets"]["ggr"] == -sum(r["net"] for r in played)
    war_tie = total["war_tie_bet"]
    assert war_tie["handle"] == sum(r["bets"]["war_tie_bet"] for r in played) > 0
    assert war_tie["wins"] == sum(r["payouts"]["war_tie_bet"] for r in played)
    assert war_tie["theoretical_rtp_exact"]
    [rules] = table["rules"]
    assert rules["war_ties"] == "repeat" and rules["tie_ladder"] == [10, 25, 50, 200]
    assert rules["war_tie_pays"] == 10 and rules["decks"] == 8
    assert {"tie_bet_alone", "war_tie_bet"} <= set(rules["rtp"])


def test_the_decisions_count_every_tied_hand_of_a_round(
    api: Api, database_url: str, funded: Player
) -> None:
    """A round of three hands where hands 0 and 2 tie, one sent to war and one surrendered:
    two ties, one war, one surrender (not hand 0's decision alone)."""
    api.create_table("evo", **EVO)
    hands = [{"ante": 100, "tie_bet": 0}] * 3
    stakes = [HandBet(100, 0)] * 3

    def two_ties(game: TableRound) -> bool:
        return list(game.awaiting) == [0, 2]

    steer(api, database_url, funded, EVO_RULES, stakes, two_ties)
    reply = bet(api, funded, "evo", hands)
    assert reply.status_code == 201, reply.get_json()
    body = reply.get_json()
    assert body["awaiting_hands"] == [0, 2]
    reply = decide(api, funded, body["id"], {"hands": {"0": "surrender", "2": "war"}})
    assert reply.status_code == 200, reply.get_json()
    assert reply.get_json()["status"] == "settled"
    report = api.get(URL, auth=api.operator_auth).get_json()
    [table] = [t for t in report["tables"] if t["table_id"] == "evo"]
    decisions = table["total"]["decisions"]
    assert (decisions["ties"], decisions["war"], decisions["surrender"]) == (2, 1, 1)
    assert decisions["war_share"] == pytest.approx(0.5)
