"""A reference wallet served on a free port for each test, with a funded test player."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from casino.wallet.check import FAIL, KitOptions, Result, run_checks
from casino.wallet.demo import DemoWalletServer, Faults, build_server
from casino.wallet.demo.admin import DemoAdmin

SECRET = b"integration-test-secret-0123456789"
PLAYER = "kit-player"
CURRENCY = "EUR"
FUNDS = 100_000

MakeWallet = Callable[..., DemoWalletServer]


@pytest.fixture
def demo_wallet() -> Iterator[MakeWallet]:
    """``demo_wallet(broken=None, faults=None)``: a started reference wallet."""
    servers: list[DemoWalletServer] = []

    def make(broken: str | None = None, faults: Faults | None = None) -> DemoWalletServer:
        server = build_server([SECRET], ":memory:", faults=faults, broken=broken)
        server.wallet.store.create_account(PLAYER, CURRENCY, FUNDS)
        server.start()
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


@pytest.fixture
def admin() -> Callable[[DemoWalletServer], DemoAdmin]:
    return lambda server: DemoAdmin(server.url, [SECRET])


def kit(url: str, **options: object) -> tuple[dict[str, Result], int | None]:
    """The kit's results by check name, and the test player's balance change."""
    settings = {"secret": SECRET, "player": PLAYER, "currency": CURRENCY, "timeout_ms": 2000}
    results, change = run_checks(KitOptions(url=url, **(settings | options)))  # type: ignore[arg-type]
    return {result.name: result for result in results}, change


def failed(results: dict[str, Result]) -> dict[str, str]:
    return {name: result.detail for name, result in results.items() if result.verdict == FAIL}
