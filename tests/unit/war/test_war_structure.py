"""The shape of ``casino/engine/war``: imports go one way (nothing imports back into the game
model, no import hides inside a function), no module reaches into another object's private
members, and the log is a typed, frozen record with the JSON the API has always shown."""

from __future__ import annotations

import ast
import dataclasses
import json
from pathlib import Path

import pytest
from war_positions import game_with, rules_of

import casino.engine.war as war_package
from casino.engine.war import new_game
from casino.engine.war.entries import BattleEntry, EntryBuilder, Steal, WarRound

WAR = Path(war_package.__file__).resolve().parent
PREFIX = "casino.engine.war."


def modules() -> dict[str, ast.Module]:
    return {path.stem: ast.parse(path.read_text(), str(path)) for path in WAR.glob("*.py")}


def war_imports(tree: ast.Module) -> set[str]:
    """The war modules a module imports, anywhere in it (TYPE_CHECKING blocks included)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith(PREFIX):
                found.add(node.module[len(PREFIX) :])
            elif node.module == PREFIX[:-1]:
                found.update(
                    alias.name for alias in node.names if (WAR / f"{alias.name}.py").exists()
                )
        elif isinstance(node, ast.Import):
            found.update(a.name[len(PREFIX) :] for a in node.names if a.name.startswith(PREFIX))
    return found


def test_the_war_package_imports_form_no_loop() -> None:
    graph = {name: war_imports(tree) - {name} for name, tree in modules().items()}
    graph.pop("__init__")  # the package's front door imports everything, nothing imports it
    state: dict[str, str] = {}

    def visit(name: str, path: list[str]) -> None:
        if state.get(name) == "done":
            return
        assert state.get(name) != "open", f"import loop: {' -> '.join([*path, name])}"
        state[name] = "open"
        for imported in sorted(graph.get(name, ())):
            visit(imported, [*path, name])
        state[name] = "done"

    for name in sorted(graph):
        visit(name, [])


def test_only_the_front_door_and_the_simulations_import_the_game_model() -> None:
    importers = {name for name, tree in modules().items() if "game" in war_imports(tree)}
    assert importers <= {"__init__", "simulation"}, importers


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


def test_log_entries_are_frozen_typed_records() -> None:
    game = new_game("steal", {"seats": 3}, seed="typed-log", seats=[{"type": "computer"}] * 3)
    game.advance("end")
    assert game.log
    entry = game.log[-1]
    assert isinstance(entry, BattleEntry)
    with pytest.raises(dataclasses.FrozenInstanceError):
        entry.winner = 0  # type: ignore[misc]
    steals = [s for e in game.log for s in e.steals or ()]
    wars = [w for e in game.log for w in e.wars]
    assert steals and all(isinstance(s, Steal) for s in steals)
    assert wars and all(isinstance(w, WarRound) for w in wars)
    assert game.result is not None and entry.result == game.result


def test_the_log_json_keeps_its_members() -> None:
    # A war, a steal-free variant: the members every entry has shown since the first version.
    rules = rules_of("classic", return_order="fixed")
    game = game_with(rules, ["8C 2C 3C 4C KH 5C", "8D 2D 3D 4D 4S 5D"])
    game.advance("battle")
    assert game.log is not None
    assert game.log[-1].to_dict() == {
        "battle": 1,
        "turned": ["8C", "8D"],
        "wars": [
            {"down": [["2C", "3C", "4C"], ["2D", "3D", "4D"]], "up": ["KH", "4S"], "standing": []}
        ],
        "winner": 0,
        "won": 10,
        "eliminated": [],
        "stocks": [11, 1],
    }
    hidden = game.log[-1].to_dict(reveal=False)
    assert hidden["wars"][0]["down"] == [3, 3]
    json.dumps(game.view(None))  # the views are JSON as before


def test_a_paused_battle_is_shown_as_it_stands() -> None:
    game = new_game("hand-of-three", seed="typed-table")
    game.advance("decision")
    table = game.view(0)["table"]
    assert table is not None and table["battle"] == 1
    assert "stocks" not in table  # counted only once the battle is over


def test_the_builder_writes_every_field_of_the_entry() -> None:
    # freeze() hands the builder's members over by name: the two must name the same fields,
    # with the same defaults where the builder leaves a member unset.
    entry_fields = {f.name: f.default for f in dataclasses.fields(BattleEntry)}
    written = set(EntryBuilder.__annotations__) | {"battle"}
    assert written == set(entry_fields)
    blank = EntryBuilder(7).freeze()
    assert blank == BattleEntry(7)
    assert {name: getattr(blank, name) for name in entry_fields if name != "battle"} == {
        name: default for name, default in entry_fields.items() if name != "battle"
    }
