"""Plain records the store hands to the service layer and takes back: no ORM object, no
SQLAlchemy type, crosses the seam."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from casino.ledger.transactions import WalletState
from casino.store.protection_records import LimitRecord, ProtectionRecord


@dataclass
class RoundRecord:
    """One Casino War round, as stored: the one record type of a round, on every database."""

    id: str
    player_id: str
    table_id: str
    currency: str
    rules: dict[str, Any]
    status: str
    server_seed_id: int
    client_seed: str
    nonce: int
    ante: int
    tie_bet: int
    raise_amount: int
    player_card: str
    dealer_card: str
    war: dict[str, Any] | None
    decision: str | None
    decided_by: str | None
    ante_payout: int
    tie_bet_payout: int
    raise_payout: int
    net: int
    balance_after: int
    created_at: datetime
    settled_at: datetime | None
    #: The rest came with several hands (migration 0020); a round of before has the defaults.
    war_tie_bet: int = 0
    war_tie_bet_payout: int = 0
    #: The round in the hands shape (``TableRoundResult.to_dict()``); None: the one-hand shape.
    hands: dict[str, Any] | None = None
    decision_deadline: datetime | None = None

    def values(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in ROUND_COLUMNS}


ROUND_COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(RoundRecord))
#: What a decision changes in a round.
DECISION_COLUMNS = (
    "status",
    "decision",
    "decided_by",
    "raise_amount",
    "war",
    "ante_payout",
    "raise_payout",
    "tie_bet_payout",
    "net",
    "balance_after",
    "settled_at",
    "war_tie_bet",
    "war_tie_bet_payout",
    "hands",
    "decision_deadline",
)


@dataclass(frozen=True)
class Wallet:
    """A wallet row locked by this unit of work: its account id, key and state."""

    id: int
    key: str
    state: WalletState


@dataclass(frozen=True)
class SeedRecord:
    id: int
    player_id: str
    seed: bytes
    seed_hash: str
    client_seed: str
    active: bool
    first_nonce: int
    next_nonce: int
    created_at: datetime
    revealed_at: datetime | None
    #: The successor committed while this seed is active (None once revealed).
    next_seed: bytes | None
    next_seed_hash: str | None
    client_seed_chosen: bool

    @property
    def revealed(self) -> str | None:
        """The server seed in hex once rotation has revealed it."""
        return None if self.active or self.revealed_at is None else self.seed.hex()


@dataclass(frozen=True)
class TableRecord:
    id: str
    currency: str
    rules: dict[str, Any]
    active: bool
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class PlayerRecord:
    id: str
    external_ref: str
    display_name: str | None
    created_at: datetime


@dataclass(frozen=True)
class TokenOwner:
    """Who a player's credential (its token, a game session) belongs to, as authentication
    finds it: the player, its operator and whether that operator is active."""

    player_id: str
    operator_id: str
    operator_active: bool


@dataclass(frozen=True)
class BetClaim:
    """What a bet needs before dealing, read and locked in one go: the next nonce of the
    player's active seed (taken), the table, the player's open round if any, and the wallet of
    the table's currency (locked; None when the player has none)."""

    seed_id: int
    server_seed: bytes
    seed_hash: str
    client_seed: str
    nonce: int
    open_round_id: str | None
    table: TableRecord | None
    wallet: Wallet | None
    tx_id: int
    # The player's protection row and its loss / wager limits in the table's currency, both
    # locked (None / empty for a player who has none).
    protection: ProtectionRecord | None = None
    limits: tuple[LimitRecord, ...] = ()
    #: The table deals shared rounds (a private bet there is refused).
    shared: bool = False


@dataclass(frozen=True)
class DecisionClaim:
    """A round awaiting a decision, locked, with its seed, its transactions so far and its
    wallet (locked)."""

    round: RoundRecord
    server_seed: bytes
    seed_hash: str
    revealed: str | None
    transaction_ids: list[int]
    wallet: Wallet
    tx_id: int
    # The player's loss / wager limits in the round's currency and its protection row, as of
    # the claim (not locked: the commit checks the limits again against the rows as they
    # stand, and a decision is allowed whatever the account's status).
    limits: tuple[LimitRecord, ...] = ()
    protection: ProtectionRecord | None = None


@dataclass(frozen=True)
class RoundRow:
    """A round for recall: the record, its seed's commitment (and the seed once revealed) and
    its ledger transaction ids."""

    round: RoundRecord
    seed_hash: str
    revealed: str | None
    transaction_ids: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class TransactionRecord:
    id: int
    kind: str
    currency: str
    player_id: str
    wallet_id: int
    round_id: str | None
    reference: str | None
    wallet_balance_after: int
    created_at: datetime
    wallet_seq: int
    prev_hash: str
    hash: str
    commit_seq: int
    postings: list[tuple[int, str, int]]  # (leg, account key, amount)


@dataclass(frozen=True)
class StoredResponseRecord:
    fingerprint: str
    status: int
    body: dict[str, Any]
