"""Issue 19, point 3 (a): a signed checkpoint is never changed or removed, and the database
itself refuses it (migration 0017): UPDATE and DELETE on both databases, TRUNCATE too on
PostgreSQL. Only a role that may disable triggers gets past it (tests/db_guard.py)."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, func, select, text
from sqlalchemy.exc import DBAPIError

from casino.store.models import LedgerCheckpoint
from tests.db_guard import tamper

from .conftest import Svc

REFUSALS = [
    "UPDATE ledger_checkpoints SET root = 'forged' WHERE seq = 1",
    "UPDATE ledger_checkpoints SET signature = signature",
    "DELETE FROM ledger_checkpoints WHERE seq = 2",
    "DELETE FROM ledger_checkpoints",
]


def _count(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(LedgerCheckpoint)).scalar_one())


@pytest.mark.parametrize("statement", REFUSALS)
def test_the_database_refuses_to_change_or_remove_a_checkpoint(
    svc: Svc, engine: Engine, statement: str
) -> None:
    for funds in (1_000, 2_000):
        svc.player(funds=funds)
        svc.seal()
    with engine.connect() as conn:
        before = conn.execute(text("SELECT seq, root, signature FROM ledger_checkpoints")).all()
    assert len(before) == 2
    with (
        pytest.raises(DBAPIError, match="ledger_checkpoints is append-only"),
        engine.begin() as conn,
    ):
        conn.execute(text(statement))
    with engine.connect() as conn:
        after = conn.execute(text("SELECT seq, root, signature FROM ledger_checkpoints")).all()
    assert after == before
    # Appending goes on, and a superuser (or the tables' owner) can still get past it.
    svc.player(funds=3_000)
    assert [c.seq for c in svc.seal()] == [3]
    tamper(engine, "DELETE FROM ledger_checkpoints WHERE seq = 3")
    assert _count(engine) == 2


@pytest.mark.postgres
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_postgres_refuses_to_truncate_the_checkpoints(svc: Svc, engine: Engine) -> None:
    svc.player(funds=1_000)
    svc.seal()
    with pytest.raises(DBAPIError, match="TRUNCATE refused"), engine.begin() as conn:
        conn.execute(text("TRUNCATE ledger_checkpoints CASCADE"))
    assert _count(engine) == 1
