"""Alembic environment: the models' metadata, the URL from casino.store, batch mode on SQLite."""

from __future__ import annotations

from logging.config import fileConfig

from alembic import context
from sqlalchemy.pool import NullPool

from casino.store import database_url
from casino.store.models import Base
from casino.store.session import make_engine

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata


def _url() -> str:
    return config.get_main_option("sqlalchemy.url") or database_url()


def run_migrations_offline() -> None:
    url = _url()
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=url.startswith("sqlite"),
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = make_engine(_url(), poolclass=NullPool)
    try:
        with engine.connect() as conn:
            sqlite = conn.dialect.name == "sqlite"
            if sqlite:
                # Batch mode rebuilds SQLite tables (copy, drop, rename); with foreign keys
                # enforced, dropping a referenced table would fail or cascade. The pragma only
                # works outside a transaction, so it goes to the driver before Alembic begins
                # one; the references are checked as a whole once the migration is done.
                conn.connection.driver_connection.execute("PRAGMA foreign_keys = OFF")
            _run(conn)
            if sqlite:
                broken = conn.connection.driver_connection.execute(
                    "PRAGMA foreign_key_check"
                ).fetchall()
                if broken:
                    raise RuntimeError(f"the migration broke foreign keys: {broken[:5]}")
    finally:
        engine.dispose()


def _run(connection: object) -> None:
    context.configure(
        connection=connection,  # type: ignore[arg-type]
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # type: ignore[attr-defined]
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
