"""Issue 12, point 2: cool-off, self-exclusion and the operator's suspend / reactivate /
close, through HTTP on both databases with an injected clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from casino.api.openapi import ACCOUNT_BLOCKED_CODES

from .helpers import Api, Player, assert_problem, is_tie, new_key, steer_next_deal
from .protection_helpers import START, Clock


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat()


def exclude(api: Api, player: Player, body: dict[str, Any], auth: Any = None) -> Any:
    return api.post(f"/api/v1/players/{player.id}/exclusions", body, auth=auth or player.auth)


def status(api: Api, player: Player, action: str, reason: str = "KYC review") -> Any:
    return api.post(
        f"/api/v1/players/{player.id}/{action}", {"reason": reason}, auth=api.operator_auth
    )


def money(api: Api, player: Player, kind: str, amount: int = 100) -> Any:
    return api.post(
        f"/api/v1/players/{player.id}/{kind}",
        {"currency": "EUR", "amount": amount, "reference": new_key()},
        auth=api.operator_auth,
        key=new_key(),
    )


def still_allowed(api: Api, player: Player, round_id: str | None = None) -> None:
    """What an excluded or suspended account may still do."""
    assert money(api, player, "withdrawals").status_code == 201
    path = f"/api/v1/players/{player.id}"
    statement = api.get(
        f"{path}/statement?from=2031-01-01T00:00:00Z&to=2032-01-01T00:00:00Z", auth=player.auth
    )
    assert statement.status_code == 200, statement.get_json()
    assert api.get("/api/v1/rounds", auth=player.auth).status_code == 200
    assert api.get(f"{path}/transactions", auth=player.auth).status_code == 200
    if round_id is not None:
        assert api.get(f"/api/v1/rounds/{round_id}", auth=player.auth).status_code == 200
        path = f"/api/v1/rounds/{round_id}/decision"
        # Going to war is a new wager (issue 19): refused; surrendering finishes the round.
        war = api.post(path, {"action": "war"}, auth=player.auth, key=new_key())
        assert war.status_code == 403, war.get_json()
        assert war.get_json()["code"] in ACCOUNT_BLOCKED_CODES
        decided = api.post(path, {"action": "surrender"}, auth=player.auth, key=new_key())
        assert decided.status_code == 200, decided.get_json()


def test_a_cool_off_stops_rounds_and_deposits_but_not_the_rest(
    capi: Api, gambler: Player, database_url: str, clock: Clock
) -> None:
    steer_next_deal(capi, database_url, gambler, is_tie)
    open_round = capi.bet(gambler).get_json()
    assert open_round["status"] == "awaiting_decision"
    answer = exclude(capi, gambler, {"kind": "cool_off", "days": 2})
    assert answer.status_code == 201, answer.get_json()
    ends_at = START + timedelta(days=2)
    assert answer.get_json()["exclusion"] == {
        "kind": "cool_off",
        "started_at": iso(START),
        "ends_at": iso(ends_at),
    }
    refused = assert_problem(capi.bet(gambler), 403, "cooling_off")
    assert refused["ends_at"] == iso(ends_at)
    assert_problem(money(capi, gambler, "deposits"), 403, "cooling_off")
    still_allowed(capi, gambler, open_round["id"])
    # The player cannot shorten it, nor lift it by asking for a shorter one.
    shorter = exclude(capi, gambler, {"kind": "cool_off", "days": 1})
    conflict = assert_problem(shorter, 409, "exclusion_in_force")
    assert (conflict["kind"], conflict["ends_at"]) == ("cool_off", iso(ends_at))
    clock.at(ends_at - timedelta(seconds=1))
    assert_problem(capi.bet(gambler), 403, "cooling_off")
    clock.at(ends_at)
    assert capi.bet(gambler).status_code == 201
    assert money(capi, gambler, "deposits").status_code == 201


def test_a_self_exclusion_can_only_be_extended(capi: Api, gambler: Player, clock: Clock) -> None:
    answer = exclude(capi, gambler, {"kind": "self_exclusion", "months": 6}, capi.operator_auth)
    assert answer.status_code == 201
    ends_at = datetime(2031, 9, 5, 12, 0, tzinfo=UTC)
    assert answer.get_json()["exclusion"]["ends_at"] == iso(ends_at)
    refused = assert_problem(capi.bet(gambler), 403, "self_excluded")
    assert refused["ends_at"] == iso(ends_at)
    assert_problem(money(capi, gambler, "deposits"), 403, "self_excluded")
    still_allowed(capi, gambler)
    assert_problem(
        exclude(capi, gambler, {"kind": "cool_off", "days": 42}), 409, "exclusion_in_force"
    )
    # A cool-off ending later extends it, and it stays a self-exclusion.
    clock.at(datetime(2031, 8, 30, tzinfo=UTC))
    longer = exclude(capi, gambler, {"kind": "cool_off", "days": 42})
    assert longer.status_code == 201
    extended = longer.get_json()["exclusion"]
    assert extended == {
        "kind": "self_exclusion",
        "started_at": iso(START),
        "ends_at": iso(datetime(2031, 10, 11, tzinfo=UTC)),
    }
    clock.at(datetime(2031, 10, 11, tzinfo=UTC))
    assert capi.bet(gambler).status_code == 201
    history = capi.get(f"/api/v1/players/{gambler.id}/protection/history", auth=gambler.auth)
    events = history.get_json()["items"]
    assert [(e["action"], e["changed_by"]) for e in events] == [
        ("self_exclusion", "player"),
        ("self_exclusion", "operator"),
    ]


@pytest.mark.parametrize(
    "body",
    [
        {"kind": "cool_off", "days": 0},
        {"kind": "cool_off", "days": 43},
        {"kind": "cool_off", "months": 6},
        {"kind": "self_exclusion", "months": 5},
        {"kind": "self_exclusion", "months": 61},
        {"kind": "self_exclusion", "days": 200},
        {"kind": "timeout", "days": 1},
        {"kind": "cool_off"},
    ],
)
def test_exclusion_durations_are_bounded(capi: Api, gambler: Player, body: dict[str, Any]) -> None:
    assert_problem(exclude(capi, gambler, body), 422, "validation_failed")
    assert capi.bet(gambler).status_code == 201  # nothing changed


def test_the_operator_suspends_reactivates_and_closes_with_a_reason(
    capi: Api, gambler: Player, database_url: str
) -> None:
    steer_next_deal(capi, database_url, gambler, is_tie)
    open_round = capi.bet(gambler).get_json()
    suspended = status(capi, gambler, "suspend", "suspected fraud")
    assert suspended.status_code == 200
    assert (suspended.get_json()["status"], suspended.get_json()["status_reason"]) == (
        "suspended",
        "suspected fraud",
    )
    assert_problem(capi.bet(gambler), 403, "account_suspended")
    assert_problem(money(capi, gambler, "deposits"), 403, "account_suspended")
    still_allowed(capi, gambler, open_round["id"])
    assert_problem(status(capi, gambler, "suspend"), 409, "account_status_unchanged")
    assert status(capi, gambler, "reactivate", "cleared").status_code == 200
    assert capi.bet(gambler).status_code == 201
    assert status(capi, gambler, "close", "player asked").status_code == 200
    assert_problem(capi.bet(gambler), 403, "account_closed")
    assert_problem(money(capi, gambler, "deposits"), 403, "account_closed")
    assert money(capi, gambler, "withdrawals").status_code == 201
    events = capi.get(
        f"/api/v1/players/{gambler.id}/protection/history", auth=capi.operator_auth
    ).get_json()["items"]
    assert [(e["action"], e["old_status"], e["new_status"], e["reason"]) for e in events] == [
        ("close", "active", "closed", "player asked"),
        ("reactivate", "suspended", "active", "cleared"),
        ("suspend", "active", "suspended", "suspected fraud"),
    ]
    assert all(e["changed_by"] == "operator" for e in events)


def test_status_changes_are_the_operators_and_need_a_reason(capi: Api, gambler: Player) -> None:
    for action in ("suspend", "reactivate", "close"):
        path = f"/api/v1/players/{gambler.id}/{action}"
        refused = capi.post(path, {"reason": "mine"}, auth=gambler.auth)
        assert_problem(refused, 403, "forbidden")
        assert_problem(capi.post(path, {}, auth=capi.operator_auth), 422, "validation_failed")
        assert_problem(
            capi.post(path, {"reason": ""}, auth=capi.operator_auth), 422, "validation_failed"
        )
    unknown = "/api/v1/players/00000000-0000-4000-8000-000000000000/suspend"
    assert_problem(
        capi.post(unknown, {"reason": "x"}, auth=capi.operator_auth), 404, "player_not_found"
    )
    other = capi.create_player()
    assert_problem(
        exclude(capi, gambler, {"kind": "cool_off", "days": 1}, other.auth), 404, "player_not_found"
    )
    assert capi.bet(gambler).status_code == 201
