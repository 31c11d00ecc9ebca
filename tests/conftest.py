"""Suite-wide rules for the ``postgres`` marker.

PostgreSQL tests run wherever ``CASINO_TEST_POSTGRES_URL`` is set (``make test`` sets it when
a server answers on 127.0.0.1:5432, and CI always does). With ``CASINO_REQUIRE_POSTGRES=1``
(CI) a missing URL is an error rather than a skip, so CI can never pass with them unrun.
"""

from __future__ import annotations

import os

import pytest

# Every test runs with seamless operators' wallet secrets sealed at rest, as production should
# (casino.store.secret_box): the seamless tests sign with secrets that went through sealing and
# opening, and the servers, dealers and workers the tests start inherit the key.
TEST_WALLET_SECRETS_KEY = "5a" * 32
os.environ.setdefault("CASINO_WALLET_SECRETS_KEY", TEST_WALLET_SECRETS_KEY)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("CASINO_TEST_POSTGRES_URL"):
        return
    if os.environ.get("CASINO_REQUIRE_POSTGRES") == "1":
        raise pytest.UsageError("CASINO_REQUIRE_POSTGRES=1 but CASINO_TEST_POSTGRES_URL is unset")
    reason = "CASINO_TEST_POSTGRES_URL is not set (no PostgreSQL on this machine)"
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(pytest.mark.skipif(True, reason=reason))
