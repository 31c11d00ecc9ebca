"""A seamless operator against the reference wallet, for the seamless tests."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask

from casino.api.database import EXTENSION_KEY
from casino.store.uow import UnitOfWork
from casino.wallet.demo import DemoWalletServer, build_server

from .helpers import Api, Player

SECRET = "seamless-test-secret-0123456789abcdef"
FUNDS = 100_000


@dataclass
class Seamless:
    api: Api
    app: Flask
    wallet: DemoWalletServer
    auth: dict[str, str]

    def launch(self, ref: str = "alice", funds: int | None = FUNDS) -> Player:
        if funds is not None:
            self.wallet.wallet.store.create_account(ref, "EUR", funds)
        made = self.api.post(
            "/api/v1/sessions",
            {"player": ref, "currency": "EUR", "table_id": "classic", "operator_session": "s-1"},
            auth=self.auth,
        )
        assert made.status_code == 201, made.get_json()
        body = made.get_json()
        exchanged = self.api.post("/api/v1/sessions/exchange", {"code": body["launch_code"]})
        assert exchanged.status_code == 200, exchanged.get_json()
        return Player(body["player_id"], exchanged.get_json()["token"], ref)

    def operator_balance(self, ref: str = "alice") -> int:
        account = self.wallet.wallet.store.account(ref, "EUR")
        assert account is not None
        return int(account.balance)

    def uow(self) -> UnitOfWork:
        return self.app.extensions[EXTENSION_KEY].unit_of_work("acme")

    def bet(self, player: Player, ante: int = 100, key: str | None = None, **more: Any) -> Any:
        from .helpers import new_key

        body = {"table_id": "classic", "ante": ante, **more}
        return self.api.post("/api/v1/rounds", body, auth=player.auth, key=key or new_key())

    def play(self, player: Player, ante: int = 100, action: str = "war") -> dict[str, Any]:
        """One round to its end (a tie decided with ``action``)."""
        from .helpers import new_key

        made = self.bet(player, ante)
        assert made.status_code == 201, made.get_json()
        body = dict(made.get_json())
        if body["status"] == "awaiting_decision":
            decided = self.api.post(
                f"/api/v1/rounds/{body['id']}/decision",
                {"action": action},
                auth=player.auth,
                key=new_key(),
            )
            assert decided.status_code == 200, decided.get_json()
            body = dict(decided.get_json())
        return body


@pytest.fixture(name="seamless")
def seamless_fixture(api: Api, app: Flask) -> Iterator[Seamless]:
    server = build_server([SECRET.encode()], ":memory:")
    server.start()
    try:
        made = api.post(
            "/api/v1/operators",
            {
                "id": "acme",
                "name": "Acme",
                "currencies": ["EUR"],
                "wallet": {"mode": "seamless", "url": server.url, "secret": SECRET},
            },
            auth=api.platform_auth,
        )
        assert made.status_code == 201, made.get_json()
        auth = {"Authorization": f"Bearer {made.get_json()['token']}"}
        assert (
            api.post("/api/v1/tables", {"id": "classic", "currency": "EUR"}, auth=auth).status_code
            == 201
        )
        yield Seamless(api, app, server, auth)
    finally:
        server.stop()
