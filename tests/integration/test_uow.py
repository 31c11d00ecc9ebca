"""The unit of work's exit must survive a connection that died under it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session

from casino.service import idempotency, rounds
from casino.store import direct
from casino.store.session import make_engine, make_session_factory
from casino.store.uow import UnitOfWork

from .conftest import Svc, is_tie


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


@pytest.mark.postgres
@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
def test_a_bet_and_its_record_commit_in_one_statement_on_postgres(
    svc: Svc, demo_tables: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Everything a bet or a decision writes (round, idempotency record, transaction,
    postings, wallet) rides in one statement before the COMMIT (``casino_commit``)."""
    sent: list[list[str]] = []
    real_commit = direct.commit

    def spy(session: Session, statements: Sequence[direct.Statement]) -> Any:
        sent.append([statement.sql for statement in statements])
        return real_commit(session, statements)

    monkeypatch.setattr(direct, "commit", spy)
    pid = svc.player(funds=100_000)
    svc.steer(pid, is_tie)
    with svc.uow() as uow:
        view = rounds.place_bet(uow, pid, "classic", 1000)
        idempotency.complete(uow, f"player:{pid}", "bet-1", "fp", 201, {"id": view.id})
        uow.commit()
    with svc.uow() as uow:
        rounds.decide(uow, view.id, "war", player_id=pid, decided_by="player")
        idempotency.complete(uow, f"player:{pid}", "decision-1", "fp", 200, {"id": view.id})
        uow.commit()
    bet, decision = sent[-2:]
    assert len(bet) == 1 and "casino_commit(" in bet[0], bet
    assert len(decision) == 1 and "casino_commit(" in decision[0], decision
    with svc.uow() as uow:
        assert idempotency.begin(uow, f"player:{pid}", "bet-1", "fp") is not None
        assert idempotency.begin(uow, f"player:{pid}", "decision-1", "fp") is not None
    with svc.uow() as uow:
        assert rounds.get_round(uow, view.id, pid).status == "settled"


def test_each_transaction_has_its_own_repositories_made_when_used(tmp_path: Path) -> None:
    """The repositories are made on first use (a request uses few of them): one transaction
    shares one of each; the next, after a commit or a rollback, gets new ones, whose pending
    writes are the new transaction's."""
    engine = make_engine(f"sqlite:///{tmp_path / 'uow.db'}")
    uow = UnitOfWork(make_session_factory(engine))
    with uow:
        first = uow.rounds
        assert uow.rounds is first and first._ledger is uow.ledger
        assert first._writes is uow._writes
        uow.commit()
        second = uow.rounds
        assert second is not first and second._writes is uow._writes
        assert second._writes is not first._writes and second._ledger is uow.ledger
        uow.rollback()
        assert uow.rounds is not second and uow.ledger is not second._ledger
    with uow:  # entered again: a new session, new repositories on it
        assert uow.rounds.session is uow.session
    engine.dispose()
