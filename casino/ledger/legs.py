"""Legs of a transaction and the transfers that make them: pure bookkeeping.

A leg is a signed amount to one account (positive = credit). A transfer of a positive
amount is two legs; a transfer of 0 is none, so a settlement leaves out what is not paid.
"""

from __future__ import annotations

from dataclasses import dataclass

from casino.ledger.errors import Unbalanced


@dataclass(frozen=True)
class Leg:
    """``amount`` (signed, non-zero) to the account with key ``account``."""

    account: str
    amount: int


def transfer(source: str, target: str, amount: int) -> list[Leg]:
    """The two legs moving ``amount`` from ``source`` to ``target`` (none for 0)."""
    if amount < 0:
        raise Unbalanced("a transfer moves a positive amount")
    if amount == 0:
        return []
    return [Leg(source, -amount), Leg(target, amount)]


def most_drawn(legs: list[Leg] | tuple[Leg, ...], account: str) -> int:
    """The most ``account`` is ever down while the legs are applied in order: what it must
    hold before they are (a stake leaves before its winnings arrive)."""
    running = lowest = 0
    for leg in legs:
        if leg.account == account:
            running += leg.amount
            lowest = min(lowest, running)
    return -lowest
