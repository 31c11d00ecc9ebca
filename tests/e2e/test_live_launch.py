"""A launch at a shared table opens the live client (/play/live/), one at a private table
the table client (/play/), through both ways of launching; on SQLite and PostgreSQL."""

from __future__ import annotations

from .helpers import Api, Player, new_key
from .protection_helpers import Clock
from .shared_helpers import DriveDealer, create_shared_table


def test_a_launch_at_a_shared_table_opens_the_live_client(capi: Api, gambler: Player) -> None:
    create_shared_table(capi, "live-1")
    body = {"table_id": "live-1", "language": "nl"}
    response = capi.post(f"/api/v1/players/{gambler.id}/sessions", body, auth=capi.operator_auth)
    assert response.status_code == 201, response.get_json()
    created = response.get_json()
    code = created["launch_code"]
    assert created["launch_url"] == f"/play/live/?table=live-1&lang=nl#code={code}"
    assert capi.client.get("/play/live/").status_code == 200

    private = {"table_id": "classic"}
    response = capi.post(f"/api/v1/players/{gambler.id}/sessions", private, auth=capi.operator_auth)
    assert response.get_json()["launch_url"].startswith("/play/?table=classic#code=")


def test_an_operator_launch_at_a_shared_table_opens_the_live_client(capi: Api) -> None:
    create_shared_table(capi, "live-2")
    body = {"player": "ext-live", "currency": "EUR", "table_id": "live-2"}
    response = capi.post("/api/v1/sessions", body, auth=capi.operator_auth)
    assert response.status_code == 201, response.get_json()
    assert response.get_json()["launch_url"].startswith("/play/live/?table=live-2#code=")


def test_bettors_are_counted_while_bets_are_taken(
    capi: Api, clock: Clock, database_url: str
) -> None:
    """The live client shows bettors coming: GET .../round counts the round's bets while it
    takes them (one per player, however many bets they add)."""
    create_shared_table(capi, "live")
    dealer = DriveDealer(database_url, clock)
    try:
        assert dealer.run() == ["open_table"]
        players = []
        for _ in range(2):
            someone = capi.create_player()
            capi.deposit(someone, 10_000)
            players.append(someone)
        round_path = "/api/v1/tables/live/round"
        assert capi.get(round_path, auth=players[0].auth).get_json()["bettors"] == 0
        for count, who in ((1, players[0]), (2, players[1]), (2, players[0])):
            bet = capi.post(f"{round_path}/bets", {"ante": 10}, auth=who.auth, key=new_key())
            assert bet.status_code == 201, bet.get_json()
            view = capi.get(round_path, auth=who.auth).get_json()
            assert view["phase"] == "betting" and view["bettors"] == count
        clock.advance(seconds=10)
        dealer.run()
        assert capi.get(round_path, auth=players[0].auth).get_json()["bettors"] == 2
    finally:
        dealer.close()
