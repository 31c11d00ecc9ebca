"""Connections the database server dropped: the next requests still succeed.

The pool does not ping a connection at checkout (a round trip per request); a dead one fails
on the request's first, read-only statement and that statement is run again on a fresh
connection (``casino.api.database.retry_on_disconnect``).
"""

from __future__ import annotations

import pytest
from flask import Flask
from sqlalchemy import create_engine, text

from .conftest import MigratedDatabase
from .helpers import Api


def _drop_every_connection(database: MigratedDatabase) -> int:
    """Terminate every server backend of the database, as a server restart would."""
    killer = create_engine(database.url, isolation_level="AUTOCOMMIT")
    try:
        with killer.connect() as connection:
            killed = connection.execute(
                text(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            ).scalar_one()
    finally:
        killer.dispose()
    database.engine.dispose()  # the fixture's own pooled connections died too
    return int(killed)


@pytest.mark.postgres
def test_requests_after_the_server_dropped_every_connection(
    postgres_app: Flask, pg_database: MigratedDatabase
) -> None:
    api = Api(postgres_app.test_client())
    api.create_table("classic")
    player = api.create_player()
    api.deposit(player, 10_000)
    assert api.get("/api/v1/ready").status_code == 200

    assert _drop_every_connection(pg_database) >= 1
    bet = api.bet(player)
    assert bet.status_code == 201, bet.get_json()

    assert _drop_every_connection(pg_database) >= 1
    assert api.get("/api/v1/ready").status_code == 200

    assert _drop_every_connection(pg_database) >= 1
    response = api.get(f"/api/v1/players/{player.id}/wallets", auth=player.auth)
    assert response.status_code == 200
    assert response.get_json() == [{"currency": "EUR", "balance": 10_000 + bet.get_json()["net"]}]
