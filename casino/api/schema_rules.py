"""Rules across a request body's fields, declared once: the server enforces them and the spec
states them (so clients, generators and schemathesis know them).

A field's own rules (type, range, pattern, enum) are marshmallow validators that apispec
already writes into the spec. What spans several fields is declared here, on the schema
class, in ``BODY_RULES`` (``RequestSchema`` runs them): each rule validates a loaded body
(422 ``validation_failed``, like any field) and gives the JSON Schema keywords of OpenAPI
3.0 that say the same thing (``minProperties``, ``not``/``required``, ``anyOf``), which
``CasinoConverter`` merges into
the schema's document. Rules OpenAPI cannot say (one query parameter before another, a
cursor the server issued) are written in their operation's description instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import marshmallow as ma

RULES_ATTRIBUTE = "BODY_RULES"


class BodyRule(Protocol):
    def check(self, data: Mapping[str, Any]) -> None:
        """Raise ``ma.ValidationError`` when ``data`` breaks the rule."""

    def json_schema(self) -> dict[str, Any]:
        """JSON Schema keywords (OpenAPI 3.0) saying the rule."""


@dataclass(frozen=True)
class AtLeastOne:
    """At least one field given (a partial update that changes something)."""

    fields: tuple[str, ...]

    def check(self, data: Mapping[str, Any]) -> None:
        if not any(name in data for name in self.fields):
            raise ma.ValidationError(f"Give at least one of: {', '.join(self.fields)}.", "_schema")

    def json_schema(self) -> dict[str, Any]:
        return {
            "minProperties": 1,
            "anyOf": [{"required": [name]} for name in self.fields],
        }


@dataclass(frozen=True)
class NotBoth:
    """Two fields that exclude each other."""

    first: str
    second: str
    #: False where the domain refuses it itself, with its own problem code.
    enforce: bool = True

    def check(self, data: Mapping[str, Any]) -> None:
        if self.enforce and self.first in data and self.second in data:
            raise ma.ValidationError(
                f"Give either {self.first} or {self.second}, not both.", self.second
            )

    def json_schema(self) -> dict[str, Any]:
        return {"not": {"required": [self.first, self.second]}}


@dataclass(frozen=True)
class RequiredBy:
    """Which fields a value of the discriminating field needs (and which it forbids).

    ``cases`` maps each value of ``field`` to the one field it needs; the other cases'
    fields are forbidden with it.
    """

    field: str
    cases: Mapping[str, str]

    def check(self, data: Mapping[str, Any]) -> None:
        value = data.get(self.field)
        wanted = self.cases.get(value) if isinstance(value, str) else None
        if wanted is None:
            return  # the field's own validator refuses an unknown value
        for other in set(self.cases.values()) - {wanted}:
            if other in data:
                raise ma.ValidationError(f"Not for a {value}.", other)
        if wanted not in data:
            raise ma.ValidationError(f"Required for a {value}.", wanted)

    def json_schema(self) -> dict[str, Any]:
        needs: dict[str, list[str]] = {}
        for value, wanted in self.cases.items():
            needs.setdefault(wanted, []).append(value)
        branches = []
        for wanted, values in needs.items():
            others = sorted(set(self.cases.values()) - {wanted})
            branch: dict[str, Any] = {
                "properties": {self.field: {"enum": values}},
                "required": [self.field, wanted],
            }
            if others:
                branch["not"] = {"anyOf": [{"required": [other]} for other in others]}
            branches.append(branch)
        return {"oneOf": branches}


@dataclass(frozen=True)
class NeededBy:
    """A field that any of some others needs (money limits need their currency)."""

    needed: str
    by: tuple[str, ...]

    def check(self, data: Mapping[str, Any]) -> None:
        if self.needed not in data and any(name in data for name in self.by):
            raise ma.ValidationError(f"Required with {', '.join(self.by)}.", self.needed)

    def json_schema(self) -> dict[str, Any]:
        absent = {"not": {"anyOf": [{"required": [name]} for name in self.by]}}
        return {"anyOf": [absent, {"required": [self.needed]}]}


@dataclass(frozen=True)
class SwitchedOn:
    """A boolean switch: on, it needs ``needs``; off, it takes none of ``needs`` and
    ``fixed`` fields keep their default value (a disabled war tie bet has no max or pays)."""

    switch: str
    needs: tuple[str, ...]
    fixed: Mapping[str, Any]

    def check(self, data: Mapping[str, Any]) -> None:
        if data.get(self.switch):
            for name in self.needs:
                if name not in data:
                    raise ma.ValidationError(f"Required when {self.switch} is true.", name)
            return
        given = [name for name in self.needs if name in data]
        given += [name for name, value in self.fixed.items() if data.get(name, value) != value]
        if given:
            raise ma.ValidationError(
                f"Not when {self.switch} is false: {', '.join(sorted(given))}.", self.switch
            )

    #: False for an object nested in another body: openapi-python-client (the generated
    #: client test) cannot model a nested ``oneOf``; the schema's description says the rule.
    in_spec: bool = True

    def json_schema(self) -> dict[str, Any]:
        if not self.in_spec:
            return {}
        on = {"properties": {self.switch: {"enum": [True]}}, "required": [self.switch, *self.needs]}
        off: dict[str, Any] = {
            "properties": {
                self.switch: {"enum": [False]},
                **{name: {"enum": [value]} for name, value in self.fixed.items()},
            },
            "required": [self.switch],
        }
        if self.needs:
            off["not"] = {"anyOf": [{"required": [name]} for name in self.needs]}
        return {"oneOf": [on, off]}


def body_rules(schema: ma.Schema | type[ma.Schema]) -> tuple[BodyRule, ...]:
    """The rules a request schema declares in its ``BODY_RULES``."""
    cls = schema if isinstance(schema, type) else type(schema)
    return tuple(getattr(cls, RULES_ATTRIBUTE, ()))


def check_body_rules(schema: ma.Schema, data: Mapping[str, Any]) -> None:
    for rule in body_rules(schema):
        rule.check(data)


def merge_json_schema(schema: ma.Schema | type[ma.Schema], document: dict[str, Any]) -> None:
    """Add the schema's rules to its JSON Schema ``document`` (several ``anyOf``/``oneOf``
    are combined under ``allOf``)."""
    parts = [rule.json_schema() for rule in body_rules(schema)]
    combined: list[dict[str, Any]] = []
    for part in parts:
        for key, value in part.items():
            if key in ("anyOf", "oneOf", "not"):
                combined.append({key: value})
            elif key == "minProperties":
                document[key] = max(document.get(key, 0), value)
            else:
                document[key] = value
    if len(combined) == 1:
        document.update(combined[0])
    elif combined:
        document["allOf"] = [*document.get("allOf", []), *combined]


def body_is_required(schema: ma.Schema | type[ma.Schema]) -> bool:
    """Whether an empty body is refused: some field is required, or a rule needs one."""
    instance = schema() if isinstance(schema, type) else schema
    if any(field.required for field in instance.fields.values()):
        return True
    return any("minProperties" in rule.json_schema() for rule in body_rules(schema))
