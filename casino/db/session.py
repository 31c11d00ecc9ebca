"""Engine and session factories with the per-database settings the service relies on."""

from __future__ import annotations

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker


def make_engine(url: str) -> Engine:
    raise NotImplementedError


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    raise NotImplementedError
