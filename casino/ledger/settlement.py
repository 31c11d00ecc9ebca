"""The money of a Casino War round as ledger legs: pure bookkeeping.

Gross legs, so the ledger itself shows what was staked and what was paid back:
- a round settled on its first two cards is one ``bet`` transaction: the stakes go to the
  house and the house pays back what the bets return (stake included);
- a round that ties is a ``stake`` transaction (the ante goes in play, the tie bet to the
  house, which pays back what the tie bet returns) and later a ``decision`` transaction (the
  raise to the house, the ante out of play to the house, the house pays back what ante and
  raise return).
Nothing is paid back for a lost bet, so a lost round is two legs.
"""

from __future__ import annotations

from casino.ledger.accounts import SystemAccounts
from casino.ledger.legs import Leg, transfer


def settled_round_legs(
    accounts: SystemAccounts, wallet: str, staked: int, returned: int
) -> list[Leg]:
    return transfer(wallet, accounts.house, staked) + transfer(accounts.house, wallet, returned)


def opened_round_legs(
    accounts: SystemAccounts, wallet: str, ante: int, tie_bet: int, tie_returned: int
) -> list[Leg]:
    return (
        transfer(wallet, accounts.in_play, ante)
        + transfer(wallet, accounts.house, tie_bet)
        + transfer(accounts.house, wallet, tie_returned)
    )


def decided_round_legs(
    accounts: SystemAccounts, wallet: str, ante: int, raise_: int, returned: int
) -> list[Leg]:
    return (
        transfer(wallet, accounts.house, raise_)
        + transfer(accounts.in_play, accounts.house, ante)
        + transfer(accounts.house, wallet, returned)
    )


def table_round_legs(
    accounts: SystemAccounts, wallet: str, staked: int, held_change: int, returned: int
) -> list[Leg]:
    """One transaction of a round of several hands (or repeated wars, or war tie bets):
    ``staked`` leaves the wallet, of which what stays unsettled goes in play (``held_change``
    > 0) and the rest to the house; stakes settled now come out of play to the house
    (``held_change`` < 0); the house pays back ``returned``. The classic legs above are this
    for one hand."""
    if held_change >= 0:
        legs = transfer(wallet, accounts.in_play, held_change) + transfer(
            wallet, accounts.house, staked - held_change
        )
    else:
        legs = transfer(wallet, accounts.house, staked) + transfer(
            accounts.in_play, accounts.house, -held_change
        )
    return legs + transfer(accounts.house, wallet, returned)
