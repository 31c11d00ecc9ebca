"""Database access: models, engine/session factories and migrations.

``database_url()`` is the single place that turns the environment into a database URL, so the
CLI, the migrations and the app configuration all agree on where the data lives.
"""

from __future__ import annotations

import os
from pathlib import Path

DEFAULT_SQLITE_PATH = Path("instance") / "casino.db"


def database_url(env: dict[str, str] | None = None) -> str:
    """``DATABASE_URL`` from the environment, else a SQLite file ``instance/casino.db``.

    The SQLite default is resolved against the current directory when this is called and the
    ``instance/`` folder is created if missing, so a fresh checkout works with no setup.
    """
    source = os.environ if env is None else env
    url = source.get("DATABASE_URL", "").strip()
    if url:
        # Heroku-style URLs name the scheme "postgres"; SQLAlchemy wants an explicit driver.
        if url.startswith("postgres://"):
            url = "postgresql+psycopg://" + url[len("postgres://") :]
        elif url.startswith("postgresql://"):
            url = "postgresql+psycopg://" + url[len("postgresql://") :]
        return url
    path = (Path.cwd() / DEFAULT_SQLITE_PATH).resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


def printable_url(url: str) -> str:
    """A database URL without its password, for messages."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)
