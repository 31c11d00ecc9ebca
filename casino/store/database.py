"""A database the service runs on: its engine, session factory and liveness check."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from casino.store import health
from casino.store.secret_box import SecretBox, from_environment
from casino.store.session import DatabaseTimeouts, make_engine, make_session_factory
from casino.store.types import utcnow
from casino.store.uow import DEFAULT_CURRENCIES, UnitOfWork


@dataclass(frozen=True)
class Database:
    engine: Engine
    session_factory: sessionmaker[Session]
    clock: Callable[[], datetime] = utcnow
    currencies: Collection[str] = field(default=DEFAULT_CURRENCIES)
    #: Seals and opens operators' wallet secrets (its keys: the environment's, at open)
    secrets: SecretBox = field(default_factory=from_environment)

    @classmethod
    def open(
        cls,
        url: str,
        timeouts: DatabaseTimeouts | None = None,
        *,
        clock: Callable[[], datetime] | None = None,
        currencies: Collection[str] | None = None,
        secrets: SecretBox | None = None,
    ) -> Database:
        # hide_parameters: SQL errors must not print bound values (token hashes, seeds).
        engine = make_engine(url, timeouts=timeouts, hide_parameters=True)
        return cls(
            engine=engine,
            session_factory=make_session_factory(engine),
            clock=clock or utcnow,
            currencies=frozenset(currencies or DEFAULT_CURRENCIES),
            secrets=from_environment() if secrets is None else secrets,
        )

    def unit_of_work(self, operator: str | None = None) -> UnitOfWork:
        """A fresh, not yet entered unit of work, acting for ``operator`` if given (else for
        whom authentication, or ``all_operators``, says)."""
        return UnitOfWork(
            self.session_factory,
            clock=self.clock,
            currencies=self.currencies,
            operator=operator,
            secrets=self.secrets,
        )

    def ping(self) -> None:
        """The database can serve a bet now (``casino.store.health``), or this raises."""
        with self.engine.connect() as connection:
            health.probe(connection)

    def dispose(self) -> None:
        self.engine.dispose()
