"""Getting past the database's guard of the signed checkpoints (migration 0017), as only a
database superuser or the tables' owner can: tests that empty a database between tests, or
that tamper with checkpoints to show what the audit or the sealer then does, use it.

PostgreSQL: ``session_replication_role = replica`` for the transaction (triggers do not
fire). SQLite: the triggers dropped for the block and created again after it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, Engine, text

_TRIGGERS = (
    "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'ledger_checkpoints'"
)


@contextmanager
def checkpoints_unguarded(connection: Connection) -> Iterator[Connection]:
    """Within ``connection``'s transaction, checkpoints may be updated and deleted."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SET LOCAL session_replication_role = replica"))
        yield connection
        return
    triggers = list(connection.execute(text(_TRIGGERS)))
    for name, _ in triggers:
        connection.execute(text(f'DROP TRIGGER "{name}"'))
    try:
        yield connection
    finally:
        for _, sql in triggers:
            connection.execute(text(sql))


def tamper(engine: Engine, *statements: str) -> None:
    """Run ``statements`` in one transaction with the checkpoints unguarded."""
    with engine.begin() as connection, checkpoints_unguarded(connection):
        for statement in statements:
            connection.execute(text(statement))
