"""All tables of the betting service (see docs/ledger.md for the ledger's design).

Money columns are BigInteger minor units. Ledger rows (transactions, postings, checkpoints)
are insert-only. Only a wallet keeps a balance column, maintained in the same database
transaction as its postings; the house, in-play and cash balances are derived from postings
and rolled up by the sealer into signed checkpoints, so no row is shared by every bet.

No foreign key points from a bet's rows at a row every bet would share (a posting's account,
a round's table, the operator of a round or a transaction): checking one takes a KEY SHARE
lock on the referenced row, which would make the house account, each table row and each
operator row a lock every bet takes. The audit checks those references instead.

Tenant-owned rows carry their operator (``operator_id``, docs/operators.md) so that every
read filters by it directly; the repositories do (casino.store.tenancy), and always name it
when they write. A row written without one (a tool that predates operators) is the operator
``default``'s, as everything from before operators is.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    LargeBinary,
    Sequence,
    String,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from casino.store.base import Base
from casino.store.types import BigId, UTCDateTime, as_utc, utcnow

__all__ = ["AWAITING_DECISION", "SETTLED", "Base", "as_utc", "utcnow"]

AWAITING_DECISION = "awaiting_decision"
SETTLED = "settled"
GENESIS_HASH = "0" * 64
#: The operator of rows written without one (see the module's docstring).
_DEFAULT_OPERATOR = text("'default'")


class Player(Base):
    __tablename__ = "players"
    # An operator's own reference for its player: unique per operator, not across them.
    __table_args__ = (UniqueConstraint("operator_id", "external_ref"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    operator_id: Mapped[str] = mapped_column(
        ForeignKey("operators.id"), server_default=_DEFAULT_OPERATOR
    )
    external_ref: Mapped[str] = mapped_column(String(200))
    display_name: Mapped[str | None] = mapped_column(String(200))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


class OperatorToken(Base):
    __tablename__ = "operator_tokens"
    # An id is the token's idempotency caller ("operator:<id>"): a reused id would inherit a
    # revoked token's stored responses. SQLite reuses the largest rowid once it is deleted
    # unless the table is AUTOINCREMENT; PostgreSQL's sequence never goes back.
    __table_args__ = (
        CheckConstraint("platform = (operator_id IS NULL)", name="platform_or_operator"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(200))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    #: None: valid until revoked.
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    #: What the token may do: admin, support or auditor (docs/security.md).
    scope: Mapped[str] = mapped_column(String(16), server_default=text("'admin'"))
    #: The operator the token acts for; None for a platform token (manages operators).
    operator_id: Mapped[str | None] = mapped_column(ForeignKey("operators.id"), index=True)
    #: Said explicitly: a token row that names no operator is never a platform token by
    #: accident.
    platform: Mapped[bool] = mapped_column(Boolean, server_default=text("false"))


class CasinoTable(Base):
    """A table; its id is the operator's choice, unique per operator."""

    __tablename__ = "casino_tables"

    operator_id: Mapped[str] = mapped_column(
        ForeignKey("operators.id"), primary_key=True, server_default=_DEFAULT_OPERATOR
    )
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

    The active row also holds the seed that will succeed it (``next_seed``), committed by its
    hash when this one became active: a rotation promotes it, so the server picked every
    active seed before the player could choose the client seed that goes with it
    (docs/fairness.md). A revealed row keeps the hash it committed to, not the seed.
    ``client_seed_chosen``: the player chose this pair's client seed after the pair's server
    seed was committed (false for the server's default and for a seed carried over).
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
        CheckConstraint(
            "(active AND next_seed IS NOT NULL AND next_seed_hash IS NOT NULL)"
            " OR (NOT active AND next_seed IS NULL)",
            name="next_committed",
        ),
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
    next_seed: Mapped[bytes | None] = mapped_column(LargeBinary(32))
    next_seed_hash: Mapped[str | None] = mapped_column(String(64))
    client_seed_chosen: Mapped[bool] = mapped_column(Boolean)


class Account(Base):
    """A ledger account: ``wallet`` (one per player and currency), ``house``, ``in_play`` and
    ``cash`` (one each per currency). ``key`` is its unique name, e.g. ``wallet:<id>:EUR``.

    A wallet holds its balance and the head of its hash chain (``chain_length`` transactions,
    the last one's ``chain_hash``); every movement of the wallet locks this row, which belongs
    to its player alone. The shared accounts keep neither: their balance is the sum of their
    postings, rolled up by the sealer into checkpoints.
    """

    __tablename__ = "accounts"
    __table_args__ = (
        CheckConstraint(
            "kind <> 'wallet' OR (balance IS NOT NULL AND balance >= 0)",
            name="wallet_not_negative",
        ),
        CheckConstraint("kind = 'wallet' OR balance IS NULL", name="only_wallets_keep_balance"),
        CheckConstraint("kind IN ('wallet', 'house', 'in_play', 'cash')", name="kind_known"),
        CheckConstraint("(kind = 'wallet') = (player_id IS NOT NULL)", name="wallet_has_player"),
        CheckConstraint("chain_length >= 0", name="chain_length_known"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key: Mapped[str] = mapped_column(String(120), unique=True)
    # No foreign key: see the module's docstring.
    operator_id: Mapped[str] = mapped_column(String(64), server_default=_DEFAULT_OPERATOR)
    kind: Mapped[str] = mapped_column(String(16))
    currency: Mapped[str] = mapped_column(String(3))
    player_id: Mapped[str | None] = mapped_column(ForeignKey("players.id"), index=True)
    balance: Mapped[int | None] = mapped_column(BigInteger)
    chain_length: Mapped[int] = mapped_column(BigInteger)
    chain_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())


#: Transaction ids on PostgreSQL, reserved while a request runs (views name them before the
#: commit). On SQLite the id is the rowid, assigned in commit order.
LEDGER_TX_ID_SEQ = Sequence("ledger_transaction_id_seq")


class LedgerTransaction(Base):
    """An insert-only ledger transaction, moving money of exactly one wallet.

    ``wallet_seq`` is its place in that wallet's hash chain (gapless from 1), ``prev_hash``
    the previous link's hash and ``hash`` its own link (casino.ledger.chain). ``commit_seq``
    orders transactions for the sealer: PostgreSQL's transaction id, SQLite's row id.
    """

    __tablename__ = "ledger_transactions"
    __table_args__ = (
        Index("uq_ledger_transactions_wallet_seq", "wallet_id", "wallet_seq", unique=True),
        Index("ix_ledger_transactions_player_id_id", "player_id", "id"),
        # The sealer and the export read one operator's transactions in commit order.
        Index("ix_ledger_transactions_operator_id_commit_seq", "operator_id", "commit_seq"),
        CheckConstraint("wallet_seq >= 1", name="wallet_seq_positive"),
    )

    id: Mapped[int] = mapped_column(BigId, LEDGER_TX_ID_SEQ, primary_key=True)
    # No foreign key: see the module's docstring.
    operator_id: Mapped[str] = mapped_column(String(64), server_default=_DEFAULT_OPERATOR)
    kind: Mapped[str] = mapped_column(String(16))
    currency: Mapped[str] = mapped_column(String(3))
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    wallet_id: Mapped[int] = mapped_column(ForeignKey("accounts.id"))
    round_id: Mapped[str | None] = mapped_column(ForeignKey("rounds.id"), index=True)
    reference: Mapped[str | None] = mapped_column(String(200))
    wallet_balance_after: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    wallet_seq: Mapped[int] = mapped_column(BigInteger)
    prev_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64))
    commit_seq: Mapped[int] = mapped_column(BigInteger)


class Posting(Base):
    """One leg of a transaction: ``amount`` (signed, non-zero) to one account."""

    __tablename__ = "postings"
    __table_args__ = (CheckConstraint("amount <> 0", name="amount_not_zero"),)

    transaction_id: Mapped[int] = mapped_column(
        BigInteger, ForeignKey("ledger_transactions.id"), primary_key=True
    )
    leg: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    # No foreign key: see the module's docstring.
    account_id: Mapped[int] = mapped_column(Integer)
    amount: Mapped[int] = mapped_column(BigInteger)


class LedgerCheckpoint(Base):
    """A sealed, signed batch of ledger transactions (casino.ledger.checkpoints).

    It covers every transaction with ``commit_from <= commit_seq < commit_to``; ``root`` is
    the Merkle root of their (id, hash) leaves, ``hash`` links it to the previous checkpoint,
    ``signature`` is the Ed25519 signature of ``hash`` by the key ``key_id``.

    Each operator's checkpoints are a chain of their own (``seq`` from 1 per operator),
    sealing that operator's transactions only, so that its export verifies without any
    other operator's rows.
    """

    __tablename__ = "ledger_checkpoints"
    __table_args__ = (
        CheckConstraint("seq >= 1", name="seq_positive"),
        CheckConstraint("commit_to > commit_from", name="range_not_empty"),
        UniqueConstraint("operator_id", "commit_to"),
    )

    # No foreign key: see the module's docstring.
    operator_id: Mapped[str] = mapped_column(
        String(64), primary_key=True, server_default=_DEFAULT_OPERATOR
    )
    seq: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    commit_from: Mapped[int] = mapped_column(BigInteger)
    commit_to: Mapped[int] = mapped_column(BigInteger)
    tx_count: Mapped[int] = mapped_column(BigInteger)
    total_count: Mapped[int] = mapped_column(BigInteger)
    root: Mapped[str] = mapped_column(String(64))
    balances: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    prev_hash: Mapped[str] = mapped_column(String(64))
    hash: Mapped[str] = mapped_column(String(64), unique=True)
    key_id: Mapped[str] = mapped_column(String(64))
    signature: Mapped[str] = mapped_column(String(128))


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
        Index("ix_rounds_operator_id_created_at", "operator_id", "created_at"),
        Index(
            "ix_rounds_decision_deadline",
            "decision_deadline",
            sqlite_where=text("status = 'awaiting_decision'"),
            postgresql_where=text("status = 'awaiting_decision'"),
        ),
        CheckConstraint("status IN ('awaiting_decision', 'settled')", name="status_known"),
        CheckConstraint(
            "ante >= 0 AND tie_bet >= 0 AND raise_amount >= 0 AND war_tie_bet >= 0",
            name="bets_positive",
        ),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    # No foreign key: see the module's docstring.
    operator_id: Mapped[str] = mapped_column(String(64), server_default=_DEFAULT_OPERATOR)
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"))
    # No foreign key: see the module's docstring. The round keeps its own rules snapshot.
    table_id: Mapped[str] = mapped_column(String(64))
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
    # Issue 21 (migration 0020): the war tie bets of every hand and what they returned; the
    # round in the hands shape where its table needs it (null: the one-hand columns above
    # are the round); when the table's decision clock decides it.
    war_tie_bet: Mapped[int] = mapped_column(BigInteger, server_default=text("0"))
    war_tie_bet_payout: Mapped[int] = mapped_column(BigInteger, server_default=text("0"))
    hands: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    decision_deadline: Mapped[datetime | None] = mapped_column(UTCDateTime())


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

    The launch URL carries a one-time code; exchanging it (once, before
    ``launch_code_expires_at``) clears ``launch_code_hash`` and makes the token. Only the
    SHA-256 of either is stored. ``revoked_at`` is set by the operator or the holder; a
    session is usable while neither revoked nor past ``expires_at``.
    """

    __tablename__ = "game_sessions"
    __table_args__ = (
        # The table is the session operator's own (table ids are unique per operator).
        ForeignKeyConstraint(
            ["operator_id", "table_id"], ["casino_tables.operator_id", "casino_tables.id"]
        ),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    operator_id: Mapped[str] = mapped_column(
        ForeignKey("operators.id"), server_default=_DEFAULT_OPERATOR
    )
    player_id: Mapped[str] = mapped_column(ForeignKey("players.id"), index=True)
    table_id: Mapped[str | None] = mapped_column(String(64))
    #: None until the launch code is exchanged.
    token_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime())
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    #: None once exchanged (or for sessions made before launch codes).
    launch_code_hash: Mapped[str | None] = mapped_column(String(64), unique=True)
    launch_code_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    exchanged_at: Mapped[datetime | None] = mapped_column(UTCDateTime())
    #: The client's language (en, pt, nl, ca, it, el), or None: the browser's.
    language: Mapped[str | None] = mapped_column(String(8))
    #: The operator's own session token given at launch (POST /sessions): a seamless
    #: wallet's calls carry it back as ``session``. Not a credential here.
    operator_session: Mapped[str | None] = mapped_column(String(255))


import casino.store.free_play_models  # noqa: E402  (puts free_play_games on Base.metadata)
import casino.store.wallet_call_models  # noqa: E402, F401  (the seamless wallet calls)
from casino.store import protection_models as _protection  # noqa: E402, F401  (its tables)
from casino.store import shared_models as _shared  # noqa: E402, F401  (shared tables)
from casino.store.operator_models import Operator  # noqa: E402, F401  (the tenants' table)
