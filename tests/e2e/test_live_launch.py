"""A launch at a shared table opens the live client (/play/live/), one at a private table
the table client (/play/), through both ways of launching; on SQLite and PostgreSQL."""

from __future__ import annotations

from .helpers import Api, Player
from .shared_helpers import create_shared_table


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
