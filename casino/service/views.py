"""Plain, frozen data returned by the use cases: what the API serialises and the CLI prints.

Views hold only str/int/bool/None/datetime/dict/list, ids as strings (ledger transaction ids
are ints). No ORM object ever leaves the service layer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

from casino.ledger.transactions import KINDS as LEDGER_KINDS

T = TypeVar("T")

#: Kinds of ledger transactions, as they appear in ``TransactionView.kind``.
#: ``raise`` and ``settlement`` are what rounds booked before a round's money became one or two
#: transactions (migration 0004); such history stays readable.
TRANSACTION_KINDS = (*LEDGER_KINDS, "raise", "settlement")
ROUND_STATUSES = ("awaiting_decision", "settled")
#: Who made a round's decision: the player, or the system for a stale round (resolve-stale).
DECIDED_BY = ("player", "system", "timeout")


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    next_cursor: str | None


@dataclass(frozen=True)
class PlayerView:
    id: str
    external_ref: str
    display_name: str | None
    created_at: datetime


@dataclass(frozen=True)
class WalletView:
    currency: str
    balance: int


@dataclass(frozen=True)
class TransactionView:
    """One ledger transaction as one player sees it.

    ``postings`` is a list of ``{"account": str, "amount": int}`` legs (positive = credit to the
    account); accounts are named ``wallet:<player_id>``, ``house``, ``in_play``, ``cash``
    (the currency is the transaction's). ``balance_after`` is the player's wallet balance right
    after the transaction.
    """

    id: int
    kind: str
    round_id: str | None
    currency: str
    postings: list[dict[str, Any]]
    balance_after: int | None
    reference: str | None
    created_at: datetime
    hash: str


@dataclass(frozen=True)
class LedgerTransactionView:
    """One ledger transaction as operators see it: ``TransactionView`` with its player and
    its place in the books (its wallet's chain, and ``commit_seq``, the order checkpoints
    seal transactions in)."""

    id: int
    kind: str
    player_id: str
    round_id: str | None
    currency: str
    postings: list[dict[str, Any]]
    balance_after: int
    reference: str | None
    created_at: datetime
    wallet_seq: int
    prev_hash: str
    hash: str
    commit_seq: int


@dataclass(frozen=True)
class TableView:
    """``rules``: decks, min_ante, max_ante, bet_increment, max_tie_bet, tie_pays,
    war_tie_bonus, surrender_allowed. ``rtp``: {"war"|"surrender"|"tie_bet": {"exact": "p/q",
    "value": float}}."""

    id: str
    currency: str
    rules: dict[str, Any]
    rtp: dict[str, dict[str, Any]]
    active: bool
    created_at: datetime
    updated_at: datetime
    #: ``private`` or ``shared`` (docs/shared-tables.md); ``shared``: the shared clock.
    mode: str = "private"
    shared: dict[str, Any] | None = None


@dataclass(frozen=True)
class SeedsView:
    """The active pair and the commitment to the server seed that will succeed it."""

    server_seed_hash: str
    client_seed: str
    next_nonce: int
    next_server_seed_hash: str
    client_seed_chosen: bool


@dataclass(frozen=True)
class RotationView:
    """``revealed``: {"server_seed": hex, "server_seed_hash", "client_seed" (the last one),
    "client_seeds": [every client seed used with it, in order], "first_nonce",
    "last_nonce" (None when no round used it), "revealed_at"}."""

    revealed: dict[str, Any]
    current: SeedsView


@dataclass(frozen=True)
class RoundView:
    """A round's game recall.

    ``war``: None or {"burns": [codes], "player_card", "dealer_card"}.
    ``decision``: None or {"action": "surrender"|"war", "decided_by": "player"|"system"|
    "timeout"} (hand 0's; ``player_card`` and ``war`` are hand 0's too).
    ``bets`` / ``payouts``: {"ante", "tie_bet", "raise"} ints; a payout is the amount returned
    to the wallet for that bet, stake included, as far as it is settled (while the round awaits
    a decision only the tie bet is settled).
    ``outcomes``: {"ante", "tie_bet", "raise"} -> "win" | "lose" | "push" | "surrender" |
    "pending" | "none" (``casino.engine.casino_war.BetOutcome``), read from the amounts: a war
    the player wins is ante ``push``, raise ``win``.
    ``net``: the wallet's change from this round so far; ``balance_after``: the wallet after
    the round's latest transaction.
    ``fairness``: {"server_seed_hash", "client_seed", "nonce", "server_seed" (hex, None until
    the seed is revealed by a rotation)}.
    """

    id: str
    player_id: str
    table_id: str
    status: str
    player_card: str
    dealer_card: str
    war: dict[str, Any] | None
    decision: dict[str, str] | None
    bets: dict[str, int]
    payouts: dict[str, int]
    net: int
    balance_after: int
    currency: str
    fairness: dict[str, Any]
    transaction_ids: list[int]
    created_at: datetime
    settled_at: datetime | None
    rules: dict[str, Any] = field(default_factory=dict)
    outcomes: dict[str, str] = field(default_factory=dict)
    #: A reality check due now (casino.service.protection.reality_check): in every round
    #: answer the player gets (bets, decisions, recall) until the player acknowledges it.
    reality_check: dict[str, Any] | None = None
    #: The round in the hands shape (docs/fairness.md section 14), every round (one hand
    #: included): ``dealing``, ``hands`` (HandResult.to_dict() each), ``wars``
    #: (WarDeal.to_dict() each); the hands awaiting a decision; when the table's decision
    #: clock decides them (None without a clock or once decided).
    dealing: str = "classic"
    hands: list[dict[str, Any]] = field(default_factory=list)
    wars: list[dict[str, Any]] = field(default_factory=list)
    awaiting_hands: list[int] = field(default_factory=list)
    decision_deadline: datetime | None = None


@dataclass(frozen=True)
class StoredResponse:
    """A successful response remembered under an idempotency key."""

    status: int
    body: dict[str, Any]
