"""All tables of the betting service.

Money columns are BigInteger minor units. Ledger rows (transactions, postings) are insert-only;
the cached ``accounts.balance`` is maintained in the same database transaction as the postings
and the audit recomputes it from them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    Sequence,
    String,
    text,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

from casino.store.base import Base

AWAITING_DECISION = "awaiting_decision"
SETTLED = "settled"


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC in and out; SQLite hands back naive values, which are UTC by design."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetimes are not stored; use timezone-aware UTC")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else as_utc(value)


def as_utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Player(Base):
    __tablename__ = "players"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    external_ref: Mapped[str] = mapped_column(String(200), unique=True)
    display_name: Mapped[str | None] = mapped_column(String(200))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class OperatorToken(Base):
    __tablename__ = "operator_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(200))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class CasinoTable(Base):
    __tablename__ = "casino_tables"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    currency: Mapped[str] = mapped_column(String(3))
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    active: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime())


class ServerSeed(Base):
    """A player's server seeds; exactly one is active, the others are revealed.

    Nonces run on per player across rotations: a new seed starts at the old one's
    ``next_nonce``, so (player, nonce) names one round for ever.
    """

    __tablename__ = "server_seeds"
    __table_args__ = (
        Index(
            "uq_server_seeds_one_active",
            "player_id",
            unique=True,
            sqlite_where=text("active"),
            postgresql_where=text("active"),
        ),
        CheckConstraint("next_nonce >= first_nonce", name="nonce_range"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    seed: Mapped[bytes] = mapped_column(LargeBinary(32))
    seed_hash: Mapped[str] = mapped_column(String(64))
    client_seed: Mapped[str] = mapped_column(String(64))
    active: Mapped[bool] = mapped_column(Boolean)
    first_nonce: Mapped[int] = mapped_column(BigInteger)
    next_nonce: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    revealed_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class Account(Base):
    """A ledger account: ``wallet`` (one per player and currency), ``house``, ``in_play`` and
    ``cash`` (one each per currency). ``key`` is its unique name, e.g. ``wallet:<id>:EUR``."""

    __tablename__ = "accounts"
    __table_args__ = (
        CheckConstraint("kind <> 'wallet' OR balance >= 0", name="wallet_not_negative"),
        CheckConstraint("kind IN ('wallet', 'house', 'in_play', 'cash')", name="kind_known"),
        CheckConstraint("(kind = 'wallet') = (player_id IS NOT NULL)", name="wallet_has_player"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(120), unique=True)
    kind: Mapped[str] = mapped_column(String(16))
    currency: Mapped[str] = mapped_column(String(3))
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"), index=True)
    balance: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


#: Transaction ids on PostgreSQL; reserved while a request runs, before its chain append.
LEDGER_TX_ID_SEQ = Sequence("ledger_transaction_id_seq")


class LedgerTransaction(Base):
    """An insert-only ledger transaction.

    ``id`` is unique (from a sequence on PostgreSQL, so it may have gaps from rolled-back
    requests); ``seq`` is the place in the hash chain, gapless from 1.
    """

    __tablename__ = "ledger_transactions"

    id: Mapped[int] = mapped_column(BigInteger, LEDGER_TX_ID_SEQ, primary_key=True)
    seq: Mapped[int] = mapped_column(BigInteger, unique=True)
    kind: Mapped[str] = mapped_column(String(16))
    currency: Mapped[str] = mapped_column(String(3))
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"))
    round_id: Mapped[str | None] = mapped_column(ForeignKey("rounds.id"), index=True)
    reference: Mapped[str | None] = mapped_column(String(200))
    wallet_balance_after: Mapped[int | None] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    prev_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64), unique=True)

    __table_args__ = (Index("ix_ledger_transactions_player_id_id", "player_id", "id"),)


class Posting(Base):
    """One leg of a transaction: ``amount`` (signed, non-zero) to one account."""

    __tablename__ = "postings"
    __table_args__ = (CheckConstraint("amount <> 0", name="amount_not_zero"),)

    transaction_id: Mapped[int] = mapped_column(
        ForeignKey("ledger_transactions.id"), primary_key=True
    )
    leg: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"), index=True)
    amount: Mapped[int] = mapped_column(BigInteger)


class ChainHead(Base):
    """The single row every ledger append locks: count (= last seq), last id, last hash.

    Keeping count and last hash here lets the audit notice a deleted *last* transaction,
    which no later ``prev_hash`` would reveal.
    """

    __tablename__ = "ledger_chain_head"
    __table_args__ = (CheckConstraint("id = 1", name="single_row"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    last_id: Mapped[int] = mapped_column(BigInteger)
    count: Mapped[int] = mapped_column(BigInteger)
    last_hash: Mapped[str] = mapped_column(String(64))


class Round(Base):
    __tablename__ = "rounds"
    __table_args__ = (
        Index(
            "uq_rounds_one_open_per_player",
            "player_id",
            unique=True,
            sqlite_where=text("status = 'awaiting_decision'"),
            postgresql_where=text("status = 'awaiting_decision'"),
        ),
        Index("ix_rounds_player_id_created_at", "player_id", "created_at"),
        Index("ix_rounds_status_created_at", "status", "created_at"),
        CheckConstraint("status IN ('awaiting_decision', 'settled')", name="status_known"),
        CheckConstraint("ante > 0 AND tie_bet >= 0 AND raise_amount >= 0", name="bets_positive"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    table_id: Mapped[str] = mapped_column(ForeignKey("casino_tables.id"))
    currency: Mapped[str] = mapped_column(String(3))
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    status: Mapped[str] = mapped_column(String(20))
    server_seed_id: Mapped[int] = mapped_column(ForeignKey("server_seeds.id"))
    client_seed: Mapped[str] = mapped_column(String(64))
    nonce: Mapped[int] = mapped_column(BigInteger)
    ante: Mapped[int] = mapped_column(BigInteger)
    tie_bet: Mapped[int] = mapped_column(BigInteger)
    raise_amount: Mapped[int] = mapped_column(BigInteger)
    player_card: Mapped[str] = mapped_column(String(4))
    dealer_card: Mapped[str] = mapped_column(String(4))
    war: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    decision: Mapped[str | None] = mapped_column(String(16))
    decided_by: Mapped[str | None] = mapped_column(String(16))
    ante_payout: Mapped[int] = mapped_column(BigInteger)
    tie_bet_payout: Mapped[int] = mapped_column(BigInteger)
    raise_payout: Mapped[int] = mapped_column(BigInteger)
    net: Mapped[int] = mapped_column(BigInteger)
    balance_after: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    settled_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


class IdempotencyRecord(Base):
    __tablename__ = "idempotency_records"

    caller: Mapped[str] = mapped_column(String(120), primary_key=True)
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(128))
    status: Mapped[int] = mapped_column(Integer)
    body: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime(), index=True)


class GameSession(Base):
    """A short-lived credential an operator issues to launch the game client for a player.

    Only the token's SHA-256 is stored. ``revoked_at`` is set by the operator; a session is
    usable while neither revoked nor past ``expires_at``.
    """

    __tablename__ = "game_sessions"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    table_id: Mapped[str | None] = mapped_column(ForeignKey("casino_tables.id"))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())


import casino.store.free_play_models  # noqa: E402, F401  (puts free_play_games on Base.metadata)
