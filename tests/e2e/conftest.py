"""End-to-end fixtures: the real app, a migrated database, and an HTTP client.

Every test runs on SQLite; tests using ``app`` run on PostgreSQL too (marker ``postgres``)
when ``CASINO_TEST_POSTGRES_URL`` is set. The schema comes from the Alembic migrations only:
for SQLite a migrated template file copied for each test; for PostgreSQL one migrated database
per session, truncated back to its just-migrated content before each test.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import Engine, MetaData, Table, create_engine, select, text
from sqlalchemy.engine import make_url

from casino import create_app
from casino.api.database import EXTENSION_KEY
from casino.store.migrate import upgrade
from tests.db_guard import checkpoints_unguarded
from tests.services import missing

from .helpers import Api, Player, make_config

PG_ENV = "CASINO_TEST_POSTGRES_URL"


# ---------------------------------------------------------------- databases


@dataclass
class MigratedDatabase:
    """A database migrated once per test session (per xdist worker), emptied before each test.

    Emptying = deleting every row and putting back the rows the migrations inserted, which
    gives each test the just-migrated state in milliseconds (a fresh database per test costs
    about a second on PostgreSQL, and a fresh app per test another 0.1 s).
    """

    url: str
    engine: Engine
    tables: list[Table]
    seed_rows: dict[str, list[dict[str, Any]]]

    @classmethod
    def migrate(cls, url: str) -> MigratedDatabase:
        upgrade(url)
        engine = create_engine(url)
        metadata = MetaData()
        metadata.reflect(engine)
        tables = [t for t in metadata.sorted_tables if t.name != "alembic_version"]
        with engine.connect() as connection:
            seed_rows = {
                t.name: [dict(row) for row in connection.execute(select(t)).mappings()]
                for t in tables
            }
        return cls(url, engine, tables, seed_rows)

    def reset(self) -> None:
        with self.engine.begin() as connection, checkpoints_unguarded(connection):
            for table in reversed(self.tables):
                connection.execute(table.delete())
            for table in self.tables:
                if self.seed_rows[table.name]:
                    connection.execute(table.insert(), self.seed_rows[table.name])


@pytest.fixture(scope="session")
def sqlite_database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MigratedDatabase]:
    path = tmp_path_factory.mktemp("sqlite") / "casino.db"
    database = MigratedDatabase.migrate(f"sqlite:///{path}")
    yield database
    database.engine.dispose()


def _pg_admin_url() -> str:
    url = os.environ.get(PG_ENV)
    if not url:
        # Only a test that forgot its ``postgres`` marker gets here (marked ones are skipped
        # at collection, or refused there under CASINO_REQUIRE_POSTGRES=1): skip, or fail
        # where PostgreSQL is required, rather than error on a missing variable.
        missing(f"{PG_ENV} is not set (no PostgreSQL on this machine)", "CASINO_REQUIRE_POSTGRES")
    return url


def _pg_execute(sql: str) -> None:
    engine = create_engine(_pg_admin_url(), isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.execute(text(sql))
    finally:
        engine.dispose()


def _pg_url(database_name: str) -> str:
    return (
        make_url(_pg_admin_url()).set(database=database_name).render_as_string(hide_password=False)
    )


@pytest.fixture(scope="session")
def pg_database() -> Iterator[MigratedDatabase]:
    _pg_admin_url()  # skips (or fails) before anything when there is no PostgreSQL
    name = f"casino_e2e_{uuid.uuid4().hex[:12]}"
    _pg_execute(f'CREATE DATABASE "{name}"')
    database = None
    try:
        database = MigratedDatabase.migrate(_pg_url(name))
        yield database
    finally:
        if database is not None:
            database.engine.dispose()
        _pg_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest) -> str:
    fixture = "sqlite_database" if request.param == "sqlite" else "pg_database"
    database: MigratedDatabase = request.getfixturevalue(fixture)
    database.reset()
    return database.url


# ---------------------------------------------------------------- app and client


@pytest.fixture(scope="session")
def _apps() -> Iterator[dict[str, Flask]]:
    apps: dict[str, Flask] = {}
    yield apps
    for application in apps.values():
        application.extensions[EXTENSION_KEY].engine.dispose()


@pytest.fixture
def app(database_url: str, _apps: dict[str, Flask]) -> Flask:
    """The app on the test's database, built once per database (building costs ~0.1 s)."""
    return _app_for(database_url, _apps)


def _app_for(url: str, apps: dict[str, Flask]) -> Flask:
    if url not in apps:
        apps[url] = create_app(make_config(url))
    return apps[url]


@pytest.fixture
def postgres_app(request: pytest.FixtureRequest, _apps: dict[str, Flask]) -> Flask:
    """For tests about PostgreSQL only (mark them ``postgres``): the app on a clean database."""
    if request.node.get_closest_marker("postgres") is None:
        # Unmarked, it would run unselected by ``-m postgres`` and escape the suite's gate.
        pytest.fail(f"{request.node.nodeid} uses postgres_app: mark it @pytest.mark.postgres")
    pg_database: MigratedDatabase = request.getfixturevalue("pg_database")
    pg_database.reset()
    return _app_for(pg_database.url, _apps)


@pytest.fixture
def api(app: Flask) -> Api:
    return Api(app.test_client())


@pytest.fixture
def player(api: Api) -> Player:
    return api.create_player()


@pytest.fixture
def funded(api: Api) -> Player:
    """A player with 1,000,000 EUR minor units at a default 'classic' table."""
    api.create_table("classic")
    someone = api.create_player()
    api.deposit(someone, 1_000_000)
    return someone


# ---------------------------------------------------------------- player protection

from .protection_helpers import capi, clock, clocked_app, gambler  # noqa: E402, F401
