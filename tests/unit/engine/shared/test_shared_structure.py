"""The shape of ``casino/engine/shared``: its modules import one way (no loop, nothing
imports the package's front door), none hides an import in a function, none is past the size
the project keeps modules to, and the front door exports what its modules define."""

from __future__ import annotations

import ast
from pathlib import Path

import casino.engine.shared as package

ROOT = Path(package.__file__).resolve().parent
PREFIX = "casino.engine.shared."
MAX_LINES = 400


def modules() -> dict[str, ast.Module]:
    return {path.stem: ast.parse(path.read_text(), str(path)) for path in ROOT.glob("*.py")}


def test_the_package_imports_form_no_loop_and_nothing_imports_the_front_door() -> None:
    graph: dict[str, set[str]] = {}
    for name, tree in modules().items():
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert node.module != PREFIX[:-1] or name == "__init__", f"{name} imports __init__"
                if node.module.startswith(PREFIX):
                    found.add(node.module[len(PREFIX) :])
        graph[name] = found - {name}
    graph.pop("__init__")
    state: dict[str, str] = {}

    def visit(name: str, path: list[str]) -> None:
        if state.get(name) == "done":
            return
        assert state.get(name) != "open", f"import loop: {' -> '.join([*path, name])}"
        state[name] = "open"
        for imported in sorted(graph[name]):
            visit(imported, [*path, name])
        state[name] = "done"

    for name in sorted(graph):
        visit(name, [])


def test_no_import_hides_inside_a_function_and_no_module_is_too_long() -> None:
    for name, tree in modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert not any(
                    isinstance(inner, ast.Import | ast.ImportFrom) for inner in ast.walk(node)
                ), f"{name}.{node.name} imports inside a function"
        lines = (ROOT / f"{name}.py").read_text().count("\n")
        assert lines <= MAX_LINES, f"{name}.py has {lines} lines"


def test_the_front_door_exports_what_it_imports() -> None:
    assert sorted(package.__all__) == sorted(set(package.__all__))
    for name in package.__all__:
        assert hasattr(package, name), name
