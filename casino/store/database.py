"""A database the service runs on: its engine, session factory and liveness check."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from casino.store import health
from casino.store.session import DatabaseTimeouts, make_engine, make_session_factory
from casino.store.uow import UnitOfWork


@dataclass(frozen=True)
class Database:
    engine: Engine
    session_factory: sessionmaker[Session]

    @classmethod
    def open(cls, url: str, timeouts: DatabaseTimeouts | None = None) -> Database:
        # hide_parameters: SQL errors must not print bound values (token hashes, seeds).
        engine = make_engine(url, timeouts=timeouts, hide_parameters=True)
        return cls(engine=engine, session_factory=make_session_factory(engine))

    def unit_of_work(self) -> UnitOfWork:
        """A fresh, not yet entered unit of work."""
        return UnitOfWork(self.session_factory)

    def ping(self) -> None:
        """The database can serve a bet now (``casino.store.health``), or this raises."""
        with self.engine.connect() as connection:
            health.probe(connection)

    def dispose(self) -> None:
        self.engine.dispose()
