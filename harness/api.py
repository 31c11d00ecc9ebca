"""The issue-3 REST contract as plain calls; each returns the raw ``Reply``.

Nothing here retries: retry policy is the caller's (``load.send_until_answered``), so tests
can also observe single attempts.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from harness.http import Reply, request

PREFIX = "/api/v1"

#: Rules of the table the harness plays on: the demo seed's ``classic`` table.
CLASSIC_RULES: dict[str, Any] = {
    "decks": 6,
    "min_ante": 100,
    "max_ante": 500_000,
    "bet_increment": 100,
    "max_tie_bet": 100_000,
    "tie_pays": 10,
    "war_tie_bonus": False,
    "surrender_allowed": True,
}


def new_key() -> str:
    return str(uuid.uuid4())


@dataclass(frozen=True)
class Call:
    """One request as data, so it can be re-sent verbatim with its Idempotency-Key."""

    method: str
    path: str
    token: str
    body: Any = None
    key: str | None = None

    def send(self, base_url: str, timeout: float = 30.0, keep_alive: bool = False) -> Reply:
        headers = {"Idempotency-Key": self.key} if self.key else None
        return request(
            base_url,
            self.method,
            PREFIX + self.path,
            token=self.token,
            json_body=self.body,
            headers=headers,
            timeout=timeout,
            keep_alive=keep_alive,
        )

    def with_body(self, body: Any) -> Call:
        return Call(self.method, self.path, self.token, body, self.key)


def create_player(token: str, external_ref: str, display_name: str | None = None) -> Call:
    body: dict[str, Any] = {"external_ref": external_ref}
    if display_name is not None:
        body["display_name"] = display_name
    return Call("POST", "/players", token, body)


def deposit(
    token: str,
    player_id: str,
    amount: int,
    reference: str,
    currency: str = "EUR",
    key: str | None = None,
) -> Call:
    body = {"currency": currency, "amount": amount, "reference": reference}
    return Call("POST", f"/players/{player_id}/deposits", token, body, key or new_key())


def withdraw(
    token: str,
    player_id: str,
    amount: int,
    reference: str,
    currency: str = "EUR",
    key: str | None = None,
) -> Call:
    body = {"currency": currency, "amount": amount, "reference": reference}
    return Call("POST", f"/players/{player_id}/withdrawals", token, body, key or new_key())


def wallets(token: str, player_id: str) -> Call:
    return Call("GET", f"/players/{player_id}/wallets", token)


def transactions(token: str, player_id: str, limit: int = 20) -> Call:
    return Call("GET", f"/players/{player_id}/transactions?limit={limit}", token)


def create_table(
    token: str, table_id: str, currency: str = "EUR", rules: dict[str, Any] | None = None
) -> Call:
    body = {"id": table_id, "currency": currency, "rules": dict(rules or CLASSIC_RULES)}
    return Call("POST", "/tables", token, body)


def place_bet(
    token: str, table_id: str, ante: int, tie_bet: int = 0, key: str | None = None
) -> Call:
    body: dict[str, Any] = {"table_id": table_id, "ante": ante}
    if tie_bet:
        body["tie_bet"] = tie_bet
    return Call("POST", "/rounds", token, body, key or new_key())


def decide(token: str, round_id: str, action: str, key: str | None = None) -> Call:
    return Call("POST", f"/rounds/{round_id}/decision", token, {"action": action}, key or new_key())


def get_round(token: str, round_id: str) -> Call:
    return Call("GET", f"/rounds/{round_id}", token)


def list_rounds(
    token: str,
    status: str | None = None,
    player_id: str | None = None,
    limit: int = 50,
    cursor: str | None = None,
) -> Call:
    query = [f"limit={limit}"]
    if status:
        query.append(f"status={status}")
    if player_id:
        query.append(f"player_id={player_id}")
    if cursor:
        query.append(f"cursor={cursor}")
    return Call("GET", "/rounds?" + "&".join(query), token)


def page_items(body: Any) -> tuple[list[Any], str | None]:
    """Items and next cursor of a list response (a page object or a bare list)."""
    if isinstance(body, list):
        return body, None
    if isinstance(body, dict):
        items = body.get("items")
        return (items if isinstance(items, list) else []), body.get("next_cursor")
    return [], None
