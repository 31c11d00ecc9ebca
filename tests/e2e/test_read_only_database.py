"""A database server that refuses writes (a standby, or writes frozen for maintenance) makes
the API answer 503 + Retry-After, never 500, and changes nothing; reads still work.

During a failover the app may reach a server that is no longer, or not yet, the primary; the
multi-host URL's ``target_session_attrs=read-write`` keeps new connections off standbys, but a
server that turns read-only under an open connection answers writes with SQLSTATE 25006.
"""

from __future__ import annotations

from urllib.parse import quote

import pytest
from flask import Flask
from sqlalchemy.engine import make_url

from casino import create_app
from casino.api.database import EXTENSION_KEY

from .conftest import MigratedDatabase
from .helpers import Api, make_config, new_key


def _read_only_app(url: str) -> Flask:
    # Every session of this app starts read-only, as on a hot standby.
    options = quote("-c default_transaction_read_only=on")
    read_only = make_url(url).update_query_string(f"options={options}", append=True)
    return create_app(make_config(read_only.render_as_string(hide_password=False)))


@pytest.mark.postgres
def test_writes_refused_by_a_read_only_server_are_503_with_retry_after(
    postgres_app: Flask, pg_database: MigratedDatabase
) -> None:
    writable = Api(postgres_app.test_client())
    writable.create_table("classic")
    player = writable.create_player()
    writable.deposit(player, 10_000)

    app = _read_only_app(pg_database.url)
    try:
        api = Api(app.test_client())
        for response in (
            api.bet(player),
            api.post(
                f"/api/v1/players/{player.id}/deposits",
                {"currency": "EUR", "amount": 500, "reference": "frozen"},
                auth=api.operator_auth,
                key=new_key(),
            ),
        ):
            assert response.status_code == 503, response.get_json()
            assert response.mimetype == "application/problem+json"
            assert response.get_json()["code"] == "service_unavailable"
            assert response.headers["Retry-After"]
        wallets = api.get(f"/api/v1/players/{player.id}/wallets", auth=player.auth)
        assert wallets.status_code == 200
        assert wallets.get_json() == [{"currency": "EUR", "balance": 10_000}]
    finally:
        app.extensions[EXTENSION_KEY].engine.dispose()
    # Nothing was written: the writable app sees the same wallet and no round.
    assert writable.balance(player) == 10_000
    rounds = writable.get(f"/api/v1/rounds?player_id={player.id}", auth=writable.operator_auth)
    assert rounds.status_code == 200
    items = rounds.get_json()
    assert (items["items"] if isinstance(items, dict) else items) == []
