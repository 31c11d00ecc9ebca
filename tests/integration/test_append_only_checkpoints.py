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


@pytest.mark.postgres
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_the_apps_role_cannot_get_past_the_guard(svc: Svc, db_url: str) -> None:
    """The role docs/deployment.md gives the app (rows only, owning nothing) can seal, but
    neither disable the triggers nor skip them, nor truncate."""
    import uuid

    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url

    from casino.service.sealing import seal_pending
    from casino.store.session import make_engine, make_session_factory
    from casino.store.uow import UnitOfWork

    from .conftest import SIGNING_KEY, pg_admin

    svc.player(funds=1_000)
    svc.seal()
    role = f"casino_app_{uuid.uuid4().hex[:8]}"
    database = make_url(db_url).database
    pg_admin(f"CREATE ROLE {role} LOGIN PASSWORD 'app'")
    try:
        owner = create_engine(db_url)
        with owner.begin() as conn:
            for grant in (
                f'GRANT CONNECT ON DATABASE "{database}" TO {role}',
                f"GRANT USAGE ON SCHEMA public TO {role}",
                f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}",
                f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}",
                # The sealer's horizon then leaves other databases' transactions out.
                f"GRANT pg_read_all_stats TO {role}",
            ):
                conn.execute(text(grant))
        owner.dispose()
        app = make_engine(make_url(db_url).set(username=role, password="app"))
        try:
            svc.player(funds=2_000)
            with UnitOfWork(make_session_factory(app), operator="default") as uow:  # the app's role
                assert [c.seq for c in seal_pending(uow, SIGNING_KEY)] == [2]
                uow.commit()
            for attempt in (
                "ALTER TABLE ledger_checkpoints DISABLE TRIGGER ledger_checkpoints_append_only",
                "SET session_replication_role = replica",
                "TRUNCATE ledger_checkpoints",
                "DELETE FROM ledger_checkpoints",
            ):
                with pytest.raises(DBAPIError), app.begin() as conn:
                    conn.execute(text(attempt))
            with app.connect() as conn:
                assert conn.execute(text("SELECT count(*) FROM ledger_checkpoints")).scalar() == 2
        finally:
            app.dispose()
    finally:
        owner = create_engine(db_url)
        with owner.begin() as conn:
            conn.execute(text(f"DROP OWNED BY {role}"))
        owner.dispose()
        pg_admin(f"DROP ROLE {role}")
