"""The reference operator wallet (``casino demo-wallet``): the protocol's rules on its own
SQLite database, served over HTTP, with injected faults and deliberately broken modes."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from casino.wallet.demo.broken import BROKEN
from casino.wallet.demo.faults import FaultPlan, Faults
from casino.wallet.demo.server import DemoWalletServer
from casino.wallet.demo.store import DemoStore
from casino.wallet.demo.wallet import DemoWallet


def build_server(
    secrets: Sequence[bytes],
    database: str | Path = ":memory:",
    host: str = "127.0.0.1",
    port: int = 0,
    faults: Faults | None = None,
    broken: str | None = None,
) -> DemoWalletServer:
    """A wallet server bound to ``host:port`` (0: any free port), not yet serving."""
    if broken is not None and broken not in BROKEN:
        raise ValueError(f"no broken mode {broken!r}: one of {', '.join(BROKEN)}")
    kind = DemoWallet if broken is None else BROKEN[broken]
    wallet = kind(DemoStore(database), secrets)
    return DemoWalletServer((host, port), wallet, faults)


__all__ = [
    "BROKEN",
    "DemoStore",
    "DemoWallet",
    "DemoWalletServer",
    "FaultPlan",
    "Faults",
    "build_server",
]
