"""Unit of work: one database transaction per request or command.

Use cases receive an entered ``UnitOfWork`` and never commit; the caller commits once, so that
several things (the money movement and its idempotency record) land atomically or not at all.
"""

from __future__ import annotations

from types import TracebackType

from sqlalchemy.orm import Session, sessionmaker


class UnitOfWork:
    def __init__(self, session_factory: sessionmaker[Session]) -> None:
        self._factory = session_factory
        self._session: Session | None = None
        self._committed = False

    @property
    def session(self) -> Session:
        if self._session is None:
            raise RuntimeError("UnitOfWork used outside its 'with' block")
        return self._session

    @property
    def dialect(self) -> str:
        bind = self.session.get_bind()
        return bind.dialect.name

    def __enter__(self) -> UnitOfWork:
        self._session = self._factory()
        self._committed = False
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        session = self.session
        try:
            # Anything not committed explicitly is discarded, including work after a commit.
            session.rollback()
        finally:
            session.close()
            self._session = None

    def commit(self) -> None:
        self.session.commit()
        self._committed = True

    def rollback(self) -> None:
        self.session.rollback()

    def flush(self) -> None:
        self.session.flush()
