"""Engine and session factories with the per-database settings the service relies on.

Every database wait can be bounded (``DatabaseTimeouts``): the app passes its configured
bounds, so a locked table, a stuck session or a silent network costs a request a few seconds
and a 503, never a worker. On PostgreSQL they are session settings sent with each new
connection (``lock_timeout``, ``statement_timeout``, ``idle_in_transaction_session_timeout``),
libpq's connect timeout and TCP keepalives / user timeout, the pool's wait for a free
connection, and the client's own bound on any exchange (``casino.store.stall_guard``). On
SQLite the lock bound is the busy timeout. Commands run without bounds unless given some
(an audit may take long).
"""

from __future__ import annotations

import math
import select
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

from casino.store import stall_guard

SQLITE_BUSY_TIMEOUT_MS = 30_000


#: The client bound's default margin over the statement bound (seconds): room for the
#: server's own cancellation to arrive first.
CLIENT_MARGIN = 0.5


@dataclass(frozen=True)
class DatabaseTimeouts:
    """Bounds on database waits, in seconds."""

    #: Waiting for a lock held by another session (PostgreSQL lock_timeout; SQLite's busy
    #: timeout, the wait for its single write lock).
    lock: float = 3.0
    #: One statement on the server (statement_timeout). Below the client bound, which
    #: keeps a request on a silent network under 5 s.
    statement: float = 3.5
    #: Opening a connection (libpq counts whole seconds, at least 2), and waiting for a
    #: free one in the pool.
    connect: float = 3.0
    #: Any one exchange as the client sees it, network included; None: statement + 0.5 s,
    #: so the server's own timeouts, which leave the connection usable, come first.
    client: float | None = None
    #: A transaction left open without a statement (a stuck client) releases its locks.
    idle_in_transaction: float = 60.0

    @property
    def client_limit(self) -> float:
        return self.client if self.client is not None else self.statement + CLIENT_MARGIN


def make_engine(url: str, *, timeouts: DatabaseTimeouts | None = None, **kwargs: Any) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        in_memory = parsed.database in (None, "", ":memory:")
        return _sqlite_engine(url, in_memory=in_memory, timeouts=timeouts, **kwargs)
    # No pre-ping (a round trip per checkout): see _dropped_by_the_server.
    options: dict[str, Any] = {}
    if "poolclass" not in kwargs:
        options.update(pool_size=10, max_overflow=20, pool_recycle=1800)
        if timeouts is not None:
            options["pool_timeout"] = timeouts.connect
    options.update(kwargs)
    engine = create_engine(url, **options)
    event.listen(engine, "checkout", _dropped_by_the_server)
    if timeouts is not None and parsed.get_backend_name() == "postgresql":
        _bound_postgresql(engine, timeouts)
    return engine


def _milliseconds(seconds: float) -> int:
    return max(1, round(seconds * 1000))


def postgresql_session_options(timeouts: DatabaseTimeouts) -> str:
    """libpq ``options``: the server-side bounds, set once per connection at its start."""
    settings = {
        "lock_timeout": _milliseconds(timeouts.lock),
        "statement_timeout": _milliseconds(timeouts.statement),
        "idle_in_transaction_session_timeout": _milliseconds(timeouts.idle_in_transaction),
    }
    return " ".join(f"-c {name}={value}" for name, value in settings.items())


def _bound_postgresql(engine: Engine, timeouts: DatabaseTimeouts) -> None:
    client_limit = timeouts.client_limit

    @event.listens_for(engine, "do_connect")
    def _connect(_dialect: Any, _record: Any, cargs: Any, cparams: dict[str, Any]) -> Any:
        # Merged with whatever the URL says (its own options come first, ours win).
        own = postgresql_session_options(timeouts)
        cparams["options"] = f"{cparams.get('options', '')} {own}".strip()
        cparams.setdefault("connect_timeout", max(2, math.ceil(timeouts.connect)))
        # A peer that vanished (no FIN, no RST) is noticed by the kernel: keepalive probes
        # on an idle connection, and unacknowledged data dropped after tcp_user_timeout.
        cparams.setdefault("keepalives", 1)
        cparams.setdefault("keepalives_idle", 10)
        cparams.setdefault("keepalives_interval", 3)
        cparams.setdefault("keepalives_count", 3)
        cparams.setdefault("tcp_user_timeout", _milliseconds(client_limit))
        return stall_guard.connect(client_limit, *cargs, **cparams)


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


def _sqlite_engine(
    url: str, *, in_memory: bool, timeouts: DatabaseTimeouts | None, **kwargs: Any
) -> Engine:
    busy_ms = SQLITE_BUSY_TIMEOUT_MS if timeouts is None else _milliseconds(timeouts.lock)
    options: dict[str, Any] = {
        "connect_args": {"check_same_thread": False, "timeout": busy_ms / 1000}
    }
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
        cursor.execute(f"PRAGMA busy_timeout = {busy_ms}")
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
