"""The shape of ``casino/engine/casino_war``: small modules whose imports go one way (the
package's front door imports them, nothing imports it back, no import hides in a function),
none reaching into another object's private members, none past the size the project keeps
modules to; and the names callers used before the package was split are all still there."""

from __future__ import annotations

import ast
from pathlib import Path

import casino.engine.casino_war as package

ROOT = Path(package.__file__).resolve().parent
PREFIX = "casino.engine.casino_war."
#: The names importable from ``casino.engine.casino_war`` when it was one module.
ORIGINAL_NAMES = (
    "ALLOWED_TIE_PAYS",
    "BET_NAMES",
    "CARDS_PER_ROUND",
    "DEALING_ORDER",
    "BetOutcome",
    "Bets",
    "CasinoWarDeal",
    "CasinoWarRound",
    "Decision",
    "Outcome",
    "RoundResult",
    "RoundStatus",
    "TableRules",
    "WarCards",
    "bet_outcome",
    "bet_outcomes",
    "deal_casino_war",
    "replay_round",
)


def modules() -> dict[str, ast.Module]:
    return {path.stem: ast.parse(path.read_text(), str(path)) for path in ROOT.glob("*.py")}


def package_imports(tree: ast.Module) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith(PREFIX):
                found.add(node.module[len(PREFIX) :])
            elif node.module == PREFIX[:-1]:
                found.update(alias.name for alias in node.names)
    return found


def test_the_package_imports_form_no_loop_and_nothing_imports_the_front_door() -> None:
    graph = {name: package_imports(tree) - {name} for name, tree in modules().items()}
    graph.pop("__init__")
    state: dict[str, str] = {}

    def visit(name: str, path: list[str]) -> None:
        if state.get(name) == "done":
            return
        assert state.get(name) != "open", f"import loop: {' -> '.join([*path, name])}"
        state[name] = "open"
        for imported in sorted(graph.get(name, ())):
            assert imported in graph, f"{name} imports the package's front door"
            visit(imported, [*path, name])
        state[name] = "done"

    for name in sorted(graph):
        visit(name, [])


def test_no_import_hides_inside_a_function() -> None:
    for name, tree in modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                for inner in ast.walk(node):
                    assert not isinstance(inner, ast.Import | ast.ImportFrom), (
                        f"{name}.{node.name} imports inside a function"
                    )


def test_no_module_reaches_into_another_objects_private_members() -> None:
    offences = []
    for name, tree in modules().items():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
            ):
                offences.append(f"{name}: .{node.attr} (line {node.lineno})")
    assert offences == []


def test_modules_stay_small() -> None:
    sizes = {path.name: len(path.read_text().splitlines()) for path in ROOT.glob("*.py")}
    assert max(sizes.values()) <= 400, sizes


def test_every_original_name_is_still_importable() -> None:
    missing = [name for name in ORIGINAL_NAMES if not hasattr(package, name)]
    assert missing == []
    assert set(ORIGINAL_NAMES) <= set(package.__all__)
