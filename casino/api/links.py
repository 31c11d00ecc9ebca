"""OpenAPI ``links``: which operation's answer feeds which operation, in one table.

A client (and schemathesis' stateful phase) follows them to walk the real flows: a player is
created, funded, bets, reads its round and decides it; a table is created and played at; a
free-play game is created and moved; a simulation is polled; a launch code is exchanged.
``LinksPlugin`` writes each row into its source operation's success response; a row naming
an operation that does not exist fails the spec's build, so the table cannot go stale.
Operations added later get links by adding rows here. Lists do not link to their items: a
filtered page is mostly empty, and a link with nothing to follow only spends a walk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from apispec import BasePlugin


@dataclass(frozen=True)
class Link:
    source: str  # operationId whose response feeds ...
    status: str  # ... through this success response ...
    target: str  # ... this operationId
    parameters: dict[str, str] = field(default_factory=dict)
    request_body: dict[str, str] | None = None
    description: str = ""

    @property
    def name(self) -> str:
        return self.target[0].upper() + self.target[1:]


def _id(name: str = "id") -> str:
    return f"$response.body#/{name}"


_PLAYER = {"player_id": _id()}
_PLAYER_OPERATIONS = (
    "getPlayer",
    "deposit",
    "withdraw",
    "listWallets",
    "listTransactions",
    "getSeeds",
    "setClientSeed",
    "rotateSeeds",
    "reissuePlayerToken",
    "getLimits",
    "setLimits",
    "getProtection",
    "excludePlayer",
    "suspendPlayer",
    "closePlayer",
    "getStatement",
    "createGameSession",
    "listGameSessions",
)
_ROUND = {"round_id": _id()}
_GAME = {"game_id": _id()}

LINKS: tuple[Link, ...] = (
    # player -> its money, seeds, protection, sessions
    *(Link("createPlayer", "201", target, _PLAYER) for target in _PLAYER_OPERATIONS),
    # a deposit -> the wallet it credited, a bet at the player's table
    Link("deposit", "201", "listWallets", {"player_id": "$request.path.player_id"}),
    Link("deposit", "201", "listTransactions", {"player_id": "$request.path.player_id"}),
    # table -> its rounds
    Link("createTable", "201", "getTable", {"table_id": _id()}),
    Link("createTable", "201", "updateTable", {"table_id": _id()}),
    Link("createTable", "201", "placeBet", request_body={"table_id": _id()}),
    # bet -> round -> decision
    Link("placeBet", "201", "getRound", _ROUND),
    Link("placeBet", "201", "decideRound", _ROUND),
    Link("getRound", "200", "decideRound", {"round_id": "$request.path.round_id"}),
    # free-play game -> its moves
    Link("createGame", "201", "getGame", _GAME),
    Link("createGame", "201", "makeMove", _GAME),
    Link("createGame", "201", "autoplayGame", _GAME),
    Link("makeMove", "200", "getGame", {"game_id": "$request.path.game_id"}),
    # simulation -> poll
    Link("runSimulation", "202", "getSimulation", {"simulation_id": _id()}),
    # session -> launch code exchange -> the session
    Link(
        "createGameSession",
        "201",
        "exchangeLaunchCode",
        request_body={"code": "$response.body#/launch_code"},
    ),
    Link(
        "launchGameSession",
        "201",
        "exchangeLaunchCode",
        request_body={"code": _id("launch_code")},
    ),
    Link("createGameSession", "201", "revokeGameSession", {"session_id": _id()}),
    # operators
    Link("createOperator", "201", "getOperator", {"operator_id": _id()}),
    Link("createOperator", "201", "updateOperator", {"operator_id": _id()}),
)


def _link_object(link: Link) -> dict[str, Any]:
    document: dict[str, Any] = {"operationId": link.target}
    if link.parameters:
        document["parameters"] = dict(link.parameters)
    if link.request_body is not None:
        document["requestBody"] = dict(link.request_body)
    if link.description:
        document["description"] = link.description
    return document


class LinksPlugin(BasePlugin):
    """Writes ``LINKS`` into the spec's success responses."""

    def __init__(self, links: tuple[Link, ...] = LINKS) -> None:
        self.links = links
        self.seen: set[str] = set()

    def operation_helper(
        self, path: str | None = None, operations: dict[str, Any] | None = None, **_: Any
    ) -> None:
        for operation in (operations or {}).values():
            if not isinstance(operation, dict) or "operationId" not in operation:
                continue
            self.seen.add(operation["operationId"])
            for link in self.links:
                if link.source != operation["operationId"]:
                    continue
                responses = operation.get("responses", {})
                # flask-smorest keys them by int or str, depending on how they were declared.
                response = responses.get(link.status, responses.get(int(link.status)))
                if not isinstance(response, dict):
                    raise ValueError(f"link {link}: {link.source} has no {link.status} response")
                response.setdefault("links", {})[link.name] = _link_object(link)


def unknown_operations(spec: dict[str, Any], links: tuple[Link, ...] = LINKS) -> set[str]:
    """Operation ids the table names that the spec does not have."""
    known = {
        operation.get("operationId")
        for item in spec.get("paths", {}).values()
        for operation in item.values()
        if isinstance(operation, dict)
    }
    return {name for link in links for name in (link.source, link.target)} - known
