"""The ledger's rows: accounts, wallets with their chain heads, transactions and postings.

A use case locks the wallet it moves (``lock_wallet``, or a claim of casino.store.rounds that
locks it on the way), links its transactions to that wallet's chain (casino.ledger) and hands
them to ``append``; they are written at commit (casino.store.writes). Nothing here locks a row
shared by other players: the house, in-play and cash accounts are only ever inserted once
per operator and currency and then referenced by postings.

Accounts and transactions are their operator's (``operator_id``): a wallet is found, and a
transaction written, for the operator the unit of work acts for only.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any, cast

from sqlalchemy import Table, func, select
from sqlalchemy.dialects import postgresql, sqlite

from casino.ledger.accounts import (
    SYSTEM_KINDS,
    WALLET,
    SystemAccounts,
    system_key,
    wallet_key,
)
from casino.ledger.chain import GENESIS_HASH
from casino.ledger.transactions import ChainedTransaction, WalletState
from casino.store import direct
from casino.store.models import Account, LedgerTransaction, Posting, utcnow
from casino.store.records import TransactionRecord, Wallet
from casino.store.repository import Repository
from casino.store.tenancy import Tenancy
from casino.store.writes import PendingWrites

_ACCOUNTS = cast(Table, Account.__table__)
_TRANSACTIONS = cast(Table, LedgerTransaction.__table__)
_POSTINGS = cast(Table, Posting.__table__)
_RESERVE_ID = "SELECT nextval('ledger_transaction_id_seq')"


class LedgerStore(Repository):
    def __init__(
        self, session: Any, postgres: bool, writes: PendingWrites, tenancy: Tenancy | None = None
    ) -> None:
        super().__init__(session, postgres, tenancy)
        self._writes = writes
        # Wallets this unit of work holds locked, as its own transactions leave them.
        self._wallets: dict[str, Wallet] = {}
        self._next_local_id: int | None = None

    # --- wallets -----------------------------------------------------------------------

    def adopt(self, wallet: Wallet) -> Wallet:
        """A wallet a claim locked (casino.store.rounds) joins this unit of work's wallets."""
        return self._wallets.setdefault(wallet.key, wallet)

    def lock_wallet(self, player_id: str, currency: str, *, create: bool = False) -> Wallet | None:
        """The player's wallet in ``currency``, locked until commit; created (with the
        currency's shared accounts) if ``create`` and missing, else None when missing."""
        key = wallet_key(player_id, currency)
        known = self._wallets.get(key)
        if known is not None:
            return known
        wallet = self._select_wallet(key)
        if wallet is None and create:
            self.ensure_accounts(currency)
            self._insert_missing(
                [
                    {
                        "key": key,
                        "operator_id": self.operator_id,
                        "kind": WALLET,
                        "currency": currency,
                        "player_id": player_id,
                        "balance": 0,
                        "chain_length": 0,
                        "chain_hash": GENESIS_HASH,
                        "created_at": utcnow(),
                    }
                ]
            )
            wallet = self._select_wallet(key)
        if wallet is None:
            return None
        return self.adopt(wallet)

    def _select_wallet(self, key: str) -> Wallet | None:
        row = self.session.execute(
            select(
                _ACCOUNTS.c.id,
                _ACCOUNTS.c.balance,
                _ACCOUNTS.c.chain_length,
                _ACCOUNTS.c.chain_hash,
            )
            .where(
                _ACCOUNTS.c.key == key,
                _ACCOUNTS.c.kind == WALLET,
                _ACCOUNTS.c.operator_id == self.operator_id,
            )
            .with_for_update()
        ).one_or_none()
        if row is None:
            return None
        return Wallet(int(row[0]), key, WalletState(int(row[1]), int(row[2]), str(row[3])))

    def system_accounts(self, currency: str) -> SystemAccounts:
        """The keys of the operator's shared accounts of ``currency``."""
        return SystemAccounts(currency, self.operator_id)

    def ensure_accounts(self, currency: str) -> None:
        """The operator's shared accounts of ``currency`` exist from here on (inserted once,
        ever)."""
        operator = self.operator_id
        keys = {kind: system_key(kind, currency, operator) for kind in SYSTEM_KINDS}
        found = set(
            self.session.scalars(
                select(_ACCOUNTS.c.key).where(_ACCOUNTS.c.key.in_(list(keys.values())))
            )
        )
        now = utcnow()
        self._insert_missing(
            [
                {
                    "key": keys[kind],
                    "operator_id": operator,
                    "kind": kind,
                    "currency": currency,
                    "player_id": None,
                    "balance": None,
                    "chain_length": 0,
                    "chain_hash": GENESIS_HASH,
                    "created_at": now,
                }
                for kind in SYSTEM_KINDS
                if keys[kind] not in found
            ]
        )

    def _insert_missing(self, rows: list[dict[str, Any]]) -> None:
        if not rows:
            return
        dialect: Any = postgresql if self.postgres else sqlite
        self.session.execute(
            dialect.insert(_ACCOUNTS).on_conflict_do_nothing(index_elements=["key"]), rows
        )

    def has_wallet(self, player_id: str, currency: str) -> bool:
        found = self.session.execute(
            select(_ACCOUNTS.c.id).where(
                _ACCOUNTS.c.key == wallet_key(player_id, currency),
                self.owned(_ACCOUNTS.c.operator_id),
            )
        )
        return found.scalar_one_or_none() is not None

    def balances(self, player_id: str) -> list[tuple[str, int]]:
        """(currency, balance) of the player's wallets."""
        rows = self.session.execute(
            select(_ACCOUNTS.c.currency, _ACCOUNTS.c.balance)
            .where(
                _ACCOUNTS.c.player_id == player_id,
                _ACCOUNTS.c.kind == WALLET,
                self.owned(_ACCOUNTS.c.operator_id),
            )
            .order_by(_ACCOUNTS.c.currency)
        )
        return [(str(currency), int(balance)) for currency, balance in rows]

    # --- transactions ------------------------------------------------------------------

    def reserve_id(self) -> int:
        """An id for a transaction of this unit of work (named in views before commit)."""
        if self.postgres:
            return int(direct.execute(self.session, _RESERVE_ID, {})[0][0])
        # SQLite: this transaction holds the database's write lock, so ids can simply follow
        # the last one; they come out in commit order.
        if self._next_local_id is None:
            last = self.session.execute(select(func.max(_TRANSACTIONS.c.id))).scalar()
            self._next_local_id = int(last or 0) + 1
        tx_id = self._next_local_id
        self._next_local_id += 1
        return tx_id

    def append(self, tx: ChainedTransaction, wallet: Wallet) -> Wallet:
        """Write ``tx`` at commit, moving ``wallet`` (locked by this unit of work) with it;
        the wallet as ``tx`` leaves it."""
        if self._wallets.get(wallet.key) != wallet or tx.tx.wallet != wallet.key:
            raise ValueError("append() moves a wallet this unit of work holds, as it stands")
        if tx.before != wallet.state:
            raise ValueError("the transaction is not linked to the wallet as it stands")
        self._writes.add_transaction(tx, wallet.id, self.operator_id)
        moved = Wallet(wallet.id, wallet.key, tx.after)
        self._wallets[wallet.key] = moved
        return moved

    def owner_of(self, tx_id: int) -> str | None:
        """The player whose wallet transaction ``tx_id`` moved, if it exists."""
        if not 0 < tx_id < 2**63:
            return None
        found = self.session.execute(
            select(_TRANSACTIONS.c.player_id).where(
                _TRANSACTIONS.c.id == tx_id, self.owned(_TRANSACTIONS.c.operator_id)
            )
        )
        return found.scalar_one_or_none()

    def pending_ids(self, round_id: str) -> list[int]:
        return [tx.id for tx, _ in self._writes.transactions if tx.tx.round_id == round_id]

    def transaction_page(
        self, player_id: str, before_id: int | None, limit: int
    ) -> list[TransactionRecord]:
        """The player's transactions, newest first, ids below ``before_id``."""
        query = select(_TRANSACTIONS).where(
            _TRANSACTIONS.c.player_id == player_id, self.owned(_TRANSACTIONS.c.operator_id)
        )
        if before_id is not None:
            query = query.where(_TRANSACTIONS.c.id < before_id)
        rows = self.session.execute(query.order_by(_TRANSACTIONS.c.id.desc()).limit(limit))
        return self._with_postings([row._mapping for row in rows])

    def round_transaction_ids(self, round_ids: Sequence[str]) -> dict[str, list[int]]:
        found: dict[str, list[int]] = defaultdict(list)
        if not round_ids:
            return found
        rows = self.session.execute(
            select(_TRANSACTIONS.c.round_id, _TRANSACTIONS.c.id)
            .where(
                _TRANSACTIONS.c.round_id.in_(list(round_ids)),
                self.owned(_TRANSACTIONS.c.operator_id),
            )
            .order_by(_TRANSACTIONS.c.id)
        )
        for round_id, tx_id in rows:
            found[str(round_id)].append(int(tx_id))
        return found

    def _with_postings(self, rows: Iterable[Any]) -> list[TransactionRecord]:
        rows = list(rows)
        postings = self._postings([int(row["id"]) for row in rows])
        return [
            TransactionRecord(
                id=int(row["id"]),
                kind=row["kind"],
                currency=row["currency"],
                player_id=row["player_id"],
                wallet_id=int(row["wallet_id"]),
                round_id=row["round_id"],
                reference=row["reference"],
                wallet_balance_after=int(row["wallet_balance_after"]),
                created_at=row["created_at"],
                wallet_seq=int(row["wallet_seq"]),
                prev_hash=row["prev_hash"],
                hash=row["hash"],
                commit_seq=int(row["commit_seq"]),
                postings=postings.get(int(row["id"]), []),
            )
            for row in rows
        ]

    def _postings(self, tx_ids: Sequence[int]) -> dict[int, list[tuple[int, str, int]]]:
        found: dict[int, list[tuple[int, str, int]]] = defaultdict(list)
        if not tx_ids:
            return found
        rows = self.session.execute(
            select(_POSTINGS.c.transaction_id, _POSTINGS.c.leg, _ACCOUNTS.c.key, _POSTINGS.c.amount)
            .join(_ACCOUNTS, _ACCOUNTS.c.id == _POSTINGS.c.account_id)
            .where(_POSTINGS.c.transaction_id.in_(list(tx_ids)))
            .order_by(_POSTINGS.c.transaction_id, _POSTINGS.c.leg)
        )
        for tx_id, leg, key, amount in rows:
            found[int(tx_id)].append((int(leg), str(key), int(amount)))
        return found
