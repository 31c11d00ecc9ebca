"""Issue 12, points 4 to 6, through HTTP on both databases: statements equal to the ledger,
player lookup and idempotent creation, ISO 4217 currencies restricted to the operator's
list, payment references used once."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import config
from casino import create_app
from casino.api.database import EXTENSION_KEY

from .helpers import (
    Api,
    Player,
    assert_problem,
    dealer_wins,
    is_tie,
    make_config,
    new_key,
    player_wins,
    steer_next_deal,
)
from .protection_helpers import START, Clock


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def cash(api: Api, player: Player, kind: str, amount: int, reference: str, **kw: Any) -> Any:
    body = {"currency": kw.get("currency", "EUR"), "amount": amount, "reference": reference}
    return api.post(
        f"/api/v1/players/{player.id}/{kind}",
        body,
        auth=api.operator_auth,
        key=kw.get("key") or new_key(),
    )


def statement(api: Api, player: Player, start: datetime, end: datetime) -> dict[str, Any]:
    response = api.get(
        f"/api/v1/players/{player.id}/statement?from={iso(start)}&to={iso(end)}",
        auth=player.auth,
    )
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def all_transactions(api: Api, player: Player) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    cursor = None
    while True:
        query = f"?limit=200&cursor={cursor}" if cursor else "?limit=200"
        page = api.get(f"/api/v1/players/{player.id}/transactions{query}", auth=player.auth)
        found.extend(page.get_json()["items"])
        cursor = page.get_json()["next_cursor"]
        if cursor is None:
            return found


def from_ledger(transactions: list[dict[str, Any]], player: Player) -> dict[str, int]:
    """The statement's sums, added up from the ledger's wallet postings one by one."""
    wallet = f"wallet:{player.id}"
    sums = {"deposits": 0, "withdrawals": 0, "wagered": 0, "won": 0}
    for tx in transactions:
        legs = [p["amount"] for p in tx["postings"] if p["account"] == wallet]
        if tx["kind"] == "deposit":
            sums["deposits"] += sum(legs)
        elif tx["kind"] == "withdrawal":
            sums["withdrawals"] -= sum(legs)
        else:
            sums["wagered"] -= sum(a for a in legs if a < 0)
            sums["won"] += sum(a for a in legs if a > 0)
    return {**sums, "net": sums["won"] - sums["wagered"]}


# ---------------------------------------------------------------- statements


def test_a_statement_is_the_ledger_summed_per_currency(
    capi: Api, gambler: Player, database_url: str, clock: Clock
) -> None:
    # Day 1: the gambler's funding (START), a win, a loss, a tie settled by war.
    steer_next_deal(capi, database_url, gambler, player_wins)
    assert capi.bet(gambler, ante=200).status_code == 201
    steer_next_deal(capi, database_url, gambler, dealer_wins)
    assert capi.bet(gambler, ante=300, tie_bet=20).status_code == 201
    steer_next_deal(capi, database_url, gambler, is_tie)
    tied = capi.bet(gambler, ante=100, tie_bet=10).get_json()
    war = capi.post(
        f"/api/v1/rounds/{tied['id']}/decision", {"action": "war"}, auth=gambler.auth, key=new_key()
    )
    assert war.status_code == 200
    assert cash(capi, gambler, "deposits", 500, "usd-1", currency="USD").status_code == 201
    day1_end = START + timedelta(hours=6)
    # Day 2: a withdrawal and a round left awaiting its decision (the ante is in play).
    clock.at(START + timedelta(days=1))
    assert cash(capi, gambler, "withdrawals", 7_000, "out-1").status_code == 201
    steer_next_deal(capi, database_url, gambler, is_tie)
    assert capi.bet(gambler, ante=400).get_json()["status"] == "awaiting_decision"

    everything = statement(capi, gambler, START - timedelta(days=1), START + timedelta(days=2))
    assert everything["player_id"] == gambler.id
    lines = {line["currency"]: line for line in everything["currencies"]}
    assert set(lines) == {"EUR", "USD"}
    eur = lines["EUR"]
    ledger = from_ledger(
        [t for t in all_transactions(capi, gambler) if t["currency"] == "EUR"], gambler
    )
    assert {k: eur[k] for k in ledger} == ledger
    assert eur["deposits"] == 1_000_000 and eur["withdrawals"] == 7_000
    assert eur["rounds"] == 4
    assert eur["opening_balance"] == 0
    assert eur["closing_balance"] == capi.balance(gambler)
    assert eur["closing_balance"] == (
        eur["opening_balance"] + eur["deposits"] - eur["withdrawals"] + eur["net"]
    )
    assert lines["USD"] == {
        "currency": "USD",
        "opening_balance": 0,
        "closing_balance": 500,
        "deposits": 500,
        "withdrawals": 0,
        "wagered": 0,
        "won": 0,
        "net": 0,
        "rounds": 0,
        "summary": "USD: opening balance US$0.00; deposits US$5.00; withdrawals US$0.00; "
        "wagered US$0.00; won US$0.00; net US$0.00; closing balance US$5.00; 0 rounds started.",
    }
    # Two spans that meet add up to the whole one, each balanced on its own.
    first = statement(capi, gambler, START - timedelta(days=1), day1_end)
    second = statement(capi, gambler, day1_end, START + timedelta(days=2))
    one = {line["currency"]: line for line in first["currencies"]}["EUR"]
    two = {line["currency"]: line for line in second["currencies"]}["EUR"]
    assert two["opening_balance"] == one["closing_balance"]
    assert two["closing_balance"] == eur["closing_balance"]
    for key in ("deposits", "withdrawals", "wagered", "won", "net", "rounds"):
        assert one[key] + two[key] == eur[key], key
    for line in (one, two):
        assert line["closing_balance"] == (
            line["opening_balance"] + line["deposits"] - line["withdrawals"] + line["net"]
        )
    assert (two["withdrawals"], two["rounds"], two["won"]) == (7_000, 1, 0)
    assert two["wagered"] == 400
    # Before anything happened: nothing.
    empty = statement(capi, gambler, START - timedelta(days=9), START - timedelta(days=8))
    assert empty["currencies"] == []


def test_statement_queries_are_validated(capi: Api, gambler: Player) -> None:
    path = f"/api/v1/players/{gambler.id}/statement"
    for query in ("", "?from=2031-01-01T00:00:00Z", "?from=yesterday&to=2031-01-01T00:00:00Z"):
        assert_problem(capi.get(path + query, auth=gambler.auth), 422, "validation_failed")
    backwards = "?from=2031-02-01T00:00:00Z&to=2031-01-01T00:00:00Z"
    assert_problem(capi.get(path + backwards, auth=gambler.auth), 422, "invalid_period")
    other = capi.create_player()
    span = "?from=2031-01-01T00:00:00Z&to=2031-02-01T00:00:00Z"
    assert_problem(capi.get(path + span, auth=other.auth), 404, "player_not_found")


# ---------------------------------------------------------------- accounts


def test_players_are_found_by_external_ref(api: Api) -> None:
    player = api.create_player("crm-7")
    found = api.get("/api/v1/players?external_ref=crm-7", auth=api.operator_auth)
    assert found.status_code == 200
    assert [p["id"] for p in found.get_json()["items"]] == [player.id]
    assert set(found.get_json()["items"][0]) == {"id", "external_ref", "display_name", "created_at"}
    none = api.get("/api/v1/players?external_ref=crm-8", auth=api.operator_auth)
    assert none.get_json() == {"items": []}
    assert_problem(api.get("/api/v1/players", auth=api.operator_auth), 422, "validation_failed")
    refused = api.get("/api/v1/players?external_ref=crm-7", auth=player.auth)
    assert_problem(refused, 403, "forbidden")


def test_creating_a_player_with_a_key_replays_without_the_token(api: Api) -> None:
    key = new_key()
    body = {"external_ref": "crm-9", "display_name": "Bo"}
    first = api.post("/api/v1/players", body, auth=api.operator_auth, key=key)
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers
    created = first.get_json()
    assert created["token"].startswith("pl_")
    assert created["reissue_token"] == f"/api/v1/players/{created['id']}/token"
    again = api.post("/api/v1/players", body, auth=api.operator_auth, key=key)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == {**created, "token": None}
    # The token was never stored in clear: the first one still works, a reissue replaces it.
    mine = {"Authorization": f"Bearer {created['token']}"}
    assert api.get(f"/api/v1/players/{created['id']}", auth=mine).status_code == 200
    reissued = api.post(again.get_json()["reissue_token"], auth=api.operator_auth)
    assert reissued.status_code == 201
    assert api.get(f"/api/v1/players/{created['id']}", auth=mine).status_code == 401
    # Another body under the key, and the same player under another key.
    other = api.post("/api/v1/players", {"external_ref": "crm-10"}, auth=api.operator_auth, key=key)
    assert_problem(other, 422, "idempotency_key_reused")
    duplicate = api.post("/api/v1/players", body, auth=api.operator_auth, key=new_key())
    assert assert_problem(duplicate, 409, "duplicate_external_ref")["player_id"] == created["id"]
    without = api.post("/api/v1/players", body, auth=api.operator_auth)
    assert assert_problem(without, 409, "duplicate_external_ref")["player_id"] == created["id"]
    listed = api.get("/api/v1/players?external_ref=crm-9", auth=api.operator_auth)
    assert len(listed.get_json()["items"]) == 1
    bad_key = api.post(
        "/api/v1/players", {"external_ref": "z"}, auth=api.operator_auth, key="has space"
    )
    assert_problem(bad_key, 400, "idempotency_key_invalid")


# ---------------------------------------------------------------- currencies


def test_only_the_operators_iso_currencies_are_accepted(api: Api, player: Player) -> None:
    listed = api.get("/api/v1/currencies", auth=player.auth)
    assert listed.get_json() == [
        {"code": "EUR", "name": "Euro", "minor_units": 2},
        {"code": "GBP", "name": "Pound Sterling", "minor_units": 2},
        {"code": "USD", "name": "US Dollar", "minor_units": 2},
    ]
    for currency in ("XYZ", "JPY", "XAU"):  # unknown; ISO but not listed; no minor units
        for kind in ("deposits", "withdrawals"):
            refused = cash(api, player, kind, 100, new_key(), currency=currency)
            assert_problem(refused, 422, "unsupported_currency")
        table = api.post(
            "/api/v1/tables", {"id": "t", "currency": currency}, auth=api.operator_auth
        )
        assert_problem(table, 422, "unsupported_currency")
    assert api.balance(player) == 0
    assert cash(api, player, "deposits", 100, "gbp", currency="GBP").status_code == 201


@pytest.fixture
def yen_api(database_url: str) -> Iterator[Api]:
    app = create_app(make_config(database_url, CASINO_CURRENCIES=("EUR", "JPY", "BHD")))
    yield Api(app.test_client())
    app.extensions[EXTENSION_KEY].engine.dispose()


def test_the_currency_list_is_the_operators(yen_api: Api) -> None:
    player = yen_api.create_player()
    assert cash(yen_api, player, "deposits", 1_000, "jpy", currency="JPY").status_code == 201
    assert_problem(
        cash(yen_api, player, "deposits", 1, "usd", currency="USD"), 422, ("unsupported_currency")
    )
    listed = yen_api.get("/api/v1/currencies", auth=yen_api.operator_auth).get_json()
    assert [(c["code"], c["minor_units"]) for c in listed] == [("BHD", 3), ("EUR", 2), ("JPY", 0)]


def test_casino_currencies_is_read_and_checked_from_the_environment() -> None:
    environ = {"CASINO_ENV": "testing", "CASINO_CURRENCIES": "eur, jpy"}
    assert config.TestingConfig.load(environ)["CASINO_CURRENCIES"] == ("EUR", "JPY")
    with pytest.raises(config.ConfigError, match="XYZ"):
        config.TestingConfig.load({**environ, "CASINO_CURRENCIES": "EUR,XYZ"})


# ---------------------------------------------------------------- references


def test_a_reference_pays_in_and_out_once_per_player(api: Api, player: Player) -> None:
    first = cash(api, player, "deposits", 1_000, "PAY-1")
    assert first.status_code == 201
    again = cash(api, player, "deposits", 1_000, "PAY-1")  # another key
    problem = assert_problem(again, 409, "duplicate_reference")
    assert (problem["reference"], problem["transaction_id"]) == ("PAY-1", first.get_json()["id"])
    assert api.balance(player) == 1_000
    # The same key replays the first deposit instead.
    key = new_key()
    assert cash(api, player, "deposits", 50, "PAY-2", key=key).status_code == 201
    replay = cash(api, player, "deposits", 50, "PAY-2", key=key)
    assert replay.headers["Idempotent-Replayed"] == "true"
    # Per direction, and per player.
    assert cash(api, player, "withdrawals", 100, "PAY-1").status_code == 201
    assert_problem(cash(api, player, "withdrawals", 100, "PAY-1"), 409, "duplicate_reference")
    someone = api.create_player()
    assert cash(api, someone, "deposits", 1_000, "PAY-1").status_code == 201
    assert api.balance(player) == 1_050 - 100
