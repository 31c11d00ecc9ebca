"""The certification checks, in the order they run, and running them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from casino.wallet.check.kit import CheckFailed, Kit, KitOptions

PASS = "pass"
FAIL = "FAIL"
SKIP = "skip"


@dataclass(frozen=True)
class Check:
    name: str
    run: Callable[[Kit], None]
    #: The KitOptions field an optional check needs; a required check needs none.
    needs: str | None = None


@dataclass(frozen=True)
class Result:
    name: str
    verdict: str
    detail: str = ""


CHECKS: list[Check] = []


def check(
    name: str, needs: str | None = None
) -> Callable[[Callable[[Kit], None]], Callable[[Kit], None]]:
    def register(run: Callable[[Kit], None]) -> Callable[[Kit], None]:
        CHECKS.append(Check(name, run, needs))
        return run

    return register


def run_checks(
    options: KitOptions, only: set[str] | None = None
) -> tuple[list[Result], int | None]:
    """Every check (or those named in ``only``) against the wallet, in order: the results,
    and the test player's balance change over the run (None if it could not be read)."""
    kit = Kit(options)
    results = []
    try:
        start = _balance(kit)
        for item in CHECKS:
            if only is not None and item.name not in only:
                continue
            if item.needs is not None and getattr(options, item.needs) is None:
                results.append(
                    Result(item.name, SKIP, f"optional: give --{item.needs.replace('_', '-')}")
                )
                continue
            results.append(_run(kit, item))
        end = _balance(kit)
    finally:
        kit.close()
    change = None if start is None or end is None else end - start
    return results, change


def _run(kit: Kit, item: Check) -> Result:
    try:
        item.run(kit)
    except CheckFailed as failure:
        return Result(item.name, FAIL, str(failure))
    except Exception as error:  # a broken wallet may break the kit's expectations anywhere
        return Result(item.name, FAIL, f"{type(error).__name__}: {error}")
    return Result(item.name, PASS)


def _balance(kit: Kit) -> int | None:
    try:
        return kit.balance()
    except CheckFailed:
        return None
