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
        return _host_list_as_query(url)
    path = (Path.cwd() / DEFAULT_SQLITE_PATH).resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


def printable_url(url: str) -> str:
    """A database URL without its password, for messages."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def _host_list_as_query(url: str) -> str:
    """libpq's multi-host form (``…://user@db1:5432,db2:5432/casino?…``, as
    ``pg_autoctl show uri`` prints a formation's) in SQLAlchemy's
    (``…://user@/casino?host=db1:5432&host=db2:5432&…``); other URLs unchanged."""
    scheme, separator, rest = url.partition("://")
    authority, _, tail = rest.partition("/")
    userinfo, at, hosts = authority.rpartition("@")
    if not separator or "," not in hosts:
        return url
    path, _, query = tail.partition("?")
    host_query = "&".join(f"host={host}" for host in hosts.split(","))
    return f"{scheme}://{userinfo}{at}/{path}?{host_query}{'&' + query if query else ''}"
