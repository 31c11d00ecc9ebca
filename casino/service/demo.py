"""Demo data for a fresh install: default tables, an operator token, a funded player.

Running it again is harmless: existing tables are kept, the demo player gets a fresh token
(tokens are stored hashed, so the old one cannot be shown again) and is topped up only if
its wallet is below the demo amount.
"""

from __future__ import annotations

from typing import Any

from casino.engine.casino_war import TableRules
from casino.service import players, tables, wallets
from casino.service.auth import create_operator_token
from casino.store.uow import UnitOfWork

DEMO_CURRENCY = "EUR"
DEMO_FUNDS = 1_000_000  # 10 000.00 EUR
DEMO_PLAYER_REF = "demo-player"

_CLASSIC = TableRules(
    decks=6,
    tie_pays=10,
    war_tie_bonus=False,
    surrender_allowed=True,
    min_ante=100,
    max_ante=500_000,
    max_tie_bet=100_000,
    bet_increment=100,
)
DEMO_TABLES: dict[str, TableRules] = {
    "classic": _CLASSIC,
    "bonus": TableRules(**{**_CLASSIC.to_dict(), "war_tie_bonus": True}),
    "single-deck": TableRules(**{**_CLASSIC.to_dict(), "decks": 1}),
}


def seed_demo(uow: UnitOfWork) -> dict[str, Any]:
    created_tables = []
    for table_id, rules in DEMO_TABLES.items():
        if uow.tables.get(table_id) is None:
            tables.create_table(uow, table_id, DEMO_CURRENCY, rules)
            created_tables.append(table_id)
    operator_token = create_operator_token(uow, "demo operator")
    player_id = uow.players.id_by_external_ref(DEMO_PLAYER_REF)
    if player_id is None:
        view, player_token = players.create_player(uow, DEMO_PLAYER_REF, "Demo Player")
        player_id = view.id
    else:
        player_token = players.reissue_player_token(uow, player_id)
    balance = next(
        (w.balance for w in wallets.list_wallets(uow, player_id) if w.currency == DEMO_CURRENCY),
        0,
    )
    deposited = 0
    if balance < DEMO_FUNDS:
        deposited = DEMO_FUNDS - balance
        wallets.deposit(uow, player_id, DEMO_CURRENCY, deposited, "demo funding")
    return {
        "tables": list(DEMO_TABLES),
        "tables_created": created_tables,
        "operator_token": operator_token,
        "player": {"id": player_id, "external_ref": DEMO_PLAYER_REF, "token": player_token},
        "wallet": {
            "currency": DEMO_CURRENCY,
            "balance": balance + deposited,
            "deposited": deposited,
        },
    }
