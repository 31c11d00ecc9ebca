"""Ledger accounts by name: one wallet per player and currency, and per operator and currency
the house, the money in play and the cash that enters and leaves the casino.

An account's key is its unique name: ``wallet:<player_id>:<currency>`` (player ids are unique
across operators), ``<kind>:<currency>`` for the shared accounts of the operator ``default``
(the keys of the ledger from before operators, so its exports and checkpoints verify
unchanged) and ``<kind>:<operator>:<currency>`` for any other operator's. Views show a key
without the operator and the currency (``wallet:<player_id>``, ``house``, ...): a view is
one operator's, and a transaction names its currency once.
"""

from __future__ import annotations

from dataclasses import dataclass

WALLET = "wallet"
HOUSE = "house"
IN_PLAY = "in_play"
CASH = "cash"
SYSTEM_KINDS = (HOUSE, IN_PLAY, CASH)
KINDS = (WALLET, *SYSTEM_KINDS)
#: The operator that holds everything from before operators existed (migration 0019).
DEFAULT_OPERATOR = "default"


def wallet_key(player_id: str, currency: str) -> str:
    return f"{WALLET}:{player_id}:{currency}"


def system_key(kind: str, currency: str, operator: str = DEFAULT_OPERATOR) -> str:
    """The key of an operator's shared account of ``kind`` in ``currency``."""
    if operator == DEFAULT_OPERATOR:
        return f"{kind}:{currency}"
    return f"{kind}:{operator}:{currency}"


def key_operator(key: str) -> str | None:
    """The operator of a shared account's key (None for a wallet: its player says)."""
    if is_wallet_key(key):
        return None
    parts = key.split(":")
    return DEFAULT_OPERATOR if len(parts) == 2 else parts[1]


def is_wallet_key(key: str) -> bool:
    return key.startswith(f"{WALLET}:")


def account_name(key: str) -> str:
    """How views name an account: ``wallet:<player_id>``, ``house``, ``in_play``, ``cash``."""
    if is_wallet_key(key):
        return key.rsplit(":", 1)[0]
    return key.split(":", 1)[0]


def key_currency(key: str) -> str:
    return key.rsplit(":", 1)[1]


@dataclass(frozen=True)
class SystemAccounts:
    """The keys of an operator's shared accounts of one currency."""

    currency: str
    operator: str = DEFAULT_OPERATOR

    @property
    def house(self) -> str:
        return system_key(HOUSE, self.currency, self.operator)

    @property
    def in_play(self) -> str:
        return system_key(IN_PLAY, self.currency, self.operator)

    @property
    def cash(self) -> str:
        return system_key(CASH, self.currency, self.operator)
