"""Unit of work: one database transaction per request or command.

Use cases receive an entered ``UnitOfWork`` and never commit; the caller commits once, so that
several things (the money movement and its idempotency record) land atomically or not at all.

On PostgreSQL the commit sends the writes deferred to it (``casino.store.direct.defer``), the
ledger append and the COMMIT in one round trip; a constraint violation there that a deferred
write names (e.g. a second open round) is raised as the error it asks for, after the
rollback.
"""

from __future__ import annotations

import logging
from types import TracebackType

from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from casino.ledger.accounts import forget_system_accounts
from casino.ledger.posting import ROWS_APPENDED_WITH, current_ledger
from casino.store import direct

logger = logging.getLogger(__name__)


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
        except DBAPIError:
            # The connection broke (a server restart, a pipeline cut off mid-flight): the
            # server drops the transaction with it. Discard the connection instead of pooling
            # it, and do not let this replace the request's own answer or error.
            logger.warning("rollback failed; connection discarded", exc_info=True)
            session.invalidate()
        finally:
            session.close()
            self._session = None

    def commit(self) -> None:
        if self.dialect == "postgresql":
            self._commit_in_one_round_trip()
        self.session.commit()
        self._committed = True

    def _commit_in_one_round_trip(self) -> None:
        session = self.session
        session.flush()  # rows changed through the ORM go first, in their own round trip
        writes = direct.take_deferred(session)
        ledger = current_ledger(session)
        append = None
        sent = writes
        if ledger is not None:
            # Whole-row inserts the append can make itself ride in its statement.
            folded = [w for w in writes if w.row is not None and w.row[0] in ROWS_APPENDED_WITH]
            append = ledger.append_statement([w.row for w in folded if w.row is not None])
            if append is not None:
                sent = [w for w in writes if all(w is not f for f in folded)]
        if not sent and append is None:
            return
        try:
            rows = direct.commit(session, [*sent, *([append] if append else [])])
        except IntegrityError as error:
            if append is not None:
                # Most likely a shared account cached for a database since replaced.
                forget_system_accounts(session)
            make_error = direct.conflict_error(writes, error)
            if make_error is None:
                raise
            session.rollback()
            raise make_error() from None
        if ledger is not None and append is not None:
            ledger.appended(rows)

    def rollback(self) -> None:
        self.session.rollback()

    def flush(self) -> None:
        self.session.flush()
