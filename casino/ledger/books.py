"""What the ledger audit reads (casino.store.books reads it in one snapshot) and what each of
its checks reports. Pure data: the checks are casino.ledger.audit, audit_seals and
audit_rounds."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from casino.engine.casino_war import TableRules
from casino.ledger.checkpoints import Checkpoint

MAX_DETAILS = 10


@dataclass(frozen=True)
class AccountRow:
    id: int
    key: str
    kind: str
    currency: str
    player_id: str | None
    balance: int | None
    chain_length: int
    chain_hash: str


@dataclass(frozen=True)
class TransactionRow:
    id: int
    kind: str
    currency: str
    player_id: str
    wallet_id: int
    round_id: str | None
    reference: str | None
    wallet_balance_after: int
    created_at: Any
    wallet_seq: int
    prev_hash: str
    hash: str
    commit_seq: int
    postings: list[tuple[int, int, int]] = field(default_factory=list)  # leg, account, amount


@dataclass(frozen=True)
class RoundRowForAudit:
    id: str
    player_id: str
    currency: str
    rules: TableRules
    status: str
    server_seed: bytes
    client_seed: str
    nonce: int
    ante: int
    tie_bet: int
    raise_amount: int
    player_card: str
    dealer_card: str
    war: Mapping[str, Any] | None
    decision: str | None
    ante_payout: int
    tie_bet_payout: int
    raise_payout: int
    net: int
    #: Since several hands (migration 0020): the war tie bets, and the round in the hands
    #: shape (None: the one-hand columns above are the round).
    war_tie_bet: int = 0
    war_tie_bet_payout: int = 0
    hands: Mapping[str, Any] | None = None


@dataclass
class Books:
    accounts: dict[int, AccountRow]
    transactions: list[TransactionRow]
    checkpoints: list[Checkpoint]
    rounds: Iterable[RoundRowForAudit]
    open_stakes: dict[str, int] = field(default_factory=dict)  # currency -> antes in play
    rounds_since: datetime | None = None  # ``rounds`` holds only those started since then
    orphan_postings: list[int] = field(default_factory=list)  # tx ids with no transaction


@dataclass(frozen=True)
class CheckResult:
    name: str
    ok: bool
    detail: str
    failures: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "detail": self.detail, "failures": self.failures}


class Problems:
    """What one check found: the first few messages and how many there were."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self.count = 0

    def add(self, message: str) -> None:
        self.count += 1
        if len(self.items) < MAX_DETAILS:
            self.items.append(message)

    def result(self, name: str, ok_detail: str) -> CheckResult:
        if not self.count:
            return CheckResult(name, True, ok_detail)
        more = f" (+{self.count - len(self.items)} more)" if self.count > len(self.items) else ""
        return CheckResult(name, False, "; ".join(self.items) + more, self.count)
