"""Ledger accounts: get-or-create by their unique key, safely under concurrency."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from casino.db.models import Account, utcnow

WALLET = "wallet"
HOUSE = "house"
IN_PLAY = "in_play"
CASH = "cash"
SYSTEM_KINDS = (HOUSE, IN_PLAY, CASH)


def wallet_key(player_id: str, currency: str) -> str:
    return f"{WALLET}:{player_id}:{currency}"


def system_key(kind: str, currency: str) -> str:
    return f"{kind}:{currency}"


def display_name(kind: str, player_id: str | None) -> str:
    """How a posting names its account in views: ``wallet:<player>``, ``house``, ..."""
    return f"{WALLET}:{player_id}" if kind == WALLET else kind


@dataclass(frozen=True)
class SystemAccounts:
    currency: str
    house: int
    in_play: int
    cash: int


def _insert_ignore(session: Session, rows: list[dict[str, Any]]) -> None:
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        stmt: Any = postgresql.insert(Account).on_conflict_do_nothing(index_elements=["key"])
    elif dialect == "sqlite":
        stmt = sqlite.insert(Account).on_conflict_do_nothing(index_elements=["key"])
    else:  # pragma: no cover - only the two supported databases
        stmt = insert(Account)
    session.execute(stmt, rows)


def _ids_by_key(session: Session, keys: list[str]) -> dict[str, int]:
    rows = session.execute(select(Account.key, Account.id).where(Account.key.in_(keys)))
    return {key: account_id for key, account_id in rows}


def system_accounts(session: Session, currency: str) -> SystemAccounts:
    keys = [system_key(kind, currency) for kind in SYSTEM_KINDS]
    found = _ids_by_key(session, keys)
    if len(found) < len(keys):
        now = utcnow()
        _insert_ignore(
            session,
            [
                {
                    "key": system_key(kind, currency),
                    "kind": kind,
                    "currency": currency,
                    "player_id": None,
                    "balance": 0,
                    "created_at": now,
                }
                for kind in SYSTEM_KINDS
                if system_key(kind, currency) not in found
            ],
        )
        found = _ids_by_key(session, keys)
    return SystemAccounts(
        currency,
        house=found[system_key(HOUSE, currency)],
        in_play=found[system_key(IN_PLAY, currency)],
        cash=found[system_key(CASH, currency)],
    )


def find_wallet(session: Session, player_id: str, currency: str) -> int | None:
    return session.execute(
        select(Account.id).where(Account.key == wallet_key(player_id, currency))
    ).scalar_one_or_none()


def ensure_wallet(session: Session, player_id: str, currency: str) -> int:
    found = find_wallet(session, player_id, currency)
    if found is not None:
        return found
    _insert_ignore(
        session,
        [
            {
                "key": wallet_key(player_id, currency),
                "kind": WALLET,
                "currency": currency,
                "player_id": player_id,
                "balance": 0,
                "created_at": utcnow(),
            }
        ],
    )
    created = find_wallet(session, player_id, currency)
    assert created is not None
    return created
