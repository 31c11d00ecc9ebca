"""A wallet written from docs/integration.md alone (docwallet.py, which imports nothing of
casino) passes the certification kit: the page is enough to build a wallet."""

from __future__ import annotations

import ast
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from casino.wallet.check import PASS

from .conftest import CURRENCY, PLAYER, SECRET, failed, kit
from .docwallet import DocWallet, DocWalletServer


@pytest.fixture
def doc_wallet() -> Iterator[DocWalletServer]:
    wallet = DocWallet(SECRET)
    wallet.balances[(PLAYER, CURRENCY)] = 50_000
    wallet.balances[("blocked-one", CURRENCY)] = 50_000
    wallet.blocked.add("blocked-one")
    wallet.expired_sessions.add("old-session")
    server = DocWalletServer(wallet)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


def test_the_doc_only_wallet_imports_nothing_of_casino() -> None:
    tree = ast.parse((Path(__file__).parent / "docwallet.py").read_text())
    modules = [
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    ] + [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    assert modules and not [name for name in modules if name.startswith("casino")]


def test_a_wallet_built_from_the_page_alone_passes_the_kit(doc_wallet: DocWalletServer) -> None:
    results, change = kit(
        doc_wallet.url, expired_session="old-session", blocked_player="blocked-one"
    )
    assert failed(results) == {}
    assert {result.verdict for result in results.values()} == {PASS}
    assert change == 0
    assert doc_wallet.wallet.balances[(PLAYER, CURRENCY)] == 50_000
