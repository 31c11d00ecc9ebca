"""Run the Alembic migrations programmatically (tests, ``casino db-upgrade``, release)."""

from __future__ import annotations


def upgrade(url: str, revision: str = "head") -> None:
    raise NotImplementedError
