"""Connections the database server dropped: the next requests still succeed.

The pool does not ping a connection at checkout (a round trip per request). A connection the
server closed has input pending (the server's goodbye) and is replaced at checkout; one lost
without a word fails on the request's first, read-only statement, which is then run again on
a fresh connection (``casino.api.database.retry_on_disconnect``).
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import create_engine, text
from sqlalchemy.exc import OperationalError

from casino.api.database import request_uow, retry_on_disconnect

from .conftest import MigratedDatabase
from .helpers import Api


def _drop_every_connection(database: MigratedDatabase) -> int:
    """Terminate every server backend of the database, as a server restart would."""
    killer = create_engine(database.url, isolation_level="AUTOCOMMIT")
    others = "WHERE datname = current_database() AND pid <> pg_backend_pid()"
    try:
        with killer.connect() as connection:
            killed = connection.execute(
                text(f"SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity {others}")
            ).scalar_one()
            # pg_terminate_backend only signals: wait until the backends are gone (and have
            # said goodbye), as after a restart, or the next request races their exit.
            deadline = time.monotonic() + 10
            while connection.execute(
                text(f"SELECT count(*) FROM pg_stat_activity {others}")
            ).scalar_one():
                assert time.monotonic() < deadline, "terminated backends did not exit"
                time.sleep(0.01)
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

    # The configured operator token needs no database to authenticate: the use case's
    # statement is the first one.
    assert _drop_every_connection(pg_database) >= 1
    api.deposit(player, 1_000)  # asserts 201

    assert _drop_every_connection(pg_database) >= 1
    response = api.get(f"/api/v1/players/{player.id}/wallets", auth=player.auth)
    assert response.status_code == 200
    balance = 11_000 + bet.get_json()["net"]
    assert response.get_json() == [{"currency": "EUR", "balance": balance}]


def test_a_first_statement_on_a_lost_connection_runs_again_once(app: Flask) -> None:
    lost = OperationalError("SELECT 1", {}, Exception("server closed the connection"))
    lost.connection_invalidated = True
    attempts: list[Any] = []

    def first_step() -> str:
        attempts.append(request_uow())
        if len(attempts) == 1:
            raise lost
        return "answered"

    def always_lost() -> None:
        attempts.append(request_uow())
        raise lost

    with app.test_request_context():
        assert retry_on_disconnect(first_step) == "answered"
        assert attempts[0] is not attempts[1]  # a fresh unit of work, a fresh connection

    attempts.clear()
    with app.test_request_context(), pytest.raises(OperationalError):
        retry_on_disconnect(always_lost)
    assert len(attempts) == 2  # once more, not forever


def test_other_database_errors_are_not_retried(app: Flask) -> None:
    broken = OperationalError("SELECT 1", {}, Exception("disk full"))
    calls: list[int] = []

    def first_step() -> None:
        calls.append(1)
        raise broken

    with app.test_request_context(), pytest.raises(OperationalError):
        retry_on_disconnect(first_step)
    assert calls == [1]
