"""``DATABASE_URL`` naming every node of a failover formation.

libpq's multi-host form (what ``pg_autoctl show uri`` prints) is rewritten into the form
SQLAlchemy reads (``?host=a:p&host=b:q``); with ``target_session_attrs=read-write`` libpq
then tries each host in turn and keeps the first that takes writes.
"""

from __future__ import annotations

import os

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from casino.store import database_url
from casino.store.session import make_engine


def test_libpq_host_list_becomes_sqlalchemy_host_parameters() -> None:
    url = database_url(
        {
            "DATABASE_URL": "postgres://casino:pw@db1:5432,db2:5433/casino"
            "?target_session_attrs=read-write&sslmode=require"
        }
    )
    assert url == (
        "postgresql+psycopg://casino:pw@/casino?host=db1:5432&host=db2:5433"
        "&target_session_attrs=read-write&sslmode=require"
    )
    parsed = make_url(url)
    assert parsed.query["host"] == ("db1:5432", "db2:5433")
    assert parsed.username == "casino" and parsed.database == "casino"


def test_urls_without_a_host_list_are_unchanged() -> None:
    for given, expected in (
        ("postgresql://u@h:5432/db", "postgresql+psycopg://u@h:5432/db"),
        (
            "postgresql+psycopg://u@/db?host=a:1&host=b:2&target_session_attrs=read-write",
            "postgresql+psycopg://u@/db?host=a:1&host=b:2&target_session_attrs=read-write",
        ),
        ("sqlite:///x.db", "sqlite:///x.db"),
    ):
        assert database_url({"DATABASE_URL": given}) == expected
    # No query string and no user: still a valid rewrite.
    assert database_url({"DATABASE_URL": "postgresql://a,b/db"}) == (
        "postgresql+psycopg:///db?host=a&host=b"
    )


@pytest.mark.postgres
def test_a_dead_first_host_is_skipped_for_the_one_taking_writes() -> None:
    server = make_url(os.environ["CASINO_TEST_POSTGRES_URL"])
    user = server.username or "postgres"
    # Port 1 on loopback refuses at once, as a stopped node does.
    given = (
        f"postgresql://{user}@127.0.0.1:1,{server.host}:{server.port or 5432}/"
        f"{server.database}?target_session_attrs=read-write&connect_timeout=3"
    )
    engine = make_engine(database_url({"DATABASE_URL": given}))
    try:
        with engine.connect() as connection:
            assert connection.execute(text("SELECT inet_server_port()")).scalar_one() == (
                server.port or 5432
            )
    finally:
        engine.dispose()
