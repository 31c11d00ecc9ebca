"""What a test does when a service it needs (a browser, Redis, PostgreSQL) is missing.

On a developer's machine without it, the test is skipped and says why. Where the service is
required (CI sets ``CASINO_REQUIRE_BROWSER``, ``CASINO_REQUIRE_REDIS`` and
``CASINO_REQUIRE_POSTGRES`` to 1 after starting them), the same absence fails the test, so a
green run can never hide a test that did not run.
"""

from __future__ import annotations

import os
from typing import NoReturn

import pytest


def missing(reason: str, required_by: str) -> NoReturn:
    """Fail when ``required_by`` is 1 in the environment, else skip, with ``reason``."""
    if os.environ.get(required_by) != "1":
        pytest.skip(reason)
    pytest.fail(f"{required_by}=1 but {reason}", pytrace=False)
