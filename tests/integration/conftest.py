"""Service-level fixtures: a migrated database per backend, units of work, players, tables.

SQLite always; PostgreSQL too (tests marked ``postgres``) when ``CASINO_TEST_POSTGRES_URL`` is
set. The schema comes only from the Alembic migrations. SQLite: one migrated template file
per session, copied for each test. PostgreSQL: one uniquely named database per test session
(created through the URL's server, dropped at the end), emptied between tests.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from casino.engine.casino_war import CasinoWarDeal, deal_casino_war
from casino.ledger.audit import AuditReport
from casino.ledger.checkpoints import Checkpoint, SigningKey
from casino.service import players, seeds, tables, wallets
from casino.service.audit import run_audit
from casino.service.demo import DEMO_TABLES
from casino.service.operators import operator_ids
from casino.service.sealing import seal_pending
from casino.store.migrate import upgrade
from casino.store.models import ServerSeed
from casino.store.session import make_engine, make_session_factory
from casino.store.tenancy import DEFAULT_OPERATOR
from casino.store.uow import UnitOfWork
from tests.db_guard import checkpoints_unguarded

PG_ENV = "CASINO_TEST_POSTGRES_URL"
#: The key the tests seal checkpoints with (any 32 bytes are an Ed25519 private key).
SIGNING_KEY = SigningKey.parse("11" * 32)
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)]


# ---------------------------------------------------------------- PostgreSQL server helpers


def pg_admin(sql: str) -> None:
    engine = create_engine(os.environ[PG_ENV], isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as connection:
            connection.execute(text(sql))
    finally:
        engine.dispose()


def pg_url(database: str) -> str:
    url = make_url(os.environ[PG_ENV]).set(database=database)
    return url.render_as_string(hide_password=False)


def new_pg_database(prefix: str) -> str:
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    pg_admin(f'CREATE DATABASE "{name}"')
    return name


def drop_pg_database(name: str) -> None:
    pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# ---------------------------------------------------------------- databases


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("svc-sqlite") / "template.db"
    upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def pg_session_db() -> Iterator[tuple[str, Engine]]:
    name = new_pg_database("casino_svc")
    try:
        url = pg_url(name)
        upgrade(url)
        engine = make_engine(url)
        yield url, engine
        engine.dispose()
    finally:
        drop_pg_database(name)


def _empty_pg(engine: Engine) -> None:
    with engine.begin() as conn:
        names = [
            row[0]
            for row in conn.execute(
                text(
                    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
                    "AND tablename NOT IN ('alembic_version', 'operators')"
                )
            )
        ]
        if names:
            quoted = ", ".join(f'"{name}"' for name in names)
            with checkpoints_unguarded(conn):  # the checkpoints refuse a TRUNCATE otherwise
                conn.execute(text(f"TRUNCATE {quoted} RESTART IDENTITY CASCADE"))
        # The operator the migrations made stays, as a fresh database has it.
        conn.execute(text("DELETE FROM operators WHERE id <> 'default'"))


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A migrated, empty database for one test."""
    if request.param == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        path = tmp_path / "casino.db"
        shutil.copyfile(template, path)
        yield f"sqlite:///{path}"
        return
    url, engine = request.getfixturevalue("pg_session_db")
    _empty_pg(engine)
    yield url


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    engine = make_engine(db_url)
    yield engine
    engine.dispose()


@pytest.fixture
def session_factory(engine: Engine) -> sessionmaker[Session]:
    return make_session_factory(engine)


@pytest.fixture
def backend(engine: Engine) -> str:
    return engine.dialect.name


# ---------------------------------------------------------------- units of work and helpers


@dataclass
class Svc:
    """Runs use cases the way the API does: one unit of work each, committed on success."""

    factory: sessionmaker[Session]

    #: The operator the use cases run for (the one every migrated database has).
    operator: str = DEFAULT_OPERATOR

    def uow(self) -> UnitOfWork:
        return UnitOfWork(self.factory, operator=self.operator)

    def run(self, use_case: Callable[..., object], *args: object, **kwargs: object) -> object:
        with self.uow() as uow:
            result = use_case(uow, *args, **kwargs)
            uow.commit()
            return result

    def player(self, ref: str | None = None, funds: int = 0, currency: str = "EUR") -> str:
        view, _token = self.run(players.create_player, ref or f"ref-{uuid.uuid4().hex[:8]}")
        if funds:
            self.run(wallets.deposit, view.id, currency, funds, "funding")
        return str(view.id)

    def audit(self) -> AuditReport:
        with UnitOfWork(self.factory) as uow:
            return run_audit(uow.all_operators(), [SIGNING_KEY.verifying])

    def seal(self) -> list[Checkpoint]:
        """Seal every operator's chain (as ``casino seal`` does); the checkpoints made."""
        with UnitOfWork(self.factory) as uow:
            operators = operator_ids(uow)
        made = []
        for operator in operators:
            with UnitOfWork(self.factory, operator=operator) as uow:
                made += seal_pending(uow, SIGNING_KEY)
                uow.commit()
        return made

    def balance(self, player_id: str, currency: str = "EUR") -> int:
        with self.uow() as uow:
            for wallet in wallets.list_wallets(uow, player_id):
                if wallet.currency == currency:
                    return wallet.balance
        return 0

    def active_seed(self, player_id: str) -> tuple[bytes, int]:
        """The active server seed and next nonce, read straight from the database: tests may
        look behind the service to steer the real dealing path."""
        with self.factory() as session:
            row = session.execute(
                select(ServerSeed.seed, ServerSeed.next_nonce).where(
                    ServerSeed.player_id == player_id, ServerSeed.active
                )
            ).one()
            return bytes(row[0]), int(row[1])

    def steer(
        self, player_id: str, want: Callable[[CasinoWarDeal], bool], decks: int = 6
    ) -> CasinoWarDeal:
        """Set a client seed under which the player's next round is dealt as ``want`` asks."""
        server_seed, nonce = self.active_seed(player_id)
        for i in range(100_000):
            client_seed = f"steer-{i}"
            deal = deal_casino_war(server_seed, client_seed, nonce, decks)
            if want(deal):
                self.run(seeds.set_client_seed, player_id, client_seed)
                return deal
        raise AssertionError("no client seed found for the wanted deal")


@pytest.fixture
def svc(session_factory: sessionmaker[Session]) -> Svc:
    return Svc(session_factory)


@pytest.fixture
def demo_tables(svc: Svc) -> list[str]:
    for table_id, rules in DEMO_TABLES.items():
        svc.run(tables.create_table, table_id, "EUR", rules)
    return list(DEMO_TABLES)


def is_tie(deal: CasinoWarDeal) -> bool:
    return deal.is_tie


def not_tie(deal: CasinoWarDeal) -> bool:
    return not deal.is_tie


def tie_then(war: str) -> Callable[[CasinoWarDeal], bool]:
    """A tie on the first two cards, then a war that the player wins, ties or loses."""

    def want(deal: CasinoWarDeal) -> bool:
        if not deal.is_tie:
            return False
        player, dealer = deal.war_player.rank, deal.war_dealer.rank
        return {"win": player > dealer, "tie": player == dealer, "lose": player < dealer}[war]

    return want
