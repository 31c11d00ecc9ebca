"""The reference wallet's own SQLite database: accounts, recorded transactions, expired sessions.

This stands in for an operator's system, so it is deliberately not the game server's
database nor its storage layer (casino/store): the two share nothing but the protocol.

Every decision runs in one ``BEGIN IMMEDIATE`` transaction under a process-wide lock: the
check of a transaction id, the balance change and the record of the answer commit together,
so concurrent duplicates apply once (the primary key on ``transaction_id`` is the backstop).
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (
    player TEXT NOT NULL,
    currency TEXT NOT NULL,
    balance INTEGER NOT NULL CHECK (balance >= 0),
    blocked INTEGER NOT NULL DEFAULT 0,
    max_bet INTEGER,
    PRIMARY KEY (player, currency)
);
CREATE TABLE IF NOT EXISTS transactions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    transaction_id TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    player TEXT NOT NULL,
    currency TEXT NOT NULL,
    round_id TEXT NOT NULL,
    amount INTEGER NOT NULL,
    bet_kind TEXT,
    reference_transaction_id TEXT,
    fingerprint TEXT NOT NULL,
    status TEXT NOT NULL,
    operator_transaction_id TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS transactions_reference ON transactions (reference_transaction_id);
CREATE INDEX IF NOT EXISTS transactions_round ON transactions (round_id, kind);
CREATE TABLE IF NOT EXISTS expired_sessions (session TEXT PRIMARY KEY);
"""

#: The CSV export's columns (docs/integration.md, "Its records"); reconciliation reads the
#: first eight.
CSV_COLUMNS = (
    "transaction_id",
    "kind",
    "amount",
    "status",
    "round_id",
    "player",
    "currency",
    "created_at",
    "operator_transaction_id",
    "reference_transaction_id",
    "bet_kind",
)


@dataclass(frozen=True)
class Account:
    player: str
    currency: str
    balance: int
    blocked: bool
    max_bet: int | None


@dataclass(frozen=True)
class Record:
    """A recorded transaction and the answer it got."""

    transaction_id: str
    kind: str
    player: str
    currency: str
    round_id: str
    amount: int
    bet_kind: str | None
    reference_transaction_id: str | None
    fingerprint: str
    status: str
    operator_transaction_id: str | None
    created_at: str = ""


def timestamp() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Tx:
    """The queries of one decision, on the connection of an open transaction."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.db = connection

    def account(self, player: str, currency: str) -> Account | None:
        row = self.db.execute(
            "SELECT player, currency, balance, blocked, max_bet FROM accounts"
            " WHERE player = ? AND currency = ?",
            (player, currency),
        ).fetchone()
        return None if row is None else Account(row[0], row[1], row[2], bool(row[3]), row[4])

    def add_to_balance(self, player: str, currency: str, delta: int) -> None:
        self.db.execute(
            "UPDATE accounts SET balance = balance + ? WHERE player = ? AND currency = ?",
            (delta, player, currency),
        )

    def recorded(self, transaction_id: str) -> Record | None:
        row = self.db.execute(
            "SELECT transaction_id, kind, player, currency, round_id, amount, bet_kind,"
            " reference_transaction_id, fingerprint, status, operator_transaction_id, created_at"
            " FROM transactions WHERE transaction_id = ?",
            (transaction_id,),
        ).fetchone()
        return None if row is None else Record(*row)

    def rollbacks_of(self, transaction_id: str, status: str) -> bool:
        """Whether a rollback answered ``status`` references ``transaction_id``."""
        row = self.db.execute(
            "SELECT 1 FROM transactions WHERE reference_transaction_id = ? AND kind = 'rollback'"
            " AND status = ? LIMIT 1",
            (transaction_id, status),
        ).fetchone()
        return row is not None

    def round_closed(self, round_id: str) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM transactions WHERE round_id = ? AND kind = 'win' AND status = 'OK'"
            " LIMIT 1",
            (round_id,),
        ).fetchone()
        return row is not None

    def session_expired(self, session: str) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM expired_sessions WHERE session = ?", (session,)
        ).fetchone()
        return row is not None

    def record(self, record: Record, or_ignore: bool = False) -> None:
        verb = "INSERT OR IGNORE" if or_ignore else "INSERT"
        self.db.execute(
            f"{verb} INTO transactions (transaction_id, kind, player, currency, round_id,"
            " amount, bet_kind, reference_transaction_id, fingerprint, status,"
            " operator_transaction_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.transaction_id,
                record.kind,
                record.player,
                record.currency,
                record.round_id,
                record.amount,
                record.bet_kind,
                record.reference_transaction_id,
                record.fingerprint,
                record.status,
                record.operator_transaction_id,
                record.created_at or timestamp(),
            ),
        )

    def next_operator_id(self) -> str:
        row = self.db.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM transactions").fetchone()
        return f"dw-{row[0]:09d}"


class DemoStore:
    """One SQLite file (``:memory:`` for a throw-away wallet) behind one connection."""

    def __init__(self, path: str | Path) -> None:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        # Autocommit mode: every transaction is opened explicitly (BEGIN IMMEDIATE).
        self._db = sqlite3.connect(
            str(path), check_same_thread=False, isolation_level=None, timeout=10
        )
        self._lock = threading.Lock()
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        """One atomic decision: committed if the block ends normally, rolled back if it raises."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield Tx(self._db)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def put_account(
        self,
        player: str,
        currency: str,
        balance: int | None = None,
        credit: int = 0,
        blocked: bool | None = None,
        max_bet: int | bool | None = False,
    ) -> Account:
        """Creates or updates an account: ``balance`` sets it, ``credit`` adds to it;
        ``max_bet=False`` leaves the limit as it is (``None`` removes it)."""
        with self.transaction() as tx:
            tx.db.execute(
                "INSERT OR IGNORE INTO accounts (player, currency, balance) VALUES (?, ?, 0)",
                (player, currency),
            )
            if balance is not None:
                tx.db.execute(
                    "UPDATE accounts SET balance = ? WHERE player = ? AND currency = ?",
                    (balance, player, currency),
                )
            if credit:
                tx.add_to_balance(player, currency, credit)
            if blocked is not None:
                tx.db.execute(
                    "UPDATE accounts SET blocked = ? WHERE player = ? AND currency = ?",
                    (int(blocked), player, currency),
                )
            if max_bet is not False:
                tx.db.execute(
                    "UPDATE accounts SET max_bet = ? WHERE player = ? AND currency = ?",
                    (max_bet, player, currency),
                )
            account = tx.account(player, currency)
        assert account is not None
        return account

    def create_account(self, player: str, currency: str, balance: int) -> Account:
        """The account, created with ``balance`` if it did not exist (else left as it is)."""
        with self.transaction() as tx:
            tx.db.execute(
                "INSERT OR IGNORE INTO accounts (player, currency, balance) VALUES (?, ?, ?)",
                (player, currency, balance),
            )
            account = tx.account(player, currency)
        assert account is not None
        return account

    def account(self, player: str, currency: str) -> Account | None:
        with self.transaction() as tx:
            return tx.account(player, currency)

    def expire_session(self, session: str) -> None:
        with self.transaction() as tx:
            tx.db.execute("INSERT OR IGNORE INTO expired_sessions (session) VALUES (?)", (session,))

    def export_rows(self) -> list[tuple[str, ...]]:
        """Every recorded transaction, oldest first, as CSV_COLUMNS."""
        with self.transaction() as tx:
            rows = tx.db.execute(
                "SELECT transaction_id, kind, amount, status, round_id, player, currency,"
                " created_at, operator_transaction_id, reference_transaction_id, bet_kind"
                " FROM transactions ORDER BY seq"
            ).fetchall()
        return [tuple("" if value is None else str(value) for value in row) for row in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()
