"""The certification kit (``casino wallet-check``): the checks an operator runs against its
wallet before going live, and a table of their verdicts."""

from __future__ import annotations

# The checks register themselves, in this order, when their modules are imported.
from casino.wallet.check import money_checks, request_checks  # noqa: F401
from casino.wallet.check.kit import KitOptions
from casino.wallet.check.registry import CHECKS, FAIL, PASS, SKIP, Result, run_checks

__all__ = ["CHECKS", "FAIL", "PASS", "SKIP", "KitOptions", "Result", "run_checks"]
