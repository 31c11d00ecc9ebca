"""The app's database handles and the per-request unit of work."""

from __future__ import annotations

from dataclasses import dataclass

from flask import Flask, current_app
from sqlalchemy import Engine, text
from sqlalchemy.orm import Session, sessionmaker

from casino.db.session import make_engine, make_session_factory
from casino.service.uow import UnitOfWork

EXTENSION_KEY = "casino.database"


@dataclass(frozen=True)
class Database:
    engine: Engine
    session_factory: sessionmaker[Session]

    def ping(self) -> None:
        with self.engine.connect() as connection:
            connection.execute(text("SELECT 1"))


def init_app(app: Flask) -> Database:
    url = app.config.get("DATABASE_URL")
    if not url:
        from config import ConfigError

        raise ConfigError("DATABASE_URL is not set for this configuration")
    # hide_parameters: SQL errors must not print bound values (token hashes, seeds).
    engine = make_engine(url, hide_parameters=True)
    database = Database(engine=engine, session_factory=make_session_factory(engine))
    app.extensions[EXTENSION_KEY] = database
    return database


def database() -> Database:
    db: Database = current_app.extensions[EXTENSION_KEY]
    return db


def unit_of_work() -> UnitOfWork:
    """A fresh, not yet entered unit of work on the app's database."""
    return UnitOfWork(database().session_factory)
