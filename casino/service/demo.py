"""Demo data for a fresh install: default tables, an operator token, a funded player.

Running it again changes nothing that works: existing tables are kept, the player is topped
up only if its wallet is below the demo amount, and the tokens of the previous run (passed
back as ``known``: tokens are stored hashed, so the caller keeps them) stay valid and are
returned again. A token that no longer authenticates is replaced; there is never more than
one stored demo operator token.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Any

from casino.engine.casino_war import TableRules
from casino.service import players, tables, wallets
from casino.service.auth import create_operator_token, hash_token
from casino.store.types import utcnow
from casino.store.uow import UnitOfWork

DEMO_CURRENCY = "EUR"
DEMO_FUNDS = 1_000_000  # 10 000.00 EUR
DEMO_PLAYER_REF = "demo-player"
DEMO_OPERATOR_NAME = "demo operator"


@dataclass(frozen=True)
class DemoTokens:
    """The tokens a previous run handed out (either may be missing or stale)."""

    operator_token: str | None = None
    player_token: str | None = None


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


def seed_demo(uow: UnitOfWork, known: DemoTokens | None = None) -> dict[str, Any]:
    known = known or DemoTokens()
    created_tables = []
    for table_id, rules in DEMO_TABLES.items():
        if uow.tables.get(table_id) is None:
            tables.create_table(uow, table_id, DEMO_CURRENCY, rules)
            created_tables.append(table_id)
    operator_token = _demo_operator_token(uow, known.operator_token)
    player = uow.players.id_and_token_hash(DEMO_PLAYER_REF)
    if player is None:
        view, player_token = players.create_player(uow, DEMO_PLAYER_REF, "Demo Player")
        player_id = view.id
    else:
        player_id, token_hash = player
        if known.player_token and _same(known.player_token, token_hash):
            player_token = known.player_token
        else:
            player_token, _ = players.reissue_player_token(uow, player_id)
    balance = next(
        (w.balance for w in wallets.list_wallets(uow, player_id) if w.currency == DEMO_CURRENCY),
        0,
    )
    deposited = 0
    if balance < DEMO_FUNDS:
        deposited = DEMO_FUNDS - balance
        wallets.deposit(
            uow, player_id, DEMO_CURRENCY, deposited, f"demo funding {uow.now().isoformat()}"
        )
    return {
        "tables": list(DEMO_TABLES),
        "tables_created": created_tables,
        "tokens_reused": operator_token == known.operator_token
        and player_token == known.player_token,
        "operator_token": operator_token,
        "player": {"id": player_id, "external_ref": DEMO_PLAYER_REF, "token": player_token},
        "wallet": {
            "currency": DEMO_CURRENCY,
            "balance": balance + deposited,
            "deposited": deposited,
        },
    }


def _same(token: str, stored_hash: str) -> bool:
    return hmac.compare_digest(hash_token(token), stored_hash)


def _demo_operator_token(uow: UnitOfWork, known: str | None) -> str:
    """The previous run's demo operator token while it still authenticates; else a new one,
    replacing every other stored demo operator token (earlier runs piled them up)."""
    stored = uow.operator_tokens.named(DEMO_OPERATOR_NAME)
    keep = None
    if known:
        now = utcnow()
        keep = next(
            (
                token_id
                for token_id, token_hash, expires_at in stored
                if _same(known, token_hash) and (expires_at is None or expires_at > now)
            ),
            None,
        )
    uow.operator_tokens.delete_all([token_id for token_id, _, _ in stored if token_id != keep])
    if keep is not None and known:
        return known
    return create_operator_token(uow, DEMO_OPERATOR_NAME)
