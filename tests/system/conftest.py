"""System tests: the app under load, faults and hostile input (issue 5, short CI form).

The shared harness lives in ``harness`` (the benchmarks and ``make soak`` use it too);
``bench`` is not an installed package, so the repository root is put on ``sys.path`` here.
Every request goes to 127.0.0.1 only.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

from harness import pg  # noqa: E402


@pytest.fixture(
    scope="module",
    params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)],
)
def database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A fresh database migrated to head: SQLite always, PostgreSQL where there is one."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('system') / 'casino.db'}"
        pg.migrate(url)
        yield url
    else:
        with pg.scratch_database("system") as db:
            pg.migrate(db.url)
            yield db.url
