"""Unit of work: one database transaction per request or command, and its repositories.

Use cases receive an entered ``UnitOfWork``, work through its repositories and never commit;
the caller commits once, so that several things (the money movement, the round and the
idempotency record) land atomically or not at all. The writes a use case hands over for the
commit (casino.store.writes) are sent with it: on PostgreSQL in the COMMIT's own round trip.
A commit refused by a constraint that a use case named (a second open round, a wallet that
moved) raises the error it asked for, after the rollback.

A unit of work acts for one operator (casino.store.tenancy): authentication sets it once
(``act_for``), or the caller names it when opening one (``operator=``); the repositories
filter by it. Platform-level commands read across operators (``all_operators``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterator
from datetime import datetime
from types import TracebackType
from typing import Generic, TypeVar, overload

from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from casino.ledger.audit import Books
from casino.store import books
from casino.store import writes as pending
from casino.store.checkpoints import CheckpointStore
from casino.store.export import ExportStore
from casino.store.free_play import FreePlayStore
from casino.store.game_sessions import GameSessionStore
from casino.store.idempotency import IdempotencyStore
from casino.store.ledger import LedgerStore
from casino.store.ledger_reads import LedgerReadStore
from casino.store.operator_tokens import OperatorTokenStore
from casino.store.operators import OperatorStore
from casino.store.players import PlayerStore
from casino.store.protection import ProtectionStore
from casino.store.reports import ReportStore
from casino.store.rounds import RoundStore
from casino.store.secret_box import SecretBox, from_environment
from casino.store.seeds import SeedStore
from casino.store.shared import SharedStore
from casino.store.simulation_jobs import SimulationJobStore
from casino.store.tables import TableStore
from casino.store.tenancy import Tenancy
from casino.store.types import utcnow
from casino.store.wallet_calls import WalletCallStore

logger = logging.getLogger(__name__)

#: The currencies an operator accepts unless configured otherwise (CASINO_CURRENCIES).
DEFAULT_CURRENCIES = frozenset({"EUR", "USD", "GBP"})

S = TypeVar("S")


class _Store(Generic[S]):
    """A repository of the unit of work's current transaction, made when first used: a
    request uses a few of the eighteen, and a commit starts the next transaction (making
    them all anew cost ~14 us twice per request). Made from the transaction's session and
    its pending writes, so a store never outlives the transaction it was made for.
    ``kind(session, postgres, tenancy)`` unless ``make`` says otherwise."""

    def __init__(self, kind: type[S], make: Callable[[UnitOfWork], S] | None = None) -> None:
        self.kind = kind
        self._make = make
        self._name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    @overload
    def __get__(self, uow: None, owner: type) -> _Store[S]: ...

    @overload
    def __get__(self, uow: UnitOfWork, owner: type) -> S: ...

    def __get__(self, uow: UnitOfWork | None, owner: type) -> S | _Store[S]:
        if uow is None:
            return self
        make = self._make
        store = (
            self.kind(uow._bound, uow._postgres, uow.tenancy)  # type: ignore[call-arg]
            if make is None
            else make(uow)
        )
        # Kept in the instance, which shadows this descriptor: later reads are plain
        # attribute reads, until ``_begin`` forgets it.
        uow.__dict__[self._name] = store
        uow._made.append(self._name)
        return store


class UnitOfWork:
    # What the repositories are made from (set by ``__init__`` and ``_begin``).
    tenancy: Tenancy
    _secrets: SecretBox
    _bound: Session
    _postgres: bool
    _writes: pending.PendingWrites

    operators = _Store(
        OperatorStore, lambda u: OperatorStore(u._bound, u._postgres, u.tenancy, u._secrets)
    )
    players = _Store(PlayerStore)
    operator_tokens = _Store(OperatorTokenStore)
    tables = _Store(TableStore)
    seeds = _Store(SeedStore)
    ledger = _Store(LedgerStore, lambda u: LedgerStore(u._bound, u._postgres, u._writes, u.tenancy))
    protection = _Store(
        ProtectionStore, lambda u: ProtectionStore(u._bound, u._postgres, u._writes, u.tenancy)
    )
    rounds = _Store(
        RoundStore,
        lambda u: RoundStore(
            u._bound, u._postgres, u._writes, u.ledger, u.protection, u.tenancy, u.operators
        ),
    )
    idempotency = _Store(
        IdempotencyStore, lambda u: IdempotencyStore(u._bound, u._postgres, u._writes, u.tenancy)
    )
    checkpoints = _Store(CheckpointStore)
    ledger_reads = _Store(LedgerReadStore)
    export = _Store(ExportStore)
    game_sessions = _Store(GameSessionStore)
    # Not tenant-owned: anonymous free play and its simulations.
    free_play = _Store(FreePlayStore, lambda u: FreePlayStore(u._bound, u._postgres))
    reports = _Store(ReportStore)
    simulation_jobs = _Store(
        SimulationJobStore, lambda u: SimulationJobStore(u._bound, u._postgres)
    )
    shared = _Store(SharedStore)
    wallet_calls = _Store(WalletCallStore)

    def __init__(
        self,
        session_factory: sessionmaker[Session],
        *,
        clock: Callable[[], datetime] = utcnow,
        currencies: Collection[str] = DEFAULT_CURRENCIES,
        operator: str | None = None,
        secrets: SecretBox | None = None,
    ) -> None:
        self._factory = session_factory
        self._secrets = from_environment() if secrets is None else secrets
        self._session: Session | None = None
        # The time of the use cases (ledger and round timestamps, limit periods, delays):
        # tests inject a clock instead of sleeping.
        self.clock = clock
        #: The ISO 4217 codes of the deployment (CASINO_CURRENCIES): an operator's own list
        #: is some of them, or (None) all of them.
        self.deployment_currencies = frozenset(currencies)
        self.tenancy = Tenancy(operator)
        #: Who sends the seamless wallet calls (wins, rollbacks) this unit of work queues:
        #: itself, right after its commit (a request), or the outbox worker, due at once
        #: (the dealer: a slow wallet must not hold a table's clock or its lease).
        self.wallet_calls_inline = True

    def now(self) -> datetime:
        return self.clock()

    # --- the operator (casino.store.tenancy) ------------------------------------------

    def act_for(self, operator_id: str) -> None:
        """From now on every repository reads and writes ``operator_id``'s rows only (set
        once, by authentication or by the command that opened this unit of work)."""
        self.tenancy.set(operator_id)

    def all_operators(self) -> UnitOfWork:
        """Read across every operator (platform-level commands: audit, sealing, stale
        rounds, the export of everything); writing tenant-owned rows still needs one."""
        self.tenancy.every()
        return self

    @property
    def operator_id(self) -> str | None:
        """The operator this unit of work acts for, once set (None before, or for all)."""
        return self.tenancy.operator_id

    @property
    def currencies(self) -> frozenset[str]:
        """The ISO 4217 codes the operator may use (tables, wallets, limits)."""
        own = self.operators.current().currencies
        return self.deployment_currencies if own is None else frozenset(own)

    @property
    def session(self) -> Session:
        """The SQLAlchemy session, for repositories and tests; use cases go through the
        repositories."""
        if self._session is None:
            raise RuntimeError("UnitOfWork used outside its 'with' block")
        return self._session

    @property
    def postgres(self) -> bool:
        return self.session.get_bind().dialect.name == "postgresql"

    def __enter__(self) -> UnitOfWork:
        self._session = session = self._factory()
        self._begin(session)
        return self

    def _begin(self, session: Session) -> None:
        postgres = session.get_bind().dialect.name == "postgresql"
        self._writes = pending.PendingWrites()
        #: Run once this transaction has committed (a seamless round's win is sent then).
        self.after_commit: list[Callable[[], None]] = []
        #: Run, each in a transaction of its own, if this one ends without a commit: what
        #: another party already did for it must be undone (a seamless wallet's debit).
        self.if_not_committed: list[Callable[[UnitOfWork], None]] = []
        # The repositories of the previous transaction are forgotten (``_Store``): this
        # one's are made when first used.
        own = self.__dict__
        for name in getattr(self, "_made", ()):
            own.pop(name, None)
        self._made: list[str] = []
        self._bound = session
        self._postgres = postgres

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        session = self.session
        undo = self.if_not_committed
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
        if undo:
            # On a new connection: the old one may be what failed.
            self._session = self._factory()
            try:
                self._begin(self._session)
                self._undo(undo)
            finally:
                self._session.close()
                self._session = None

    def commit(self) -> None:
        session = self.session
        writes = self._writes
        try:
            session.flush()  # rows changed through the ORM go first, in their own round trip
            if self._postgres:
                pending.commit_postgres(session, writes)
            elif writes:
                pending.write_sqlite(session, writes)
        except IntegrityError as error:
            make_error = pending.conflict_error(writes.conflicts, error)
            if make_error is None:
                raise
            self.rollback()
            raise make_error() from None
        session.commit()
        hooks = self.after_commit
        self._begin(session)
        for hook in hooks:
            hook()

    def read_books(self, *, rounds_since: datetime | None = None) -> Iterator[tuple[str, Books]]:
        """For the audit, in one consistent snapshot: (operator, its whole ledger) of the
        operator this unit of work acts for, or of every operator in all-operators mode."""
        books.begin_snapshot(self.session)
        scope = self.tenancy.scope()
        for operator in [scope] if scope is not None else books.operator_ids(self.session):
            yield operator, books.read_books(self.session, operator, rounds_since=rounds_since)

    def on_conflict(self, constraint: str, make_error: Callable[[], Exception]) -> None:
        """Should the commit be refused by ``constraint``, raise ``make_error()`` instead
        (called after the rollback, so it may read through this unit of work)."""
        self._writes.conflicts[constraint] = make_error

    def rollback(self) -> None:
        undo = self.if_not_committed
        self.session.rollback()
        self._begin(self.session)
        self._undo(undo)

    def _undo(self, hooks: list[Callable[[UnitOfWork], None]]) -> None:
        """The ``if_not_committed`` hooks of a transaction just rolled back, each committing
        in a transaction of its own; one that fails is logged (the hook says what to check),
        never raised over the request's own answer."""
        for hook in hooks:
            try:
                hook(self)
            except Exception:
                logger.exception("undoing the work of a rolled-back transaction failed")
            finally:
                try:
                    self.session.rollback()
                except DBAPIError:
                    logger.warning("rollback after an undo failed", exc_info=True)
                self._begin(self.session)

    def flush(self) -> None:
        self.session.flush()
