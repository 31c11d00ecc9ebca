"""End-to-end fixtures: the real app, a migrated database, and an HTTP client.

Every test runs on SQLite; tests using ``app`` run on PostgreSQL too (marker ``postgres``)
when ``CASINO_TEST_POSTGRES_URL`` is set. The schema comes from the Alembic migrations only:
one migrated template per backend and session, copied for each test (a file copy for SQLite,
``CREATE DATABASE ... TEMPLATE`` for PostgreSQL) so that every test starts from an empty,
fully migrated database.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from casino import create_app
from casino.api.database import EXTENSION_KEY
from casino.db.migrate import upgrade

from .helpers import Api, Player, make_config

PG_ENV = "CASINO_TEST_POSTGRES_URL"


# ---------------------------------------------------------------- databases


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("sqlite-template") / "template.db"
    upgrade(f"sqlite:///{path}")
    return path


def _pg_admin_url() -> str:
    return os.environ[PG_ENV]


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
def pg_template() -> Iterator[str]:
    name = f"casino_e2e_tmpl_{uuid.uuid4().hex[:12]}"
    _pg_execute(f'CREATE DATABASE "{name}"')
    try:
        upgrade(_pg_url(name))
        yield name
    finally:
        _pg_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        path = tmp_path / "casino.db"
        shutil.copyfile(template, path)
        yield f"sqlite:///{path}"
        return
    template_name: str = request.getfixturevalue("pg_template")
    name = f"casino_e2e_{uuid.uuid4().hex[:12]}"
    _pg_execute(f'CREATE DATABASE "{name}" TEMPLATE "{template_name}"')
    try:
        yield _pg_url(name)
    finally:
        _pg_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# ---------------------------------------------------------------- app and client


@pytest.fixture
def app(database_url: str) -> Iterator[Flask]:
    application = create_app(make_config(database_url))
    yield application
    # Close pooled connections so the test database can be dropped.
    application.extensions[EXTENSION_KEY].engine.dispose()


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
