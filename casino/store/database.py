"""A database the service runs on: its engine, session factory and liveness check."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

from casino.store.session import make_engine, make_session_factory
from casino.store.uow import UnitOfWork


@dataclass(frozen=True)
class Database:
    engine: Engine
    session_factory: sessionmaker[Session]

    @classmethod
    def open(cls, url: str) -> Database:
        # hide_parameters: SQL errors must not print bound values (token hashes, seeds).
        engine = make_engine(url, hide_parameters=True)
        return cls(engine=engine, session_factory=make_session_factory(engine))

    def unit_of_work(self) -> UnitOfWork:
        """A fresh, not yet entered unit of work."""
        return UnitOfWork(self.session_factory)

    def ping(self) -> None:
        """One round trip to the server; raises if it does not answer."""
        with self.engine.connect() as connection:
            connection.execute(text("SELECT 1"))

    def dispose(self) -> None:
        self.engine.dispose()
