"""Issue 12: every new operation and problem code answers as the OpenAPI spec declares."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from casino.api.errors import PROBLEM_CODES

from .helpers import Api, Player, is_tie, new_key, steer_next_deal
from .protection_helpers import Clock
from .test_openapi_contract import Contract, served_spec

NEW_CODES = {
    "unsupported_currency",
    "duplicate_reference",
    "limit_exceeded",
    "account_suspended",
    "account_closed",
    "self_excluded",
    "cooling_off",
    "session_time_limit",
    "exclusion_in_force",
    "account_status_unchanged",
    "invalid_period",
}


def test_protection_answers_as_the_spec_says(
    capi: Api, gambler: Player, database_url: str, clock: Clock
) -> None:
    spec = served_spec(capi)
    assert set(PROBLEM_CODES) >= NEW_CODES
    problem = spec["components"]["schemas"]["Problem"]["properties"]
    for member in ("limit", "period", "limit_amount", "used", "remaining", "resets_at"):
        assert member in problem, member
    contract = Contract(spec)
    check = contract.check
    op = capi.operator_auth
    path = f"/api/v1/players/{gambler.id}"

    check("listCurrencies", capi.get("/api/v1/currencies", auth=gambler.auth))
    lookup = capi.get(f"/api/v1/players?external_ref={gambler.external_ref}", auth=op)
    assert check("findPlayers", lookup)["items"][0]["id"] == gambler.id
    key = new_key()
    created = capi.post("/api/v1/players", {"external_ref": "contract"}, auth=op, key=key)
    check("createPlayer", created)
    replay = check(
        "createPlayer", capi.post("/api/v1/players", {"external_ref": "contract"}, auth=op, key=key)
    )
    assert replay["token"] is None
    duplicate = capi.post("/api/v1/players", {"external_ref": "contract"}, auth=op)
    assert check("createPlayer", duplicate)["player_id"] == created.get_json()["id"]

    limits = {
        "currency": "EUR",
        "deposit": {"day": 50_000, "week": None},
        "loss": {"day": 10_000},
        "wager": {"month": 1_000_000},
        "session_minutes": 120,
        "reality_check_minutes": 30,
    }
    check("setLimits", capi.put(f"{path}/limits", limits, auth=gambler.auth))
    raised = check(
        "setLimits",
        capi.put(f"{path}/limits", {"currency": "EUR", "loss": {"day": 20_000}}, auth=op),
    )
    assert raised["changes"][0]["effective_at"] != raised["changes"][0]["requested_at"]
    check("getLimits", capi.get(f"{path}/limits", auth=gambler.auth))
    check("listLimitChanges", capi.get(f"{path}/limits/history?limit=2", auth=gambler.auth))
    unsupported = capi.put(f"{path}/limits", {"currency": "JPY", "loss": {"day": 1}}, auth=op)
    assert check("setLimits", unsupported)["code"] == "unsupported_currency"

    # The gambler's funding already used today's deposit limit.
    deposit = {"currency": "EUR", "amount": 60_000, "reference": "big"}
    refused = capi.post(f"{path}/deposits", deposit, auth=op, key=new_key())
    assert check("deposit", refused)["code"] == "limit_exceeded"
    small = {"currency": "EUR", "amount": 100, "reference": "small"}
    fresh = f"/api/v1/players/{created.get_json()['id']}"
    assert check("deposit", capi.post(f"{fresh}/deposits", small, auth=op, key=new_key()))["id"]
    again = capi.post(f"{fresh}/deposits", small, auth=op, key=new_key())
    assert check("deposit", again)["code"] == "duplicate_reference"
    yen = capi.post(f"{path}/withdrawals", {**small, "currency": "JPY"}, auth=op, key=new_key())
    assert check("withdraw", yen)["code"] == "unsupported_currency"

    # Rounds: a reality check due, then the session limit.
    def bet() -> dict[str, Any]:
        steer_next_deal(capi, database_url, gambler, lambda deal: not deal.is_tie)
        return dict(check("placeBet", capi.bet(gambler)))

    assert bet()["reality_check"] is None
    clock.advance(minutes=29)
    steer_next_deal(capi, database_url, gambler, is_tie)
    tied = check("placeBet", capi.bet(gambler))
    clock.advance(minutes=1)
    decided = capi.post(
        f"/api/v1/rounds/{tied['id']}/decision",
        {"action": "surrender"},
        auth=gambler.auth,
        key=new_key(),
    )
    assert check("decideRound", decided)["reality_check"] is not None
    check("getProtection", capi.get(f"{path}/protection", auth=gambler.auth))
    check("acknowledgeRealityCheck", capi.post(f"{path}/reality-check", auth=gambler.auth))
    for _ in range(4):
        clock.advance(minutes=25)
        bet()
    assert bet()["code"] == "session_time_limit"
    clock.advance(minutes=30)

    # Exclusions and the operator's status changes.
    cool = capi.post(f"{path}/exclusions", {"kind": "cool_off", "days": 1}, auth=gambler.auth)
    check("excludePlayer", cool)
    shorter = capi.post(f"{path}/exclusions", {"kind": "cool_off", "days": 1}, auth=gambler.auth)
    assert check("excludePlayer", shorter)["code"] == "exclusion_in_force"
    assert check("placeBet", capi.bet(gambler))["code"] == "cooling_off"
    clock.advance(days=1)
    check(
        "excludePlayer",
        capi.post(f"{path}/exclusions", {"kind": "self_exclusion", "months": 6}, auth=op),
    )
    assert check("placeBet", capi.bet(gambler))["code"] == "self_excluded"
    clock.advance(days=400)
    check("suspendPlayer", capi.post(f"{path}/suspend", {"reason": "review"}, auth=op))
    assert check("placeBet", capi.bet(gambler))["code"] == "account_suspended"
    again = capi.post(f"{path}/suspend", {"reason": "review"}, auth=op)
    assert check("suspendPlayer", again)["code"] == "account_status_unchanged"
    check("reactivatePlayer", capi.post(f"{path}/reactivate", {"reason": "ok"}, auth=op))
    check("closePlayer", capi.post(f"{path}/close", {"reason": "asked"}, auth=op))
    assert check("placeBet", capi.bet(gambler))["code"] == "account_closed"
    check("listAccountEvents", capi.get(f"{path}/protection/history", auth=op))

    span = f"from={(clock.now - timedelta(days=500)).isoformat()}&to={clock.now.isoformat()}"
    span = span.replace("+", "%2B")
    check("getStatement", capi.get(f"{path}/statement?{span}", auth=gambler.auth))
    backwards = capi.get(
        f"{path}/statement?from=2031-02-01T00:00:00Z&to=2031-01-01T00:00:00Z", auth=op
    )
    assert check("getStatement", backwards)["code"] == "invalid_period"
    new_ops = {
        "listCurrencies",
        "findPlayers",
        "setLimits",
        "getLimits",
        "listLimitChanges",
        "getProtection",
        "acknowledgeRealityCheck",
        "excludePlayer",
        "suspendPlayer",
        "reactivatePlayer",
        "closePlayer",
        "listAccountEvents",
        "getStatement",
    }
    assert new_ops <= {operation for operation, _ in contract.checked}
