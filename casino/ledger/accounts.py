"""Ledger accounts: get-or-create by their unique key, safely under concurrency."""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from casino.store.models import Account, utcnow

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


def is_wallet_key(key: str) -> bool:
    return key.startswith(f"{WALLET}:")


@dataclass(frozen=True)
class SystemAccounts:
    """The keys of the shared accounts of one currency (they exist once this is made)."""

    currency: str
    house: str
    in_play: str
    cash: str


# Shared accounts are created once per currency and never removed, so their existence is
# remembered per engine. Were the database replaced under a running process, the append
# would fail on the missing account and clear this cache (see ``posting.Ledger.flush``).
_CACHE: weakref.WeakKeyDictionary[Engine, dict[str, SystemAccounts]] = weakref.WeakKeyDictionary()
_CACHE_LOCK = threading.Lock()


def _engine(session: Session) -> Engine:
    bind = session.get_bind()
    return bind if isinstance(bind, Engine) else bind.engine


def cached_system_accounts(session: Session, currency: str) -> SystemAccounts:
    engine = _engine(session)
    with _CACHE_LOCK:
        found = _CACHE.get(engine, {}).get(currency)
    if found is not None:
        return found
    accounts, existed = _system_accounts(session, currency)
    if existed:  # rows this transaction inserted may yet be rolled back: not cached
        with _CACHE_LOCK:
            _CACHE.setdefault(engine, {})[currency] = accounts
    return accounts


def forget_system_accounts(session: Session) -> None:
    with _CACHE_LOCK:
        _CACHE.pop(_engine(session), None)


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
    """The shared accounts of ``currency``, created if missing."""
    return _system_accounts(session, currency)[0]


def _system_accounts(session: Session, currency: str) -> tuple[SystemAccounts, bool]:
    keys = [system_key(kind, currency) for kind in SYSTEM_KINDS]
    found = _ids_by_key(session, keys)
    existed = len(found) == len(keys)
    if not existed:
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
    accounts = SystemAccounts(
        currency,
        house=system_key(HOUSE, currency),
        in_play=system_key(IN_PLAY, currency),
        cash=system_key(CASH, currency),
    )
    return accounts, existed


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
