"""One wallet client per seamless operator, shared by every request and worker thread of a
process (casino.wallet.client is thread-safe and pools its connections).

Tests replace how clients are made (``use_factory``) to give an operator a fake wallet.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime

from casino.store.operator_records import OperatorRecord
from casino.wallet.client import WalletCalls, WalletClient

Factory = Callable[[OperatorRecord, tuple[bytes, ...]], WalletCalls]


def _client(operator: OperatorRecord, secrets: tuple[bytes, ...]) -> WalletCalls:
    settings = operator.seamless
    assert settings is not None
    return WalletClient(settings.url, operator.id, secrets, timeout_ms=settings.timeout_ms)


_lock = threading.Lock()
_clients: dict[tuple[object, ...], WalletCalls] = {}
_factory: Factory = _client


def client_for(operator: OperatorRecord, now: datetime) -> WalletCalls:
    """The client of ``operator``'s wallet as configured now (a changed URL, secret or
    timeout makes a new one)."""
    settings = operator.seamless
    if settings is None:
        raise ValueError(f"operator {operator.id!r} has no seamless wallet")
    secrets = settings.secrets_at(now)
    key = (operator.id, settings.url, secrets, settings.timeout_ms, _factory)
    with _lock:
        found = _clients.get(key)
        if found is None:
            found = _clients[key] = _factory(operator, secrets)
        return found


def use_factory(factory: Factory | None) -> None:
    """Make clients with ``factory`` from now on (None: the real client); forgets them all."""
    global _factory
    with _lock:
        _factory = factory or _client
        _clients.clear()
