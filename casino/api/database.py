"""The app's database handles and the per-request unit of work."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from flask import Flask, current_app, g

from casino.store import stall_guard
from casino.store.database import Database
from casino.store.errors import DBAPIError
from casino.store.secret_box import warn_if_clear
from casino.store.session import DatabaseTimeouts
from casino.store.uow import UnitOfWork

EXTENSION_KEY = "casino.database"
_REQUEST_UOW = "_casino_uow"
T = TypeVar("T")


def init_app(app: Flask) -> Database:
    url = app.config.get("DATABASE_URL")
    if not url:
        from config import ConfigError

        raise ConfigError("DATABASE_URL is not set for this configuration")
    database = Database.open(
        url,
        timeouts(app.config),
        clock=app.config.get("CASINO_CLOCK"),
        currencies=app.config.get("CASINO_CURRENCIES"),
    )
    app.extensions[EXTENSION_KEY] = database
    if app.config.get("ENV_NAME") == "production":
        warn_if_clear(database.secrets)
    app.teardown_request(close_request_uow)
    return database


def ping() -> None:
    """The database answers (once more on a fresh connection if the pooled one was dead)."""
    retry_on_disconnect(database().ping, reset=lambda: None)


def timeouts(config: Any) -> DatabaseTimeouts:
    """The configured bounds on database waits (``DATABASE_*_TIMEOUT``, seconds)."""
    default = DatabaseTimeouts()
    client = config.get("DATABASE_CLIENT_TIMEOUT")
    return DatabaseTimeouts(
        lock=float(config.get("DATABASE_LOCK_TIMEOUT", default.lock)),
        statement=float(config.get("DATABASE_STATEMENT_TIMEOUT", default.statement)),
        connect=float(config.get("DATABASE_CONNECT_TIMEOUT", default.connect)),
        client=None if client in (None, "") else float(client),
        idle_in_transaction=float(
            config.get("DATABASE_IDLE_IN_TRANSACTION_TIMEOUT", default.idle_in_transaction)
        ),
    )


def database() -> Database:
    db: Database = current_app.extensions[EXTENSION_KEY]
    return db


def unit_of_work() -> UnitOfWork:
    """A fresh, not yet entered unit of work on the app's database."""
    return database().unit_of_work()


def request_uow() -> UnitOfWork:
    """The request's one unit of work, entered on first use and closed at teardown.

    Authentication and the use case share it: one connection checkout and one database
    transaction per request. Nothing is committed unless a view commits it.
    """
    uow: UnitOfWork | None = g.get(_REQUEST_UOW)
    if uow is None:
        uow = unit_of_work()
        uow.__enter__()
        setattr(g, _REQUEST_UOW, uow)
    return uow


def retry_on_disconnect(first_step: Callable[[], T], reset: Callable[[], None] | None = None) -> T:
    """Run a request's first, read-only database step; once more if its connection was dead.

    The pool does not ping connections at checkout (a round trip per request): one the server
    has dropped (a restart, an idle timeout) fails on its first statement, and SQLAlchemy
    invalidates it along with every older pooled connection. Nothing had been done in that
    transaction yet, so the step simply runs again on a fresh connection; a second failure
    reaches the error handlers (503). ``reset`` discards the failed state before the retry
    (by default the request's unit of work).

    A connection the stall guard cut (the network to the server went silent) is not
    retried: a fresh one would wait out its connect timeout on the same silent network,
    so the request answers 503 at once.
    """
    stall_guard.clear_cut()
    try:
        return first_step()
    except DBAPIError as error:
        if not error.connection_invalidated or stall_guard.cut_in_this_thread():
            raise
    (reset or close_request_uow)()
    return first_step()


def close_request_uow(_error: BaseException | None = None) -> None:
    uow: UnitOfWork | None = g.pop(_REQUEST_UOW, None)
    if uow is not None:
        uow.__exit__(None, None, None)
