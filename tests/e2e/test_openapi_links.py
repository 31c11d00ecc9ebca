"""The spec's OpenAPI links (casino/api/links.py): each names a real operation, fills only
parameters that operation has, and reads a value its source's answer really holds."""

from __future__ import annotations

from typing import Any

from casino.api.links import LINKS, unknown_operations

from .helpers import Api
from .test_openapi_contract import served_spec

FLOWS = [
    ("createPlayer", "deposit"),
    ("deposit", "listWallets"),
    ("createTable", "placeBet"),
    ("placeBet", "getRound"),
    ("placeBet", "decideRound"),
    ("createGame", "makeMove"),
    ("runSimulation", "getSimulation"),
    ("createGameSession", "exchangeLaunchCode"),
]


def _operations(spec: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each operation, with its path's parameters beside its own."""
    return {
        operation["operationId"]: {
            **operation,
            "parameters": [*item.get("parameters", []), *operation.get("parameters", [])],
        }
        for item in spec["paths"].values()
        for method, operation in item.items()
        if method != "parameters"
    }


def _resolve(spec: dict[str, Any], node: dict[str, Any]) -> dict[str, Any]:
    while True:
        if "$ref" in node:
            node = spec["components"]["schemas"][node["$ref"].rsplit("/", 1)[-1]]
        elif "allOf" in node and "properties" not in node:
            node = node["allOf"][0]
        else:
            return node


def _holds(spec: dict[str, Any], schema: dict[str, Any], pointer: str) -> bool:
    node = _resolve(spec, schema)
    for part in pointer.strip("/").split("/"):
        if part.isdigit():
            if node.get("type") != "array":
                return False
            node = _resolve(spec, node["items"])
        elif part in node.get("properties", {}):
            node = _resolve(spec, node["properties"][part])
        else:
            return False
    return True


def test_every_link_is_sound(api: Api) -> None:
    spec = served_spec(api)
    assert not unknown_operations(spec)
    operations = _operations(spec)
    found = set()
    for source, operation in operations.items():
        for status, response in operation["responses"].items():
            for link in (
                (response.get("links") or {}).values() if isinstance(response, dict) else ()
            ):
                target = operations[link["operationId"]]
                found.add((source, link["operationId"]))
                names = {p["name"] for p in target.get("parameters", []) if "name" in p}
                body = response["content"]["application/json"]["schema"]
                for name, expression in link.get("parameters", {}).items():
                    assert name in names, (source, status, link)
                    if expression.startswith("$response.body#"):
                        assert _holds(spec, body, expression.split("#", 1)[1]), (source, link)
                for expression in (link.get("requestBody") or {}).values():
                    assert "requestBody" in target, (source, link)
                    if expression.startswith("$response.body#"):
                        assert _holds(spec, body, expression.split("#", 1)[1]), (source, link)
    assert len(found) == len(LINKS)
    missing = [flow for flow in FLOWS if flow not in found]
    assert not missing, missing
