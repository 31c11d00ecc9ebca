"""Casino War rounds through HTTP: bets, forced ties, decisions, recall, listing, audit."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest

from casino.api.schemas_rounds import RoundSchema, round_body
from casino.engine.casino_war import TableRules
from casino.ledger.audit import format_report
from casino.service.views import RoundView

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
    tie_then_war_lost,
    tie_then_war_tied,
    tie_then_war_won,
)

MISSING = "00000000-0000-4000-8000-000000000000"


def decide(api: Api, player: Player, round_id: str, action: str, key: str | None = None) -> Any:
    return api.post(
        f"/api/v1/rounds/{round_id}/decision",
        {"action": action},
        auth=player.auth,
        key=key or new_key(),
    )


def audit(database_url: str) -> None:
    report = audit_database(database_url)
    assert report.ok, format_report(report)


# ---------------------------------------------------------------- settled at once


def test_player_win_pays_one_to_one(api: Api, funded: Player, database_url: str) -> None:
    deal = steer_next_deal(api, database_url, funded, player_wins)
    response = api.bet(funded, ante=300)
    assert response.status_code == 201
    body = response.get_json()
    assert body["status"] == "settled"
    assert (body["player_card"], body["dealer_card"]) == (deal.player.code, deal.dealer.code)
    assert body["bets"] == {"ante": 300, "tie_bet": 0, "raise": 0, "war_tie_bet": 0}
    assert body["payouts"] == {"ante": 600, "tie_bet": 0, "raise": 0, "war_tie_bet": 0}
    assert body["net"] == 300 and body["balance_after"] == 1_000_300
    assert body["war"] is None and body["decision"] is None
    assert body["settled_at"] is not None and body["currency"] == "EUR"
    assert body["transaction_ids"] and body["rules"]["decks"] == 6
    assert body["fairness"]["server_seed"] is None
    assert api.balance(funded) == 1_000_300


def test_dealer_win_loses_the_ante(api: Api, funded: Player, database_url: str) -> None:
    steer_next_deal(api, database_url, funded, dealer_wins)
    body = api.bet(funded, ante=300, tie_bet=100).get_json()
    assert body["status"] == "settled"
    assert body["payouts"] == {"ante": 0, "tie_bet": 0, "raise": 0, "war_tie_bet": 0}
    assert body["net"] == -400 and api.balance(funded) == 1_000_000 - 400


def test_round_recall_and_listing(api: Api, funded: Player, database_url: str) -> None:
    steer_next_deal(api, database_url, funded, player_wins)
    created = api.bet(funded).get_json()
    recall = api.get(f"/api/v1/rounds/{created['id']}", auth=funded.auth)
    assert recall.status_code == 200 and recall.get_json() == created
    operator_recall = api.get(f"/api/v1/rounds/{created['id']}", auth=api.operator_auth)
    assert operator_recall.get_json() == created
    listing = api.get("/api/v1/rounds", auth=funded.auth).get_json()
    assert [r["id"] for r in listing["items"]] == [created["id"]]
    assert listing["next_cursor"] is None
    required = {
        "id", "player_id", "table_id", "status", "player_card", "dealer_card", "war",
        "decision", "bets", "payouts", "net", "balance_after", "fairness",
        "transaction_ids", "created_at", "settled_at", "rules",
    }  # fmt: skip
    assert required <= set(created)


# ---------------------------------------------------------------- ties and decisions


def test_forced_tie_then_surrender(api: Api, funded: Player, database_url: str) -> None:
    deal = steer_next_deal(api, database_url, funded, is_tie)
    response = api.bet(funded, ante=1000, tie_bet=100)
    assert response.status_code == 201
    tied = response.get_json()
    assert tied["status"] == "awaiting_decision"
    assert tied["player_card"] == deal.player.code and tied["dealer_card"] == deal.dealer.code
    # The tie bet pays 10:1 at once (stake included); the ante stays in play.
    assert tied["payouts"]["tie_bet"] == 1100
    assert api.balance(funded) == 1_000_000 - 1000 - 100 + 1100
    decided = decide(api, funded, tied["id"], "surrender")
    assert decided.status_code == 200
    body = decided.get_json()
    assert body["status"] == "settled"
    assert body["decision"] == {"action": "surrender", "decided_by": "player"}
    assert body["payouts"] == {"ante": 500, "tie_bet": 1100, "raise": 0, "war_tie_bet": 0}
    assert body["outcomes"] == {
        "ante": "surrender",
        "tie_bet": "win",
        "raise": "none",
        "war_tie_bet": "none",
    }
    assert tied["outcomes"] == {
        "ante": "pending",
        "tie_bet": "win",
        "raise": "none",
        "war_tie_bet": "none",
    }
    assert body["net"] == -1000 - 100 + 1100 + 500
    assert api.balance(funded) == 1_000_000 + body["net"]


@pytest.mark.parametrize(
    "wanted, ante_back, raise_back",
    [(tie_then_war_won, 1000, 2000), (tie_then_war_lost, 0, 0), (tie_then_war_tied, 1000, 2000)],
    ids=["war-won", "war-lost", "war-tied"],
)
def test_forced_tie_then_war(
    api: Api,
    funded: Player,
    database_url: str,
    wanted: Any,
    ante_back: int,
    raise_back: int,
) -> None:
    deal = steer_next_deal(api, database_url, funded, wanted)
    tied = api.bet(funded, ante=1000).get_json()
    assert tied["status"] == "awaiting_decision"
    body = decide(api, funded, tied["id"], "war").get_json()
    assert body["status"] == "settled"
    assert body["decision"] == {"action": "war", "decided_by": "player"}
    assert body["bets"] == {"ante": 1000, "tie_bet": 0, "raise": 1000, "war_tie_bet": 0}
    assert body["war"] == {
        "burns": [card.code for card in deal.burns],
        "player_card": deal.war_player.code,
        "dealer_card": deal.war_dealer.code,
    }
    # Win (or tie) at war: both bets back plus a win equal to the ante only, stated as the
    # rule usually is: the ante pushes, the raise wins even money (plus any tie bonus).
    assert (body["payouts"]["ante"], body["payouts"]["raise"]) == (ante_back, raise_back)
    labels = ("push", "win") if raise_back else ("lose", "lose")
    assert body["outcomes"] == {
        "ante": labels[0],
        "tie_bet": "none",
        "raise": labels[1],
        "war_tie_bet": "none",
    }
    assert body["net"] == ante_back + raise_back - 2000
    assert api.balance(funded) == 1_000_000 + body["net"]


def test_decision_is_idempotent(api: Api, funded: Player, database_url: str) -> None:
    steer_next_deal(api, database_url, funded, tie_then_war_won)
    tied = api.bet(funded).get_json()
    key = new_key()
    first = decide(api, funded, tied["id"], "war", key)
    second = decide(api, funded, tied["id"], "war", key)
    assert first.status_code == second.status_code == 200
    assert second.headers["Idempotent-Replayed"] == "true"
    assert second.get_json() == first.get_json()
    other = decide(api, funded, tied["id"], "surrender", key)
    assert_problem(other, 422, "idempotency_key_reused")


def test_decision_on_settled_round_is_409(api: Api, funded: Player, database_url: str) -> None:
    steer_next_deal(api, database_url, funded, player_wins)
    settled = api.bet(funded).get_json()
    response = decide(api, funded, settled["id"], "war")
    assert_problem(response, 409, "round_not_awaiting_decision")


def test_war_without_funds_for_the_raise_keeps_the_round_open(api: Api, database_url: str) -> None:
    api.create_table("classic")
    poor = api.create_player()
    api.deposit(poor, 1000)
    steer_next_deal(api, database_url, poor, is_tie)
    tied = api.bet(poor, ante=1000).get_json()
    assert tied["status"] == "awaiting_decision" and api.balance(poor) == 0
    response = decide(api, poor, tied["id"], "war")
    assert_problem(response, 409, "insufficient_funds")
    still = api.get(f"/api/v1/rounds/{tied['id']}", auth=poor.auth).get_json()
    assert still["status"] == "awaiting_decision"
    surrendered = decide(api, poor, tied["id"], "surrender")
    assert surrendered.status_code == 200 and api.balance(poor) == 500


def test_new_bet_while_a_round_awaits_a_decision_is_409(
    api: Api, funded: Player, database_url: str
) -> None:
    steer_next_deal(api, database_url, funded, is_tie)
    tied = api.bet(funded).get_json()
    balance = api.balance(funded)
    response = api.bet(funded)
    problem = assert_problem(response, 409, "round_in_progress")
    assert problem["round_id"] == tied["id"]
    assert api.balance(funded) == balance


@pytest.mark.parametrize(
    "body",
    [{}, {"action": "fold"}, {"action": "WAR"}, {"action": 1}, {"action": "war", "x": 1}],
    ids=["missing", "unknown-action", "uppercase", "number", "unknown-field"],
)
def test_decision_validation(
    api: Api, funded: Player, database_url: str, body: dict[str, Any]
) -> None:
    steer_next_deal(api, database_url, funded, is_tie)
    tied = api.bet(funded).get_json()
    response = api.post(
        f"/api/v1/rounds/{tied['id']}/decision", body, auth=funded.auth, key=new_key()
    )
    assert_problem(response, 422, "validation_failed")
    assert api.get(f"/api/v1/rounds/{tied['id']}", auth=funded.auth).get_json()["status"] == (
        "awaiting_decision"
    )


def test_decision_needs_idempotency_key(api: Api, funded: Player, database_url: str) -> None:
    steer_next_deal(api, database_url, funded, is_tie)
    tied = api.bet(funded).get_json()
    response = api.post(
        f"/api/v1/rounds/{tied['id']}/decision", {"action": "war"}, auth=funded.auth
    )
    assert_problem(response, 400, "idempotency_key_required")


def test_decision_on_unknown_round_is_404(api: Api, funded: Player) -> None:
    assert_problem(decide(api, funded, MISSING, "war"), 404, "round_not_found")


def test_operators_do_not_bet_or_decide(api: Api, funded: Player, database_url: str) -> None:
    response = api.post(
        "/api/v1/rounds",
        {"table_id": "classic", "ante": 100},
        auth=api.operator_auth,
        key=new_key(),
    )
    assert_problem(response, 403, "forbidden")
    steer_next_deal(api, database_url, funded, is_tie)
    tied = api.bet(funded).get_json()
    response = api.post(
        f"/api/v1/rounds/{tied['id']}/decision",
        {"action": "war"},
        auth=api.operator_auth,
        key=new_key(),
    )
    assert_problem(response, 403, "forbidden")


# ---------------------------------------------------------------- bet validation


def test_bet_needs_idempotency_key(api: Api, funded: Player) -> None:
    response = api.post("/api/v1/rounds", {"table_id": "classic", "ante": 100}, funded.auth)
    assert_problem(response, 400, "idempotency_key_required")


def test_bet_replay_returns_the_same_round(api: Api, funded: Player) -> None:
    key = new_key()
    body = {"table_id": "classic", "ante": 100}
    first = api.post("/api/v1/rounds", body, auth=funded.auth, key=key)
    second = api.post("/api/v1/rounds", body, auth=funded.auth, key=key)
    assert first.status_code == second.status_code == 201
    assert second.get_json() == first.get_json()
    assert second.data == first.data  # byte for byte: the record keeps the text it was sent
    assert second.headers["Idempotent-Replayed"] == "true"
    listing = api.get("/api/v1/rounds", auth=funded.auth).get_json()
    assert len(listing["items"]) == 1


@pytest.mark.parametrize(
    "body",
    [
        {"table_id": "classic"},
        {"table_id": "classic", "ante": 100.0},
        {"table_id": "classic", "ante": "100"},
        {"table_id": "classic", "ante": True},
        {"table_id": "classic", "ante": -100},
        {"table_id": "classic", "ante": 10**12 + 100},
        {"table_id": "classic", "ante": 100, "tie_bet": -100},
        {"table_id": "classic", "ante": 100, "tie_bet": 1.5},
        {"table_id": "classic", "ante": 100, "tie_bet": None},
        {"table_id": 7, "ante": 100},
        {"ante": 100},
        {"table_id": "classic", "ante": 100, "player_id": MISSING},
    ],
    ids=[
        "no-ante",
        "float",
        "string",
        "bool",
        "negative",
        "over-limit",
        "negative-tie",
        "float-tie",
        "null-tie",
        "table-number",
        "no-table",
        "unknown-field",
    ],
)
def test_bet_validation(api: Api, funded: Player, body: dict[str, Any]) -> None:
    response = api.post("/api/v1/rounds", body, auth=funded.auth, key=new_key())
    assert_problem(response, 422, "validation_failed")
    assert api.balance(funded) == 1_000_000


@pytest.mark.parametrize(
    "ante, tie_bet, code",
    [
        (50, 0, "ante_out_of_range"),
        (500_100, 0, "ante_out_of_range"),
        (150, 0, "ante_not_multiple_of_increment"),
        (100, 100_100, "tie_bet_out_of_range"),
        (100, 150, "tie_bet_not_multiple_of_increment"),
    ],
)
def test_bets_outside_table_rules_are_422(
    api: Api, funded: Player, ante: int, tie_bet: int, code: str
) -> None:
    response = api.bet(funded, ante=ante, tie_bet=tie_bet)
    assert_problem(response, 422, code)
    assert api.balance(funded) == 1_000_000


def test_bet_beyond_balance_is_409(api: Api) -> None:
    api.create_table("classic")
    poor = api.create_player()
    api.deposit(poor, 100)
    assert_problem(api.bet(poor, ante=200), 409, "insufficient_funds")
    assert_problem(api.bet(poor, ante=100, tie_bet=100), 409, "insufficient_funds")
    assert api.balance(poor) == 100


def test_bet_without_wallet_in_table_currency_is_409(api: Api) -> None:
    api.create_table("classic")
    dollars = api.create_player()
    api.deposit(dollars, 10_000, "USD")
    assert_problem(api.bet(dollars), 409, "insufficient_funds")


def test_bet_on_unknown_table_is_404(api: Api, funded: Player) -> None:
    assert_problem(api.bet(funded, table="nope"), 404, "table_not_found")


# ---------------------------------------------------------------- listing


def test_list_rounds_filters_and_pages(api: Api, funded: Player, database_url: str) -> None:
    ids = []
    for _ in range(4):
        steer_next_deal(api, database_url, funded, player_wins)
        ids.append(api.bet(funded).get_json()["id"])
    steer_next_deal(api, database_url, funded, is_tie)
    open_id = api.bet(funded).get_json()["id"]
    awaiting = api.get("/api/v1/rounds?status=awaiting_decision", auth=funded.auth).get_json()
    assert [r["id"] for r in awaiting["items"]] == [open_id]
    settled = api.get("/api/v1/rounds?status=settled&limit=3", auth=funded.auth).get_json()
    assert len(settled["items"]) == 3 and settled["next_cursor"]
    rest = api.get(
        f"/api/v1/rounds?status=settled&limit=3&cursor={settled['next_cursor']}",
        auth=funded.auth,
    ).get_json()
    listed = [r["id"] for r in settled["items"] + rest["items"]]
    assert listed == list(reversed(ids)) and rest["next_cursor"] is None


def test_operator_lists_all_rounds_or_one_players(api: Api, database_url: str) -> None:
    api.create_table("classic")
    alice, bob = api.create_player(), api.create_player()
    for someone in (alice, bob):
        api.deposit(someone, 10_000)
        steer_next_deal(api, database_url, someone, player_wins)
        assert api.bet(someone).status_code == 201
    everything = api.get("/api/v1/rounds", auth=api.operator_auth).get_json()
    assert {r["player_id"] for r in everything["items"]} == {alice.id, bob.id}
    only_bob = api.get(f"/api/v1/rounds?player_id={bob.id}", auth=api.operator_auth).get_json()
    assert {r["player_id"] for r in only_bob["items"]} == {bob.id}


@pytest.mark.parametrize(
    "query",
    ["?status=open", "?limit=0", "?limit=x", "?player_id=nope", "?cursor=%%%", "?sort=asc"],
    ids=["bad-status", "zero-limit", "text-limit", "bad-player", "bad-cursor", "unknown"],
)
def test_list_rounds_query_validation(api: Api, funded: Player, query: str) -> None:
    response = api.get(f"/api/v1/rounds{query}", auth=api.operator_auth)
    assert response.status_code == 422, response.get_json()


def test_unknown_round_is_404(api: Api) -> None:
    response = api.get(f"/api/v1/rounds/{MISSING}", auth=api.operator_auth)
    assert_problem(response, 404, "round_not_found")


# ---------------------------------------------------------------- the whole loop


def test_many_rounds_balance_equals_deposits_plus_nets_and_audit_is_clean(
    api: Api, database_url: str
) -> None:
    api.create_table("classic")
    api.create_table("bonus", war_tie_bonus=True)
    gambler = api.create_player()
    deposits = 0
    for amount in (200_000, 150_000):
        api.deposit(gambler, amount)
        deposits += amount
    rng = random.Random(20240601)  # test data only: which bets to place, not the cards
    nets: dict[str, int] = {}
    forced_ties = 0
    for index in range(40):
        if index % 5 == 0:
            steer_next_deal(api, database_url, gambler, is_tie)
            forced_ties += 1
        table = "bonus" if index % 2 else "classic"
        ante = rng.choice([100, 200, 500, 1000])
        tie_bet = rng.choice([0, 0, 100])
        response = api.bet(gambler, ante=ante, tie_bet=tie_bet, table=table)
        assert response.status_code == 201, response.get_json()
        body = response.get_json()
        if body["status"] == "awaiting_decision":
            action = rng.choice(["war", "surrender"])
            body = decide(api, gambler, body["id"], action).get_json()
            assert body["status"] == "settled"
        nets[body["id"]] = body["net"]
    assert forced_ties == 8
    assert api.balance(gambler) == deposits + sum(nets.values())
    # The listing agrees with what the bets returned.
    listed: dict[str, int] = {}
    cursor = None
    while True:
        query = f"?limit=15&cursor={cursor}" if cursor else "?limit=15"
        page = api.get(f"/api/v1/rounds{query}", auth=gambler.auth).get_json()
        listed.update({r["id"]: r["net"] for r in page["items"]})
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert listed == nets
    withdrawn = api.post(
        f"/api/v1/players/{gambler.id}/withdrawals",
        {"currency": "EUR", "amount": api.balance(gambler), "reference": "cash-out"},
        auth=api.operator_auth,
        key=new_key(),
    )
    assert withdrawn.status_code == 201 and api.balance(gambler) == 0
    audit(database_url)


# ---------------------------------------------------------------- response bodies


@pytest.mark.parametrize(
    ("wanted", "decision", "tie_bet"),
    [
        (player_wins, None, 0),
        (dealer_wins, None, 500),
        (is_tie, "surrender", 500),
        (tie_then_war_won, "war", 0),
        (tie_then_war_tied, "war", 100),
    ],
)
def test_bet_and_decision_bodies_are_the_round_schema(
    api: Api, funded: Player, database_url: str, wanted: Any, decision: str | None, tie_bet: int
) -> None:
    """Bets and decisions answer with a hand-written dump (speed); recall uses RoundSchema.
    Both must give the same document, key order included."""
    steer_next_deal(api, database_url, funded, wanted)
    answers = [api.bet(funded, ante=1000, tie_bet=tie_bet)]
    if decision is not None:
        answers.append(decide(api, funded, answers[0].get_json()["id"], decision))
    for answer in answers:
        body = answer.get_json()
        recalled = api.get(f"/api/v1/rounds/{body['id']}", auth=funded.auth).get_json()
        if answer is answers[0] and decision is not None:
            # The recall is the round as it is now: decided. Compare the undecided parts.
            assert body["status"] == "awaiting_decision"
            assert {k: body[k] for k in ("id", "player_card", "dealer_card", "fairness")} == {
                k: recalled[k] for k in ("id", "player_card", "dealer_card", "fairness")
            }
            continue
        assert list(body) == list(recalled)
        assert body == recalled


def test_round_body_equals_the_schema_dump_for_every_shape() -> None:
    schema = RoundSchema()
    base: dict[str, Any] = {
        "id": "9c1ad5c2-5a39-4cf4-9e0e-5b7a3b3e63a2",
        "player_id": "0b7f2f69-5e4b-4b5d-9d3b-2f0c3c9a8a11",
        "table_id": "classic",
        "status": "settled",
        "player_card": "QH",
        "dealer_card": "QS",
        "war": None,
        "decision": None,
        "bets": {"ante": 100, "tie_bet": 0, "raise": 0, "war_tie_bet": 0},
        "payouts": {"ante": 200, "tie_bet": 0, "raise": 0, "war_tie_bet": 0},
        "outcomes": {"ante": "win", "tie_bet": "none", "raise": "none", "war_tie_bet": "none"},
        "net": 100,
        "balance_after": 5_000,
        "currency": "EUR",
        "fairness": {
            "server_seed_hash": "ab" * 32,
            "client_seed": "c",
            "nonce": 7,
            "server_seed": None,
        },
        "transaction_ids": [11, 12],
        "created_at": datetime(2026, 11, 30, 12, 0, 1, 123456, tzinfo=UTC),
        "settled_at": datetime(2026, 11, 30, 12, 0, 1, 123999, tzinfo=UTC),
        "rules": TableRules(war_tie_bonus=True, surrender_allowed=False).to_dict(),
    }
    shapes = [
        {},
        {"status": "awaiting_decision", "settled_at": None, "net": -100},
        {
            "war": {"burns": ["2C", "3D", "4H"], "player_card": "KH", "dealer_card": "5S"},
            "decision": {"action": "war", "decided_by": "system"},
        },
        {"decision": {"action": "surrender", "decided_by": "player"}},
        {
            "fairness": {
                "server_seed_hash": "cd" * 32,
                "client_seed": "ü 😀",
                "nonce": 0,
                "server_seed": "ef" * 32,
            }
        },
        {"rules": {}, "transaction_ids": []},
        {
            "reality_check": {
                "due_at": datetime(2026, 11, 30, 13, 0, tzinfo=UTC),
                "session_started_at": datetime(2026, 11, 30, 12, 0, tzinfo=UTC),
                "minutes_played": 61,
                "interval_minutes": 60,
                "acknowledge": "/api/v1/players/0b7f2f69-5e4b-4b5d-9d3b-2f0c3c9a8a11/reality-check",
            }
        },
    ]
    for shape in shapes:
        view = RoundView(**{**base, **shape})
        expected = schema.dump(view)
        assert round_body(view) == expected
        assert list(round_body(view)) == list(expected)
