"""PostgreSQL hot path: statements sent straight through psycopg on a session's connection.

The bet and decision paths run a handful of fixed statements per request. Through the ORM
each costs far more Python than the database spends on it, so on PostgreSQL they go to the
session's own psycopg connection as prepared statements, inside the session's transaction.
Failures are raised as the SQLAlchemy exceptions the rest of the code handles
(``IntegrityError``, ``OperationalError``...), with bound values hidden, and a dead
connection is invalidated as SQLAlchemy itself would.

``commit`` sends the transaction's last writes and its COMMIT in one pipeline (one network
round trip): the ledger append, which locks the chain head, is among them, so the head stays
locked only while the server runs those statements and flushes the commit, never while this
process is descheduled between a reply and its next statement.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import psycopg
from psycopg.pq import ExecStatus
from psycopg.types.json import Json
from sqlalchemy import Table, event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session
from sqlalchemy.types import JSON

Params = Mapping[str, Any]
TUPLES_OK = ExecStatus.TUPLES_OK
_DEFERRED = "casino.direct.deferred"
_CONNECTION = "casino.direct.connection"


@dataclass(frozen=True)
class Statement:
    """SQL with psycopg ``%(name)s`` placeholders and its parameters."""

    sql: str
    params: Params
    #: constraint name -> the error to raise instead of an IntegrityError on it (made after
    #: the rollback, so it may query the database).
    conflicts: Mapping[str, Callable[[], Exception]] = field(default_factory=dict)
    #: An INSERT of one whole row: its table and the row as a JSON object (column name ->
    #: value), so a commit can hand it to ``ledger_commit`` instead of sending the statement.
    row: tuple[str, str] | None = None


def defer(session: Session, statement: Statement) -> None:
    """Run ``statement`` at commit, in the commit's round trip (see ``commit``)."""
    session.info.setdefault(_DEFERRED, []).append(statement)


def take_deferred(session: Session) -> list[Statement]:
    deferred: list[Statement] = session.info.pop(_DEFERRED, [])
    return deferred


def conflict_error(
    statements: Sequence[Statement], error: sa_exc.IntegrityError
) -> Callable[[], Exception] | None:
    """What one of ``statements`` wants raised for this constraint violation, if anything."""
    diag = getattr(error.orig, "diag", None)
    name = getattr(diag, "constraint_name", None)
    for statement in statements:
        if isinstance(name, str) and name in statement.conflicts:
            return statement.conflicts[name]
    return None


@event.listens_for(Session, "after_rollback")
def _forget_on_rollback(session: Session) -> None:
    session.info.pop(_DEFERRED, None)
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


@dataclass(frozen=True)
class _InsertShape:
    sql: str
    columns: tuple[tuple[str, str, bool], ...]  # (key, column name, is a JSON column)
    whole: bool  # every column of the table is given


_insert_shapes: dict[tuple[str, frozenset[str]], _InsertShape] = {}


def _insert_shape(table: Table, keys: frozenset[str]) -> _InsertShape:
    shape = _insert_shapes.get((table.name, keys))
    if shape is None:
        columns = [column for column in table.columns if column.key in keys]
        names = ", ".join(column.name for column in columns)
        marks = ", ".join(f"%({column.key})s" for column in columns)
        shape = _InsertShape(
            f"INSERT INTO {table.name} ({names}) VALUES ({marks})",
            tuple((c.key, c.name, isinstance(c.type, JSON)) for c in columns),
            len(columns) == len(table.columns),
        )
        _insert_shapes[(table.name, keys)] = shape
    return shape


def insert(table: Table, values: Mapping[str, Any]) -> Statement:
    """``INSERT`` of one row given as column -> Python value (JSON columns as documents).

    A whole row also comes as the JSON object ``json_populate_recordset`` reads (column name
    -> value, JSON columns nested), made in one ``json.dumps``: a bet builds two of these."""
    shape = _insert_shape(table, frozenset(values))
    params: dict[str, Any] = {}
    row: dict[str, Any] = {}
    for key, name, is_json in shape.columns:
        value = values[key]
        if isinstance(value, Json):
            params[key], row[name] = value, value.obj
        elif is_json and value is not None:
            params[key], row[name] = Json(value), value
        else:
            params[key] = row[name] = value
    document = None
    if shape.whole:
        document = (table.name, json.dumps(row, default=_json_default, separators=(",", ":")))
    return Statement(shape.sql, params, row=document)


def _json_default(value: Any) -> str:
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("a timestamp without a time zone cannot be stored")
        return value.isoformat()
    raise TypeError(f"cannot store {type(value).__name__} in a JSON row")


def update(table: Table, key: str, values: Mapping[str, Any]) -> Statement:
    """``UPDATE`` of the row whose column ``key`` equals ``values[key]``."""
    columns = [column for column in table.columns if column.key in values and column.key != key]
    assignments = ", ".join(f"{column.name} = %({column.key})s" for column in columns)
    params = {column.key: _adapt(column.type, values[column.key]) for column in columns}
    params[key] = values[key]
    return Statement(f"UPDATE {table.name} SET {assignments} WHERE {key} = %({key})s", params)


def encoded_json(text: str, document: Any) -> Json:
    """A JSON parameter sent as ``text``, ``document`` already serialised."""
    return Json(document, dumps=lambda _: text)


def _adapt(kind: Any, value: Any) -> Any:
    if isinstance(kind, JSON) and value is not None and not isinstance(value, Json):
        return Json(value)
    return value
