"""Every problem ``code`` the code base raises is in ``casino.api.errors.PROBLEM_CODES``.

That tuple is the enum of ``Problem.code`` in the OpenAPI spec, so a generated client knows
every code it can get. The source is read, not run: each place a code is given - the
``code=`` of an error, the ``code = "..."`` of an error class, the code argument of
``ApiError(...)`` / ``problem(...)`` - must give a literal, or pass on a parameter whose every
caller in the module gives one. A code built at run time (an f-string) fails here.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import casino
from casino.api import errors
from casino.api.errors import PROBLEM_CODES

SOURCE = Path(casino.__file__).parent
# Calls whose second positional argument is a problem code.
CODE_ARGUMENT_CALLS = {"ApiError": 1, "problem": 1}
# The mapper passes on codes it was given (checked where they were raised) or its own table.
MAPPER = Path(errors.__file__)


@dataclass(frozen=True)
class Found:
    where: str
    code: str | None  # None: not a literal and not resolvable
    text: str


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}


def _enclosing(tree: ast.Module) -> dict[ast.AST, ast.FunctionDef]:
    owner: dict[ast.AST, ast.FunctionDef] = {}
    for func in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
        for child in ast.walk(func):
            owner.setdefault(child, func)
    return owner


def _arguments_for(tree: ast.Module, func: ast.FunctionDef, param: str) -> list[ast.expr]:
    """What every call of ``func`` in the module passes as ``param``."""
    names = [a.arg for a in (*func.args.posonlyargs, *func.args.args)]
    position = names.index(param) if param in names else None
    passed: list[ast.expr] = []
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        if _call_name(call) != func.name:
            continue
        keyword = next((k.value for k in call.keywords if k.arg == param), None)
        if keyword is not None:
            passed.append(keyword)
        elif position is not None and position < len(call.args):
            passed.append(call.args[position])
    return passed


def _resolve(tree: ast.Module, owner: dict[ast.AST, ast.FunctionDef], value: ast.expr) -> list:
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return [value.value]
    func = owner.get(value)
    if isinstance(value, ast.Name) and func is not None:
        passed = _arguments_for(tree, func, value.id)
        if passed and all(isinstance(p, ast.Constant) for p in passed):
            return [p.value for p in passed if isinstance(p, ast.Constant)]
    return [None]


def raised_codes() -> Iterator[Found]:
    for path in sorted(SOURCE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        owner = _enclosing(tree)
        for node in ast.walk(tree):
            where = f"{path.relative_to(SOURCE.parent)}:{getattr(node, 'lineno', 0)}"
            values: list[ast.expr] = []
            if isinstance(node, ast.Call):
                values += [k.value for k in node.keywords if k.arg == "code"]
                index = CODE_ARGUMENT_CALLS.get(_call_name(node))
                if index is not None and len(node.args) > index and path != MAPPER:
                    values.append(node.args[index])
            elif isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    targets = stmt.targets if isinstance(stmt, ast.Assign) else []
                    value = getattr(stmt, "value", None)
                    # (A schema's ``code = fields.String(...)`` is a field, not a code.)
                    if isinstance(value, ast.Call):
                        continue
                    if any(isinstance(t, ast.Name) and t.id == "code" for t in targets):
                        values.append(value)
            for value in values:
                for code in _resolve(tree, owner, value):
                    yield Found(where, code, ast.unparse(value))


def test_the_scan_finds_codes_of_every_kind() -> None:
    """The scan itself works: class codes, code= keywords, ApiError arguments, passed-on
    parameters (players' text checks) are all seen."""
    codes = {found.code for found in raised_codes()}
    for expected in (
        "invalid_rules",  # class attribute (engine)
        "insufficient_funds",  # code= (service)
        "malformed_json",  # ApiError's argument (API)
        "idempotency_key_required",
        "invalid_external_ref",  # a literal passed to a helper's code parameter
        "invalid_display_name",
        "illegal_move",
    ):
        assert expected in codes, expected


def test_every_raised_code_is_a_declared_problem_code() -> None:
    found = list(raised_codes())
    dynamic = [f"{f.where}: {f.text}" for f in found if f.code is None]
    assert not dynamic, "codes must be literals where they are raised:\n" + "\n".join(dynamic)
    missing = sorted({f"{f.code} ({f.where})" for f in found if f.code not in PROBLEM_CODES})
    assert not missing, "add these to casino.api.errors._RAISED_CODES:\n" + "\n".join(missing)


def test_every_declared_domain_code_is_raised_somewhere() -> None:
    """No stale entries: a code nobody raises any more leaves the enum."""
    raised = {found.code for found in raised_codes()}
    assert sorted(set(errors._RAISED_CODES) - raised) == []


def test_problem_codes_are_unique_snake_case() -> None:
    assert len(PROBLEM_CODES) == len(set(PROBLEM_CODES))
    for code in PROBLEM_CODES:
        assert code.replace("_", "").isalnum() and code == code.lower(), code
    # The plain HTTP errors werkzeug may raise are covered too, with readable codes.
    assert {"not_found", "method_not_allowed", "request_timeout", "gateway_timeout"} <= set(
        PROBLEM_CODES
    )
