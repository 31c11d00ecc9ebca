"""One storage seam: casino/store owns every SQL statement and every difference between
SQLite and PostgreSQL. Above it (service, ledger, api, cli, web) no module imports SQLAlchemy
or a database driver, names the SQL dialect, or writes SQL text; the database errors they
handle come from casino.store.errors.

Nor does anything above reach through the seam: no module imports a store module that maps
tables (casino.store.models, base, the ``*_models``), only the clock helpers of
casino.store.types (not its column types), and none touches a unit of work's SQLAlchemy
session or its dialect (``uow.session``, ``uow.postgres``): they work through the unit of
work's repositories and the plain records those return (casino.store.records and the like,
the repositories' own record classes, casino.store.errors, and casino.store.uow,
database, session and backup for what the commands open and configure)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import casino

PACKAGE = Path(casino.__file__).resolve().parent
ABOVE = ("service", "ledger", "api", "cli", "web")
DRIVERS = ("sqlalchemy", "psycopg", "sqlite3", "alembic")
# SQL as a program writes it: a statement keyword followed by what only SQL puts there.
SQL_TEXT = re.compile(
    r"\b(SELECT\s+.+\s+FROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+TABLE)\b",
    re.IGNORECASE | re.DOTALL,
)


# Above the store only these of casino.store.types: the clock, not the column types.
TYPES_ALLOWED = {"utcnow", "as_utc"}
# What a unit of work keeps for its repositories: its session (and its factory) and dialect.
BEHIND_THE_UOW = {"session", "_session", "_factory", "postgres", "_postgres"}


def model_modules() -> set[str]:
    """The store's modules that declare tables (ORM models), and their base."""
    found = {"casino.store.base"}
    for path in (PACKAGE / "store").glob("*.py"):
        if "__tablename__" in path.read_text():
            found.add(f"casino.store.{path.stem}")
    return found


def imported(tree: ast.AST) -> list[tuple[int, str, list[str]]]:
    """(line, module, names taken from it) of every import of a module."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [alias.name for alias in node.names]
            found.append((node.lineno, node.module, names))
            # ``from casino.store import models`` imports the module casino.store.models.
            found += [(node.lineno, f"{node.module}.{name}", []) for name in names]
    return found


def reaching_through(tree: ast.AST, models: set[str]) -> list[str]:
    """What a module above the store does across the seam that it may not."""
    problems = []
    for line, module, names in imported(tree):
        if module in models:
            problems.append(f"{line}: imports {module}")
        if module == "casino.store.types" and not set(names) <= TYPES_ALLOWED:
            problems.append(f"{line}: imports {sorted(set(names) - TYPES_ALLOWED)} of {module}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in BEHIND_THE_UOW:
            problems.append(f"{node.lineno}: {ast.unparse(node)}")
    return problems


def modules_above() -> list[Path]:
    return sorted(p for part in ABOVE for p in (PACKAGE / part).rglob("*.py"))


def strings(tree: ast.AST) -> list[ast.Constant]:
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and id(node) not in docstrings
    ]  # fmt: skip


def test_there_are_modules_above_the_store() -> None:
    names = {p.name for p in modules_above()}
    assert {"rounds.py", "wallets.py", "audit.py", "errors.py", "ops_cmds.py"} <= names


def test_nothing_above_the_store_imports_a_database_library() -> None:
    offenders = []
    for path in modules_above():
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path.relative_to(PACKAGE)}: {name}"
                for name in names
                if name.split(".")[0] in DRIVERS
            ]
    assert offenders == []


def test_nothing_above_the_store_names_the_dialect_or_writes_sql() -> None:
    offenders = []
    for path in modules_above():
        text = path.read_text()
        if "dialect" in text:
            offenders.append(f"{path.relative_to(PACKAGE)}: names the dialect")
        for node in strings(ast.parse(text)):
            if SQL_TEXT.search(node.value):
                offenders.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: SQL text")
    assert offenders == []


def test_nothing_above_the_store_reaches_through_the_unit_of_work() -> None:
    models = model_modules()
    assert {"casino.store.models", "casino.store.free_play_models"} <= models
    offenders = [
        f"{path.relative_to(PACKAGE)}:{problem}"
        for path in modules_above()
        for problem in reaching_through(ast.parse(path.read_text()), models)
    ]
    assert offenders == []


@pytest.mark.parametrize(
    "sample",
    [
        "from casino.store.models import utcnow",
        "from casino.store import models",
        "import casino.store.free_play_models",
        "from casino.store.types import UTCDateTime, utcnow",
        "rows = store.transaction_page(uow.session)",
        "if uow.postgres:\n    pass",
        "session = self.uow._session",
    ],
)
def test_the_seam_check_would_see_an_offender(sample: str) -> None:
    assert reaching_through(ast.parse(sample), model_modules())


def test_the_seam_check_lets_the_records_and_the_clock_through() -> None:
    sample = (
        "from casino.store.records import TransactionRecord\n"
        "from casino.store.types import utcnow\n"
        "from casino.store.errors import IntegrityError\n"
        "from casino.store.uow import UnitOfWork\n"
        "page = uow.ledger_reads.transaction_page(limit=1)\n"
    )
    assert reaching_through(ast.parse(sample), model_modules()) == []


def test_the_checks_would_see_an_offender(tmp_path: Path) -> None:
    sample = 'import sqlalchemy\nQUERY = "SELECT id FROM players WHERE x"\n'
    tree = ast.parse(sample)
    assert any(SQL_TEXT.search(node.value) for node in strings(tree))
    assert "sqlalchemy" in {
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
    }


# Who decides the operator a unit of work acts for (docs/operators.md): authentication, the
# platform's first token of a new operator, and the platform-level readers (commands, the
# deployment's metrics). Everything else works for the operator it was given.
CHOOSE_THE_OPERATOR = {"act_for", "all_operators"}
MAY_CHOOSE = {
    "service/auth.py",
    "service/operators.py",
    "api/metrics.py",
    "cli/ops_cmds.py",
    "service/wallet_outbox.py",  # the wallet worker: claims every operator's due calls
    "service/reconciliation.py",  # the platform reads any operator's reconciliation
}


def test_only_authentication_and_platform_commands_choose_the_operator() -> None:
    choosers = {
        str(path.relative_to(PACKAGE))
        for path in modules_above()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute) and node.attr in CHOOSE_THE_OPERATOR
    }
    assert choosers <= MAY_CHOOSE, sorted(choosers - MAY_CHOOSE)
    assert "service/auth.py" in choosers
