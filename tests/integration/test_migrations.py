"""The schema comes only from the migrations, and it is exactly the models' schema."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text

from casino.store.base import Base
from casino.store.migrate import downgrade, upgrade
from casino.store.session import make_engine

from .conftest import BACKENDS, drop_pg_database, new_pg_database, pg_url


@pytest.fixture(params=BACKENDS)
def fresh_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database with no schema at all."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'fresh.db'}"
        return
    assert os.environ.get("CASINO_TEST_POSTGRES_URL")
    name = new_pg_database("casino_mig")
    try:
        yield pg_url(name)
    finally:
        drop_pg_database(name)


def diffs(url: str) -> list[object]:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(
                conn, opts={"compare_type": True, "compare_server_default": True}
            )
            return list(compare_metadata(context, Base.metadata))
    finally:
        engine.dispose()


def test_upgrade_to_head_matches_the_models(fresh_url: str) -> None:
    upgrade(fresh_url)
    assert diffs(fresh_url) == []
    engine = make_engine(fresh_url)
    try:
        names = set(inspect(engine).get_table_names())
    finally:
        engine.dispose()
    assert set(Base.metadata.tables) <= names


def test_downgrade_and_upgrade_again(fresh_url: str) -> None:
    upgrade(fresh_url)
    downgrade(fresh_url, "base")
    engine = make_engine(fresh_url)
    try:
        assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    finally:
        engine.dispose()
    upgrade(fresh_url)
    assert diffs(fresh_url) == []


def test_partial_unique_indexes_exist(fresh_url: str) -> None:
    upgrade(fresh_url)
    engine = make_engine(fresh_url)
    try:
        inspector = inspect(engine)
        rounds = {ix["name"]: ix for ix in inspector.get_indexes("rounds")}
        seeds = {ix["name"]: ix for ix in inspector.get_indexes("server_seeds")}
    finally:
        engine.dispose()
    assert rounds["uq_rounds_one_open_per_player"]["unique"]
    assert seeds["uq_server_seeds_one_active"]["unique"]


@pytest.mark.postgres
@pytest.mark.parametrize("fresh_url", ["postgresql"], indirect=True)
def test_postgres_ledger_function_and_sequence(fresh_url: str) -> None:
    """The commit function and the id sequence live outside the models' metadata (SQLite
    writes in plain statements and needs neither)."""
    engine = make_engine(fresh_url)
    try:
        upgrade(fresh_url)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT to_regproc('casino_commit')")).scalar() is not None
            assert conn.execute(text("SELECT to_regproc('ledger_append')")).scalar() is None
            owner = conn.execute(
                text("SELECT pg_get_serial_sequence('ledger_transactions', 'id')")
            ).scalar()
            assert owner == "public.ledger_transaction_id_seq"
        downgrade(fresh_url, "base")
        with engine.connect() as conn:
            assert conn.execute(text("SELECT to_regproc('casino_commit')")).scalar() is None
            assert (
                conn.execute(text("SELECT to_regclass('ledger_transaction_id_seq')")).scalar()
                is None
            )
    finally:
        engine.dispose()
