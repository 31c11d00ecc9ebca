"""One storage seam: casino/store owns every SQL statement and every difference between
SQLite and PostgreSQL. Above it (service, ledger, api, cli, web) no module imports SQLAlchemy
or a database driver, names the SQL dialect, or writes SQL text; the database errors they
handle come from casino.store.errors."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import casino

PACKAGE = Path(casino.__file__).resolve().parent
ABOVE = ("service", "ledger", "api", "cli", "web")
DRIVERS = ("sqlalchemy", "psycopg", "sqlite3", "alembic")
# SQL as a program writes it: a statement keyword followed by what only SQL puts there.
SQL_TEXT = re.compile(
    r"\b(SELECT\s+.+\s+FROM|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+TABLE)\b",
    re.IGNORECASE | re.DOTALL,
)


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


def test_the_checks_would_see_an_offender(tmp_path: Path) -> None:
    sample = 'import sqlalchemy\nQUERY = "SELECT id FROM players WHERE x"\n'
    tree = ast.parse(sample)
    assert any(SQL_TEXT.search(node.value) for node in strings(tree))
    assert "sqlalchemy" in {
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names
    }
