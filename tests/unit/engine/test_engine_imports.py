"""casino/engine is pure: it imports the standard library and itself, nothing else; and the
verifier imports nothing but the standard library, so it can be copied alone."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import casino.engine

ENGINE = Path(casino.engine.__file__).resolve().parent


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import: inside the engine package by construction
                names.add("casino.engine")
            elif node.module:
                names.add(node.module)
    return names


def engine_files() -> list[Path]:
    return sorted(ENGINE.rglob("*.py"))


def test_there_are_engine_modules_to_check() -> None:
    names = {str(p.relative_to(ENGINE)) for p in engine_files()}
    assert {"cards.py", "fairness.py", "casino_war/rules.py", "odds.py", "verify.py"} <= names


def test_engine_imports_only_the_standard_library_and_itself() -> None:
    offenders: dict[str, list[str]] = {}
    for path in engine_files():
        for name in imported_modules(path):
            top = name.split(".")[0]
            if name == "casino.engine" or name.startswith("casino.engine."):
                continue
            if top == "__future__" or top in sys.stdlib_module_names:
                continue
            offenders.setdefault(str(path.relative_to(ENGINE)), []).append(name)
    assert offenders == {}


def test_verifier_needs_nothing_but_the_standard_library() -> None:
    names = imported_modules(ENGINE / "verify.py")
    assert all(n == "__future__" or n.split(".")[0] in sys.stdlib_module_names for n in names)


def test_the_checker_would_catch_a_third_party_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import flask\nfrom sqlalchemy.orm import Session\nfrom . import cards\n")
    names = imported_modules(bad)
    assert {"flask", "sqlalchemy.orm"} <= names
    assert not {"flask", "sqlalchemy"} & set(sys.stdlib_module_names)
