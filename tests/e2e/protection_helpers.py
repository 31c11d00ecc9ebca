"""Shared by the player protection tests: an injectable clock, an app that reads it, and
steering of several deals ahead."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask

from casino import create_app
from casino.api.database import EXTENSION_KEY
from casino.engine.casino_war import CasinoWarDeal, deal_casino_war

from .helpers import Api, Player, active_server_seed, make_config

#: A Wednesday, noon UTC: the day, week and month periods all have room on both sides.
START = datetime(2031, 3, 5, 12, 0, tzinfo=UTC)


@dataclass
class Clock:
    """The service's clock in these tests: moved by hand, never slept on."""

    now: datetime = field(default=START)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now

    def at(self, moment: datetime) -> datetime:
        self.now = moment
        return moment


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def clocked_app(database_url: str, clock: Clock) -> Iterator[Flask]:
    """The app on the test's database, with the test's clock."""
    app = create_app(make_config(database_url, CASINO_CLOCK=clock))
    yield app
    app.extensions[EXTENSION_KEY].engine.dispose()


@pytest.fixture
def capi(clocked_app: Flask) -> Api:
    return Api(clocked_app.test_client())


@pytest.fixture
def gambler(capi: Api) -> Player:
    """A player with 1,000,000 EUR minor units at a 'classic' table taking bets in tens."""
    capi.create_table("classic", min_ante=10, bet_increment=10)
    someone = capi.create_player()
    capi.deposit(someone, 1_000_000)
    return someone


def steer_deals(
    api: Api,
    database_url: str,
    player: Player,
    wanted: Callable[[list[CasinoWarDeal]], bool],
    count: int,
    decks: int = 6,
) -> list[CasinoWarDeal]:
    """Set a client seed under which the player's next ``count`` deals satisfy ``wanted``;
    those deals, in nonce order."""
    server_seed, nonce = active_server_seed(database_url, player.id)
    for attempt in range(100_000):
        client_seed = f"ahead-{attempt}"
        deals = [deal_casino_war(server_seed, client_seed, nonce + i, decks) for i in range(count)]
        if wanted(deals):
            response = api.put(
                f"/api/v1/players/{player.id}/seeds/client",
                {"client_seed": client_seed},
                auth=player.auth,
            )
            assert response.status_code == 200, response.get_json()
            return deals
    raise AssertionError("no client seed gives the wanted deals")


def set_limits(api: Api, player: Player, body: dict[str, Any], auth: Any = None) -> Any:
    response = api.put(f"/api/v1/players/{player.id}/limits", body, auth=auth or api.operator_auth)
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def money_limit(limits: dict[str, Any], kind: str, period: str) -> dict[str, Any] | None:
    found = [m for m in limits["money"] if (m["limit"], m["period"]) == (kind, period)]
    return found[0] if found else None
