"""A request schema's cross-field rules: what the server refuses is what the spec says.

For every request schema declaring ``BODY_RULES``, bodies made of any subset of the fields
the rules name (with values each field accepts) are loaded by the schema and validated
against the schema's JSON Schema document as the spec states it: both accept, or both
refuse.
"""

from __future__ import annotations

import itertools
from typing import Any

import marshmallow as ma
import pytest
from apispec import APISpec
from jsonschema import Draft4Validator

from casino.api.openapi import CasinoMarshmallowPlugin
from casino.api.schema_rules import AtLeastOne, NeededBy, NotBoth, RequiredBy, body_rules
from casino.api.schemas_free_play import GameCreateSchema
from casino.api.schemas_operators import OperatorUpdateSchema
from casino.api.schemas_protection import ExclusionInputSchema, LimitsInputSchema
from casino.api.schemas_tables import TableUpdateSchema

# A value each field accepts on its own.
VALUES: dict[str, list[Any]] = {
    "rules": [{"decks": 6}],
    "active": [True],
    "name": ["Casino"],
    "currencies": [["EUR"]],
    "wallet": [{"mode": "transfer"}],
    "kind": ["cool_off", "self_exclusion"],
    "days": [7],
    "months": [6],
    "currency": ["EUR"],
    "deposit": [{"day": 100}],
    "loss": [{"week": 100}],
    "wager": [{"month": 100}],
    "variant": ["classic"],
    "seats": [[{"type": "human"}, {"type": "computer"}]],
    "human_seat": [0],
}
SCHEMAS = [
    TableUpdateSchema,
    OperatorUpdateSchema,
    ExclusionInputSchema,
    LimitsInputSchema,
    GameCreateSchema,
]


def _document(schema: type[ma.Schema]) -> dict[str, Any]:
    plugin = CasinoMarshmallowPlugin()
    APISpec("t", "1", "3.0.3", plugins=[plugin])
    assert plugin.converter is not None
    document: dict[str, Any] = plugin.converter.schema2jsonschema(schema())
    # Each field's own schema is checked elsewhere; here only what spans the fields.
    document["properties"] = {key: {} for key in document["properties"]}
    return document


def _named(schema: type[ma.Schema]) -> list[str]:
    names: list[str] = []
    for rule in body_rules(schema):
        if isinstance(rule, AtLeastOne):
            names += rule.fields
        elif isinstance(rule, NotBoth):
            names += [rule.first, rule.second]
        elif isinstance(rule, RequiredBy):
            names += [rule.field, *rule.cases.values()]
        elif isinstance(rule, NeededBy):
            names += [rule.needed, *rule.by]
    required = [name for name, field in schema().fields.items() if field.required]
    return list(dict.fromkeys([*required, *names]))


def _bodies(schema: type[ma.Schema]) -> list[dict[str, Any]]:
    names = _named(schema)
    bodies = []
    for size in range(len(names) + 1):
        for chosen in itertools.combinations(names, size):
            for values in itertools.product(*(VALUES[name] for name in chosen)):
                bodies.append(dict(zip(chosen, values, strict=True)))
    return bodies


@pytest.mark.parametrize("schema", SCHEMAS, ids=lambda s: s.__name__)
def test_the_spec_refuses_what_the_server_refuses(schema: type[ma.Schema]) -> None:
    assert body_rules(schema), "the schema declares its rules"
    validator = Draft4Validator(_document(schema))
    # Rules the domain enforces with its own code are stated, not checked, by the schema.
    domain = any(isinstance(r, NotBoth) and not r.enforce for r in body_rules(schema))
    for body in _bodies(schema):
        try:
            schema().load(body)
            server = True
        except ma.ValidationError:
            server = False
        spec = validator.is_valid(body)
        if domain:
            assert spec or not server or "seats" in body, body
        else:
            assert server == spec, (body, server, spec)


def test_a_body_with_a_rule_needing_a_field_is_required_in_the_spec() -> None:
    from casino.api.schema_rules import body_is_required

    assert body_is_required(TableUpdateSchema)
    assert body_is_required(ExclusionInputSchema)
    assert not body_is_required(LimitsInputSchema)  # an empty body changes nothing
