"""PostgreSQL hot path: statements sent straight through psycopg on a session's connection.

The bet and decision paths run a handful of fixed statements per request. Through the ORM
each costs far more Python than the database spends on it, so on PostgreSQL they go to the
session's own psycopg connection as prepared statements, inside the session's transaction.
Failures are raised as the SQLAlchemy exceptions the rest of the code handles
(``IntegrityError``, ``OperationalError``...), with bound values hidden, and a dead
connection is invalidated as SQLAlchemy itself would.

``commit`` sends the transaction's last writes and its COMMIT in one pipeline (one network
round trip): the rows a request locked stay locked only while the server runs those writes and
flushes the commit, never while this process is descheduled between a reply and its next
statement.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from psycopg.pq import ExecStatus
from sqlalchemy import event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session

Params = Mapping[str, Any]
TUPLES_OK = ExecStatus.TUPLES_OK
_CONNECTION = "casino.direct.connection"


@dataclass(frozen=True)
class Statement:
    """SQL with psycopg ``%(name)s`` placeholders and its parameters."""

    sql: str
    params: Params


def constraint_name(error: sa_exc.IntegrityError) -> str | None:
    """The constraint a PostgreSQL integrity error names, if any."""
    diag = getattr(error.orig, "diag", None)
    name = getattr(diag, "constraint_name", None)
    return name if isinstance(name, str) else None


@event.listens_for(Session, "after_rollback")
def _forget_on_rollback(session: Session) -> None:
    session.info.pop(_CONNECTION, None)


@event.listens_for(Session, "after_commit")
@event.listens_for(Session, "after_soft_rollback")
@event.listens_for(Session, "after_transaction_end")
def _forget_connection(session: Session, *_: Any) -> None:
    session.info.pop(_CONNECTION, None)


def is_postgres(session: Session) -> bool:
    return session.get_bind().dialect.name == "postgresql"


def _driver(connection: Connection) -> psycopg.Connection[Any]:
    driver = connection.connection.driver_connection
    assert isinstance(driver, psycopg.Connection)
    return driver


def _wrapped(connection: Connection, statement: str, error: psycopg.Error) -> sa_exc.DBAPIError:
    dialect = connection.dialect
    disconnected = dialect.is_disconnect(
        error,  # type: ignore[arg-type]  # psycopg's Error is the DB-API Error
        connection.connection.dbapi_connection,
        None,
    )
    if disconnected:
        connection.invalidate(error)
    wrapped = sa_exc.DBAPIError.instance(
        statement,
        None,
        error,
        psycopg.Error,
        hide_parameters=True,
        connection_invalidated=disconnected,
        dialect=dialect,
    )
    assert isinstance(wrapped, sa_exc.DBAPIError)
    return wrapped


def _connection(session: Session) -> tuple[Connection, psycopg.Connection[Any]]:
    """The session's connection in its current transaction, and the psycopg one under it.

    Remembered per transaction: ``Session.connection()`` walks the ORM's transaction state
    machine on every call, which costs more than the statements of a bet do here.
    """
    transaction = session.get_transaction()
    known = session.info.get(_CONNECTION)
    if transaction is not None and known is not None and known[0] is transaction:
        return known[1], known[2]
    connection = session.connection()
    driver = _driver(connection)
    session.info[_CONNECTION] = (session.get_transaction(), connection, driver)
    return connection, driver


def execute(session: Session, sql: str, params: Params) -> list[tuple[Any, ...]]:
    """Run one statement in the session's transaction; its rows (none for plain writes)."""
    connection, driver = _connection(session)
    try:
        cursor = driver.cursor()
        cursor.execute(sql, params, prepare=True)
        return _rows(cursor)
    except psycopg.Error as error:
        raise _wrapped(connection, sql, error) from error


def _rows(cursor: psycopg.Cursor[Any]) -> list[tuple[Any, ...]]:
    result = cursor.pgresult
    if result is None or result.status != TUPLES_OK:
        return []
    return cursor.fetchall()


def commit(session: Session, statements: Sequence[Statement]) -> list[tuple[Any, ...]]:
    """Run ``statements`` and COMMIT in one round trip; the rows of the last statement.

    Afterwards the database transaction is committed and the session's own commit only does
    its bookkeeping (psycopg skips a COMMIT outside a transaction). On failure nothing is
    committed and the session must be rolled back, as after any failed statement.
    """
    connection, driver = _connection(session)
    cursor = None
    current = "COMMIT"
    try:
        with driver.pipeline():
            for statement in statements:
                current = statement.sql
                cursor = driver.cursor()
                cursor.execute(statement.sql, statement.params, prepare=True)
            current = "COMMIT"
            driver.commit()
        return [] if cursor is None else _rows(cursor)
    except psycopg.Error as error:
        raise _wrapped(connection, current, error) from error
