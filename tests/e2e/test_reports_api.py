"""GET /api/v1/reports/tables over HTTP: operators only, figures that match the rounds the
API itself reports, the period and its validation."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from .helpers import Api, Player, assert_problem, is_tie, steer_next_deal

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
