"""The unit of work's exit must survive a connection that died under it."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from casino.db.session import make_engine, make_session_factory
from casino.service.uow import UnitOfWork


def test_a_failed_rollback_discards_the_connection_and_does_not_raise(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seen under a PostgreSQL restart: ROLLBACK on a connection cut off mid-pipeline raised
    from the request teardown, and gunicorn answered an HTML 500 instead of the API's own
    response."""
    engine = make_engine(f"sqlite:///{tmp_path / 'uow.db'}")
    uow = UnitOfWork(make_session_factory(engine))
    with uow:
        session = uow.session
        session.execute(text("SELECT 1"))
        pooled = session.connection().connection.dbapi_connection

        def broken_rollback() -> None:
            raise OperationalError("ROLLBACK", {}, Exception("PQsendQuery not allowed"))

        monkeypatch.setattr(session, "rollback", broken_rollback)
    with uow:  # usable again, on a fresh connection: the broken one was not pooled
        assert uow.session.execute(text("SELECT 1")).scalar() == 1
        assert uow.session.connection().connection.dbapi_connection is not pooled
    engine.dispose()
