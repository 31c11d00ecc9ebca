"""Engine and session factories with the per-database settings the service relies on."""

from __future__ import annotations

import select
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

SQLITE_BUSY_TIMEOUT_MS = 30_000


def make_engine(url: str, **kwargs: Any) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return _sqlite_engine(url, in_memory=parsed.database in (None, "", ":memory:"), **kwargs)
    # No pre-ping (a round trip per checkout): see _dropped_by_the_server.
    options: dict[str, Any] = {}
    if "poolclass" not in kwargs:
        options.update(pool_size=10, max_overflow=20, pool_recycle=1800)
    options.update(kwargs)
    engine = create_engine(url, **options)
    event.listen(engine, "checkout", _dropped_by_the_server)
    return engine


def _dropped_by_the_server(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
    """Refuse a pooled connection the server has closed; the pool then opens a new one.

    An idle connection gets no input unless the server ends it (a restart or an administrator
    sends a FATAL message and closes the socket), so pending input at checkout means it is
    gone. Checking costs one poll() and no round trip. A connection lost silently (no
    message reached us) still fails on its first statement: the API retries that statement
    once (casino.api.database.retry_on_disconnect) or answers 503.
    """
    fileno = getattr(dbapi_connection, "fileno", None)
    if fileno is None:
        return
    try:
        poller = select.poll()
        poller.register(fileno(), select.POLLIN)
        readable = bool(poller.poll(0))
    except (OSError, ValueError):  # already closed on our side
        readable = True
    if readable:
        raise DisconnectionError("the database server closed this connection")


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
