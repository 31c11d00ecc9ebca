"""Engine and session factories with the per-database settings the service relies on."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

SQLITE_BUSY_TIMEOUT_MS = 30_000


def make_engine(url: str, **kwargs: Any) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(url, in_memory=parsed.database in (None, "", ":memory:"), **kwargs)
    # No pre-ping: it costs a round trip per checkout. A connection the server dropped fails
    # on its first statement instead; SQLAlchemy then invalidates it and every older pooled
    # connection, and the API retries that first, read-only statement once on a fresh
    # connection (casino.api.database.retry_on_disconnect) or answers 503.
    options: dict[str, Any] = {}
    if "poolclass" not in kwargs:
        options.update(pool_size=10, max_overflow=20, pool_recycle=1800)
    options.update(kwargs)
    return create_engine(url, **options)


def _sqlite_engine(url: str, *, in_memory: bool, **kwargs: Any) -> Engine:
    options: dict[str, Any] = {"connect_args": {"check_same_thread": False, "timeout": 30}}
    if in_memory:
        # One shared connection, or every checkout would see a different empty database.
        options["poolclass"] = StaticPool
    options.update(kwargs)
    engine = create_engine(url, **options)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy, not pysqlite, decide when transactions begin (see _on_begin).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        if not in_memory:
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        # Take the write lock up front: a deferred transaction that reads and then writes can
        # fail with SQLITE_BUSY without waiting when another writer got there in between.
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(bind=engine, expire_on_commit=False)
