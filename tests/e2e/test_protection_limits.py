"""Issue 12, points 1 and 3: limits through HTTP on both databases, with an injected clock.

Deposit, loss and wager limits per calendar period, lower at once and higher only after
24 hours, their history, enforcement with 409 limit_exceeded, the session time limit and
reality checks.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Flask

from casino.ledger.audit import format_report

from .helpers import (
    Api,
    Player,
    assert_problem,
    audit_database,
    dealer_wins,
    is_tie,
    new_key,
    player_wins,
    steer_next_deal,
)
from .protection_helpers import START, Clock, money_limit, set_limits


def deposit(api: Api, player: Player, amount: int, currency: str = "EUR") -> Any:
    return api.post(
        f"/api/v1/players/{player.id}/deposits",
        {"currency": currency, "amount": amount, "reference": new_key()},
        auth=api.operator_auth,
        key=new_key(),
    )


def limits_of(api: Api, player: Player, auth: Any = None) -> dict[str, Any]:
    response = api.get(f"/api/v1/players/{player.id}/limits", auth=auth or api.operator_auth)
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def decide(api: Api, player: Player, round_id: str, action: str) -> Any:
    return api.post(
        f"/api/v1/rounds/{round_id}/decision", {"action": action}, auth=player.auth, key=new_key()
    )


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat()


def audit_ok(database_url: str) -> None:
    report = audit_database(database_url)
    assert report.ok, format_report(report)


# ---------------------------------------------------------------- deposit limits and periods


def test_a_deposit_limit_refuses_what_would_exceed_it_until_the_period_resets(
    capi: Api, clock: Clock
) -> None:
    player = capi.create_player()
    assert deposit(capi, player, 20_000).status_code == 201  # before the limit: counted too
    body = set_limits(capi, player, {"currency": "EUR", "deposit": {"day": 50_000}})
    day = money_limit(body["limits"], "deposit", "day")
    assert day == {
        "currency": "EUR",
        "limit": "deposit",
        "period": "day",
        "amount": 50_000,
        "used": 20_000,
        "remaining": 30_000,
        "period_start": "2031-03-05T00:00:00+00:00",
        "resets_at": "2031-03-06T00:00:00+00:00",
        "pending": None,
    }
    assert deposit(capi, player, 30_000).status_code == 201  # exactly at the limit
    refused = deposit(capi, player, 1)
    problem = assert_problem(refused, 409, "limit_exceeded")
    assert {k: problem[k] for k in ("limit", "period", "limit_amount", "used", "remaining")} == {
        "limit": "deposit",
        "period": "day",
        "limit_amount": 50_000,
        "used": 50_000,
        "remaining": 0,
    }
    assert problem["resets_at"] == "2031-03-06T00:00:00+00:00"
    assert capi.balance(player) == 50_000  # nothing moved
    # One second before midnight the day is still full; at midnight it starts again.
    clock.at(datetime(2031, 3, 5, 23, 59, 59, tzinfo=UTC))
    assert_problem(deposit(capi, player, 1), 409, "limit_exceeded")
    clock.at(datetime(2031, 3, 6, 0, 0, tzinfo=UTC))
    assert deposit(capi, player, 50_000).status_code == 201
    assert money_limit(limits_of(capi, player), "deposit", "day")["used"] == 50_000


def test_week_and_month_periods_are_calendar_ones(capi: Api, clock: Clock) -> None:
    player = capi.create_player()
    set_limits(
        capi,
        player,
        {"currency": "EUR", "deposit": {"week": 1_000, "month": 1_500, "day": None}},
    )
    assert deposit(capi, player, 1_000).status_code == 201
    week = assert_problem(deposit(capi, player, 1), 409, "limit_exceeded")
    assert (week["period"], week["resets_at"]) == ("week", "2031-03-10T00:00:00+00:00")  # Monday
    clock.at(datetime(2031, 3, 10, 0, 0, tzinfo=UTC))
    assert deposit(capi, player, 500).status_code == 201
    month = assert_problem(deposit(capi, player, 1), 409, "limit_exceeded")
    assert (month["period"], month["resets_at"]) == ("month", "2031-04-01T00:00:00+00:00")
    limits = limits_of(capi, player)
    assert money_limit(limits, "deposit", "day") is None  # never set
    assert money_limit(limits, "deposit", "month")["used"] == 1_500
    clock.at(datetime(2031, 4, 1, 0, 0, tzinfo=UTC))
    assert deposit(capi, player, 1_000).status_code == 201


# ---------------------------------------------------------------- lower at once, higher later


def test_lower_at_once_higher_and_removal_after_24_hours_with_history(
    capi: Api, clock: Clock
) -> None:
    player = capi.create_player()
    first = set_limits(capi, player, {"currency": "EUR", "wager": {"day": 5_000}})
    assert [(c["limit"], c["old_value"], c["new_value"]) for c in first["changes"]] == [
        ("wager", None, 5_000)
    ]
    assert first["changes"][0]["effective_at"] == iso(START)  # a first limit: at once

    lower = set_limits(capi, player, {"currency": "EUR", "wager": {"day": 3_000}}, player.auth)
    assert lower["changes"][0]["effective_at"] == iso(START)
    assert money_limit(lower["limits"], "wager", "day")["amount"] == 3_000

    clock.advance(hours=1)
    raised = set_limits(capi, player, {"currency": "EUR", "wager": {"day": 9_000}}, player.auth)
    later = START + timedelta(hours=25)
    assert raised["changes"][0]["effective_at"] == iso(later)
    day = money_limit(raised["limits"], "wager", "day")
    assert day["amount"] == 3_000  # the lower one stays in force meanwhile
    assert day["pending"] == {"value": 9_000, "effective_at": iso(later)}
    # Asking again for the same raise does not restart its clock.
    again = set_limits(capi, player, {"currency": "EUR", "wager": {"day": 9_000}})
    assert again["changes"] == []

    clock.at(later - timedelta(seconds=1))
    assert money_limit(limits_of(capi, player), "wager", "day")["amount"] == 3_000
    clock.at(later)
    day = money_limit(limits_of(capi, player), "wager", "day")
    assert (day["amount"], day["pending"]) == (9_000, None)

    removal = set_limits(capi, player, {"currency": "EUR", "wager": {"day": None}}, player.auth)
    gone_at = later + timedelta(hours=24)
    assert money_limit(removal["limits"], "wager", "day")["pending"] == {
        "value": None,
        "effective_at": iso(gone_at),
    }
    clock.at(gone_at)
    assert money_limit(limits_of(capi, player), "wager", "day") is None

    history = capi.get(f"/api/v1/players/{player.id}/limits/history", auth=player.auth)
    assert history.status_code == 200
    items = history.get_json()["items"]
    assert [(i["old_value"], i["new_value"], i["changed_by"]) for i in items] == [
        (9_000, None, "player"),
        (3_000, 9_000, "player"),
        (5_000, 3_000, "player"),
        (None, 5_000, "operator"),
    ]
    assert [i["effective_at"] for i in items] == [
        iso(gone_at),
        iso(later),
        iso(START),
        iso(START),
    ]
    assert items[-1]["actor"].startswith("operator:")
    assert items[0]["actor"] == f"player:{player.id}"
    assert all(i["currency"] == "EUR" and i["period"] == "day" for i in items)
    page = capi.get(f"/api/v1/players/{player.id}/limits/history?limit=3", auth=player.auth)
    cursor = page.get_json()["next_cursor"]
    rest = capi.get(f"/api/v1/players/{player.id}/limits/history?cursor={cursor}", auth=player.auth)
    assert [i["id"] for i in rest.get_json()["items"]] == [items[-1]["id"]]


def test_a_pending_raise_is_cancelled_by_asking_for_the_limit_in_force(
    capi: Api, clock: Clock
) -> None:
    player = capi.create_player()
    set_limits(capi, player, {"currency": "EUR", "loss": {"week": 1_000}})
    set_limits(capi, player, {"currency": "EUR", "loss": {"week": 2_000}})
    back = set_limits(capi, player, {"currency": "EUR", "loss": {"week": 1_000}})
    assert back["changes"][0]["effective_at"] == iso(START)
    clock.advance(days=2)
    week = money_limit(limits_of(capi, player), "loss", "week")
    assert (week["amount"], week["pending"]) == (1_000, None)


def test_time_limits_follow_the_same_rule(capi: Api, clock: Clock) -> None:
    player = capi.create_player()
    body = set_limits(capi, player, {"session_minutes": 120, "reality_check_minutes": 30})
    assert body["limits"]["session_minutes"] == {"value": 120, "pending": None}
    raised = set_limits(capi, player, {"session_minutes": 240}, player.auth)
    assert raised["limits"]["session_minutes"] == {
        "value": 120,
        "pending": {"value": 240, "effective_at": iso(START + timedelta(hours=24))},
    }
    lower = set_limits(capi, player, {"reality_check_minutes": 15}, player.auth)
    assert lower["limits"]["reality_check_minutes"] == {"value": 15, "pending": None}
    clock.advance(hours=24)
    assert limits_of(capi, player, player.auth)["session_minutes"]["value"] == 240


def test_limits_are_validated_and_private(capi: Api, gambler: Player) -> None:
    path = f"/api/v1/players/{gambler.id}/limits"
    op = capi.operator_auth
    for body in (
        {"deposit": {"day": 100}},  # no currency
        {"currency": "EUR", "deposit": {"day": 0}},
        {"currency": "EUR", "deposit": {"year": 5}},
        {"currency": "EUR", "deposit": {"day": 1.5}},
        {"currency": "EUR", "bonus": {"day": 5}},
        {"session_minutes": 0},
        {"reality_check_minutes": 24 * 60 + 1},
    ):
        assert_problem(capi.put(path, body, auth=op), 422, "validation_failed")
    for currency in ("XYZ", "JPY"):  # not ISO 4217; ISO but not accepted here
        refused = capi.put(path, {"currency": currency, "loss": {"day": 5}}, auth=op)
        assert_problem(refused, 422, "unsupported_currency")
    other = capi.create_player()
    assert_problem(capi.get(path, auth=other.auth), 404, "player_not_found")
    assert_problem(capi.put(path, {"session_minutes": 5}, auth=other.auth), 404, "player_not_found")
    unknown = "/api/v1/players/00000000-0000-4000-8000-000000000000/limits"
    assert_problem(capi.get(unknown, auth=op), 404, "player_not_found")


# ---------------------------------------------------------------- loss and wager limits on rounds


def test_a_loss_limit_counts_net_losses_and_refuses_the_bet_that_could_exceed_it(
    capi: Api, gambler: Player, database_url: str
) -> None:
    set_limits(capi, gambler, {"currency": "EUR", "loss": {"day": 250}}, gambler.auth)
    for _ in range(2):
        steer_next_deal(capi, database_url, gambler, dealer_wins)
        assert capi.bet(gambler, ante=100).status_code == 201
    day = money_limit(limits_of(capi, gambler), "loss", "day")
    assert (day["used"], day["remaining"]) == (200, 50)
    # A third loss could take it to 300: refused before any card is dealt.
    steer_next_deal(capi, database_url, gambler, player_wins)  # even a winning deal
    refused = assert_problem(capi.bet(gambler, ante=100), 409, "limit_exceeded")
    assert (refused["limit"], refused["limit_amount"], refused["used"]) == ("loss", 250, 200)
    assert refused["remaining"] == 50
    # A smaller bet fits; it wins, so the net loss goes down and room comes back.
    assert capi.bet(gambler, ante=50).status_code == 201
    assert money_limit(limits_of(capi, gambler), "loss", "day")["used"] == 150
    assert capi.balance(gambler) == 1_000_000 - 150
    audit_ok(database_url)


def test_a_wager_limit_counts_stakes_and_the_war_raise(
    capi: Api, gambler: Player, database_url: str
) -> None:
    set_limits(capi, gambler, {"currency": "EUR", "wager": {"day": 250}})
    steer_next_deal(capi, database_url, gambler, is_tie)
    tied = capi.bet(gambler, ante=100, tie_bet=10)
    assert tied.status_code == 201 and tied.get_json()["status"] == "awaiting_decision"
    assert money_limit(limits_of(capi, gambler), "wager", "day")["used"] == 110
    # War would wager the raise (100) on top: 210 <= 250, allowed...
    # ...but lower the limit first (at once) so that the raise no longer fits.
    set_limits(capi, gambler, {"currency": "EUR", "wager": {"day": 200}})
    war = assert_problem(decide(capi, gambler, tied.get_json()["id"], "war"), 409, "limit_exceeded")
    assert (war["limit"], war["used"], war["remaining"]) == ("wager", 110, 90)
    # Surrender wagers nothing more and finishes the round.
    done = decide(capi, gambler, tied.get_json()["id"], "surrender")
    assert done.status_code == 200, done.get_json()
    assert money_limit(limits_of(capi, gambler), "wager", "day")["used"] == 110
    audit_ok(database_url)


def test_war_within_the_limits_counts_the_raise(
    capi: Api, gambler: Player, database_url: str
) -> None:
    set_limits(capi, gambler, {"currency": "EUR", "wager": {"day": 1_000}, "loss": {"day": 1_000}})
    steer_next_deal(capi, database_url, gambler, is_tie)
    tied = capi.bet(gambler, ante=100).get_json()
    decided = decide(capi, gambler, tied["id"], "war")
    assert decided.status_code == 200
    body = decided.get_json()
    limits = limits_of(capi, gambler)
    assert money_limit(limits, "wager", "day")["used"] == 200
    # The loss counts what the wallet really lost over the round.
    assert money_limit(limits, "loss", "day")["used"] == -body["net"]
    assert capi.balance(gambler) == 1_000_000 + body["net"]


def test_a_tie_at_the_edge_of_a_loss_limit_may_surrender_but_not_go_to_war(
    capi: Api, gambler: Player, database_url: str
) -> None:
    """The bet fits the loss limit exactly; the war's raise could lose as much again, so war
    is refused and the round stays open; surrender risks nothing more and settles it."""
    set_limits(capi, gambler, {"currency": "EUR", "loss": {"day": 100}}, gambler.auth)
    steer_next_deal(capi, database_url, gambler, is_tie)
    tied = capi.bet(gambler, ante=100)
    assert tied.status_code == 201, tied.get_json()
    round_id = tied.get_json()["id"]
    assert tied.get_json()["status"] == "awaiting_decision"
    assert money_limit(limits_of(capi, gambler), "loss", "day")["used"] == 100

    war = assert_problem(decide(capi, gambler, round_id, "war"), 409, "limit_exceeded")
    assert (war["limit"], war["period"], war["limit_amount"]) == ("loss", "day", 100)
    assert (war["used"], war["remaining"]) == (100, 0)
    assert war["resets_at"] == iso(datetime(2031, 3, 6, tzinfo=UTC))
    recalled = capi.get(f"/api/v1/rounds/{round_id}", auth=gambler.auth).get_json()
    assert recalled["status"] == "awaiting_decision" and recalled["bets"]["raise"] == 0
    assert capi.balance(gambler) == 1_000_000 - 100

    done = decide(capi, gambler, round_id, "surrender")
    assert done.status_code == 200, done.get_json()
    body = done.get_json()
    assert body["status"] == "settled" and body["decision"]["action"] == "surrender"
    assert body["net"] == -50 and capi.balance(gambler) == 1_000_000 - 50
    day = money_limit(limits_of(capi, gambler), "loss", "day")
    assert (day["used"], day["remaining"]) == (50, 50)
    audit_ok(database_url)


def test_resolve_stale_surrenders_where_the_limits_forbid_war(
    capi: Api, clocked_app: Flask, database_url: str, clock: Clock
) -> None:
    """docs/player-protection.md: ``casino resolve-stale`` goes to war only when the limits
    allow it and surrenders otherwise (the service the command runs, on the app's clock)."""
    from casino.api.database import EXTENSION_KEY
    from casino.service.rounds import resolve_stale

    capi.create_table("classic", min_ante=10, bet_increment=10)
    limited, free = capi.create_player(), capi.create_player()
    for someone in (limited, free):
        capi.deposit(someone, 10_000)
    # A weekly limit: the day after (when the round is stale) is the same week.
    set_limits(capi, limited, {"currency": "EUR", "loss": {"week": 100}}, limited.auth)
    opened = {}
    for someone in (limited, free):
        steer_next_deal(capi, database_url, someone, is_tie)
        tied = capi.bet(someone, ante=100).get_json()
        assert tied["status"] == "awaiting_decision"
        opened[someone.id] = tied["id"]

    clock.advance(hours=25)
    with clocked_app.extensions[EXTENSION_KEY].unit_of_work("default") as uow:
        resolved = {view.player_id: view for view in resolve_stale(uow, timedelta(hours=24))}
        uow.commit()
    assert set(resolved) == {limited.id, free.id}
    assert resolved[limited.id].decision == {"action": "surrender", "decided_by": "system"}
    assert resolved[free.id].decision == {"action": "war", "decided_by": "system"}
    recalled = capi.get(f"/api/v1/rounds/{opened[limited.id]}", auth=limited.auth).get_json()
    assert recalled["status"] == "settled" and recalled["net"] == -50
    assert capi.balance(limited) == 10_000 - 50
    assert money_limit(limits_of(capi, limited), "loss", "week")["used"] == 50
    audit_ok(database_url)


def test_limits_in_another_currency_do_not_count(capi: Api, gambler: Player) -> None:
    set_limits(capi, gambler, {"currency": "USD", "wager": {"day": 1}})
    assert capi.bet(gambler, ante=100).status_code == 201


# ---------------------------------------------------------------- session and reality checks


def test_the_session_limit_ends_play_until_a_break(
    capi: Api, gambler: Player, database_url: str, clock: Clock
) -> None:
    set_limits(capi, gambler, {"session_minutes": 60}, gambler.auth)

    def bet() -> Any:
        steer_next_deal(capi, database_url, gambler, lambda d: not d.is_tie)
        return capi.bet(gambler)

    assert bet().status_code == 201  # the session starts
    for _ in range(2):  # bets less than 30 minutes apart: one session
        clock.advance(minutes=25)
        assert bet().status_code == 201
    clock.advance(minutes=10)  # 60 minutes since the session started
    refused = assert_problem(bet(), 403, "session_time_limit")
    assert refused["session_started_at"] == iso(START)
    assert refused["resets_at"] == iso(START + timedelta(minutes=50 + 30))
    # Withdrawals and statements are not play.
    out = capi.post(
        f"/api/v1/players/{gambler.id}/withdrawals",
        {"currency": "EUR", "amount": 10, "reference": "out"},
        auth=capi.operator_auth,
        key=new_key(),
    )
    assert out.status_code == 201
    clock.advance(minutes=19)
    assert_problem(bet(), 403, "session_time_limit")
    clock.advance(minutes=1)  # 30 minutes without a bet: the session is over
    assert bet().status_code == 201
    protection = capi.get(f"/api/v1/players/{gambler.id}/protection", auth=gambler.auth)
    session = protection.get_json()["session"]
    assert (session["started_at"], session["limit_minutes"]) == (iso(clock.now), 60)
    assert session["ends_at"] == iso(clock.now + timedelta(minutes=60))


def test_a_round_awaiting_a_decision_may_be_finished_after_the_session_limit(
    capi: Api, gambler: Player, database_url: str, clock: Clock
) -> None:
    """The session limit stops new play, not a stake already on the table."""
    set_limits(capi, gambler, {"session_minutes": 60}, gambler.auth)
    steer_next_deal(capi, database_url, gambler, lambda d: not d.is_tie)
    assert capi.bet(gambler).status_code == 201  # the session starts
    clock.advance(minutes=25)
    steer_next_deal(capi, database_url, gambler, lambda d: not d.is_tie)
    assert capi.bet(gambler).status_code == 201
    clock.advance(minutes=25)
    steer_next_deal(capi, database_url, gambler, is_tie)
    tied = capi.bet(gambler).get_json()
    assert tied["status"] == "awaiting_decision"
    clock.advance(minutes=10)  # 60 minutes: the session limit is reached
    protection = capi.get(f"/api/v1/players/{gambler.id}/protection", auth=gambler.auth)
    assert protection.get_json()["session"]["ends_at"] == iso(START + timedelta(minutes=60))

    decided = decide(capi, gambler, tied["id"], "war")
    assert decided.status_code == 200, decided.get_json()
    assert decided.get_json()["status"] == "settled"
    # ...and no new round after it.
    steer_next_deal(capi, database_url, gambler, lambda d: not d.is_tie)
    assert_problem(capi.bet(gambler), 403, "session_time_limit")
    audit_ok(database_url)


def test_a_due_reality_check_is_in_every_round_answer_until_acknowledged(
    capi: Api, gambler: Player, database_url: str, clock: Clock
) -> None:
    set_limits(capi, gambler, {"reality_check_minutes": 30}, gambler.auth)

    def bet() -> dict[str, Any]:
        steer_next_deal(capi, database_url, gambler, lambda d: not d.is_tie)
        response = capi.bet(gambler)
        assert response.status_code == 201, response.get_json()
        return dict(response.get_json())

    assert bet()["reality_check"] is None
    clock.advance(minutes=29)
    assert bet()["reality_check"] is None
    clock.advance(minutes=1)
    check = bet()["reality_check"]
    assert check == {
        "due_at": iso(START + timedelta(minutes=30)),
        "session_started_at": iso(START),
        "minutes_played": 30,
        "interval_minutes": 30,
        "acknowledge": f"/api/v1/players/{gambler.id}/reality-check",
        "message": "You have been playing for 30 minutes (since 12:00 UTC). "
        "You asked for a reality check every 30 minutes.",
    }
    clock.advance(minutes=5)
    assert bet()["reality_check"]["minutes_played"] == 35  # still there
    # A decision answer reports it too.
    steer_next_deal(capi, database_url, gambler, is_tie)
    tied = capi.bet(gambler).get_json()
    assert tied["reality_check"] is not None
    assert decide(capi, gambler, tied["id"], "surrender").get_json()["reality_check"] is not None
    # The player's recall reports it too (a client polling a round sees it); the operator's
    # does not (it is the player's reminder).
    recall = f"/api/v1/rounds/{tied['id']}"
    recalled = capi.get(recall, auth=gambler.auth)
    assert recalled.status_code == 200
    assert recalled.get_json()["reality_check"] == {
        **check,
        "minutes_played": 35,
        "message": check["message"].replace("30 minutes (", "35 minutes ("),
    }
    assert capi.get(recall, auth=capi.operator_auth).get_json()["reality_check"] is None
    ack = capi.post(check["acknowledge"], auth=gambler.auth)
    assert ack.status_code == 200 and ack.get_json()["reality_check"] is None
    assert capi.get(recall, auth=gambler.auth).get_json()["reality_check"] is None
    assert bet()["reality_check"] is None
    clock.advance(minutes=20)
    assert bet()["reality_check"] is None
    clock.advance(minutes=10)  # an interval after the acknowledgement
    assert bet()["reality_check"]["due_at"] == iso(START + timedelta(minutes=35 + 30))
    assert_problem(capi.post(check["acknowledge"], auth=capi.operator_auth), 403, "forbidden")


def test_players_without_time_limits_get_no_session(capi: Api, gambler: Player) -> None:
    assert capi.bet(gambler).get_json()["reality_check"] is None
    protection = capi.get(f"/api/v1/players/{gambler.id}/protection", auth=capi.operator_auth)
    assert protection.get_json() == {
        "player_id": gambler.id,
        "status": "active",
        "status_reason": None,
        "exclusion": None,
        "session": None,
        "reality_check": None,
    }
