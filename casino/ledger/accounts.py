"""Ledger accounts by name: one wallet per player and currency, and per currency the house,
the money in play and the cash that enters and leaves the casino.

An account's key is its unique name: ``wallet:<player_id>:<currency>`` or
``<kind>:<currency>``. Views show it without the currency (``wallet:<player_id>``,
``house``, ...), since a transaction names its currency once.
"""

from __future__ import annotations

from dataclasses import dataclass

WALLET = "wallet"
HOUSE = "house"
IN_PLAY = "in_play"
CASH = "cash"
SYSTEM_KINDS = (HOUSE, IN_PLAY, CASH)
KINDS = (WALLET, *SYSTEM_KINDS)


def wallet_key(player_id: str, currency: str) -> str:
    return f"{WALLET}:{player_id}:{currency}"


def system_key(kind: str, currency: str) -> str:
    return f"{kind}:{currency}"


def is_wallet_key(key: str) -> bool:
    return key.startswith(f"{WALLET}:")


def account_name(key: str) -> str:
    """How views name an account: ``wallet:<player_id>``, ``house``, ``in_play``, ``cash``."""
    return key.rsplit(":", 1)[0]


def key_currency(key: str) -> str:
    return key.rsplit(":", 1)[1]


@dataclass(frozen=True)
class SystemAccounts:
    """The keys of the shared accounts of one currency."""

    currency: str

    @property
    def house(self) -> str:
        return system_key(HOUSE, self.currency)

    @property
    def in_play(self) -> str:
        return system_key(IN_PLAY, self.currency)

    @property
    def cash(self) -> str:
        return system_key(CASH, self.currency)
