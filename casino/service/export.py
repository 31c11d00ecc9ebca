"""The ledger export (docs/audit.md): what an auditor checks offline with the standalone
verifier, casino/audit_export/casino_audit_export.py.

The export is NDJSON: one JSON object per line, in canonical form (sorted keys, no spaces,
ASCII), each with a ``type`` and ``prev``, the SHA-256 of the line before it (64 zeros for
the header), so that a line edited, dropped, inserted or moved is caught where the chain
breaks. Sections, in order: the header; every account; the server seeds of the exported
rounds (a seed's value only once revealed); in a partial export the anchor checkpoint; then
in commit order the transactions, each round's line just before the transaction that placed
it, the bare leaves of sealed transactions outside the range, and each checkpoint right after
the last transaction it sealed; rounds that no transaction placed; the trailer.

Read in one snapshot and written as it is read, in chunks: memory stays constant however
large the ledger (casino.store.export).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from itertools import islice
from typing import Any

from casino.ledger.chain import GENESIS_HASH, canonical_time
from casino.ledger.checkpoints import Checkpoint, TrustedKey, VerifyingKey, as_trusted
from casino.service.export_shared import shared_lines
from casino.service.ledger_reads import check_range
from casino.store import export as store
from casino.store.records import TransactionRecord
from casino.store.types import utcnow
from casino.store.uow import UnitOfWork

FORMAT = "casino-export-v1"
MEDIA_TYPE = "application/x-ndjson"
#: Bytes gathered before they are handed on (a write or an HTTP chunk).
CHUNK = 64 * 1024
#: Transactions whose rounds are looked up together.
_ROUND_LOOKUP = 500
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True)
_GENESIS_STATE = {"balance": 0, "chain_length": 0, "chain_hash": GENESIS_HASH}


def _time(moment: datetime | None) -> str | None:
    return None if moment is None else canonical_time(moment)


class LineWriter:
    """Canonical lines, each chained to the one before by its digest."""

    def __init__(self) -> None:
        self.prev = GENESIS_HASH
        self.lines = 0
        self.counts: Counter[str] = Counter()

    def line(self, document: dict[str, Any]) -> bytes:
        document["prev"] = self.prev
        text = _CANONICAL.encode(document).encode("ascii")
        self.prev = hashlib.sha256(text).hexdigest()
        self.lines += 1
        self.counts[document["type"]] += 1
        return text + b"\n"


def export(
    uow: UnitOfWork,
    *,
    since: datetime | None,
    until: datetime | None,
    keys: Sequence[VerifyingKey | TrustedKey],
    chunk: int = CHUNK,
    from_checkpoint: int | None = None,
) -> Iterator[bytes]:
    """The export of ``uow``'s database, as chunks of whole lines. ``uow`` must be fresh
    (nothing read yet), so that the whole export reads one snapshot; it is only read.
    ``from_checkpoint``: only what follows that checkpoint (the next part of an incremental
    audit; ``NoSuchCheckpoint`` when the chain has no such checkpoint)."""
    since, until = check_range(since, until)
    if from_checkpoint is not None and (since is not None or until is not None):
        raise ValueError("an export is either from a checkpoint or of a time range")
    reads = uow.export
    reads.begin()
    plan = (
        reads.plan(since, until)
        if from_checkpoint is None
        else reads.plan_from_checkpoint(from_checkpoint)
    )
    writer = LineWriter()
    pending: list[bytes] = []
    size = 0
    for document in _documents(reads, plan, keys):
        text = writer.line(document)
        pending.append(text)
        size += len(text)
        if size >= chunk:
            yield b"".join(pending)
            pending, size = [], 0
    trailer = {
        "type": "trailer",
        "lines": writer.lines,
        "counts": dict(sorted(writer.counts.items())),
    }
    pending.append(writer.line(trailer))
    yield b"".join(pending)


def _documents(
    reads: store.ExportStore, plan: store.Plan, keys: Sequence[VerifyingKey | TrustedKey]
) -> Iterator[dict]:
    header: dict[str, Any] = {
        "type": "header",
        "format": FORMAT,
        "exported_at": canonical_time(utcnow()),
        "since": _time(plan.since),
        "until": _time(plan.until),
        "scope": "partial" if plan.partial else "full",
        # Whose books: an export holds one operator's (docs/operators.md), whose shared
        # accounts are keyed <kind>:<currency> for "default", <kind>:<operator>:<currency>
        # for any other.
        "operator": reads.operator(),
        "keys": [key.to_dict() for key in as_trusted(keys)],
        "specification": "docs/audit.md of the casino project",
    }
    if plan.from_checkpoint is not None:
        # Everything after this checkpoint (the anchor): the next part of an incremental
        # audit, checked against the state the verifier saved at that checkpoint.
        header["from_checkpoint"] = plan.from_checkpoint
    yield header
    for account in reads.accounts(plan):
        yield _account(account, plan)
    for seed in reads.seeds(plan):
        yield {
            "type": "seed",
            "id": seed.id,
            "player_id": seed.player_id,
            "server_seed_hash": seed.seed_hash,
            "server_seed": seed.revealed,
            "first_nonce": seed.first_nonce,
            "next_nonce": seed.next_nonce,
            "created_at": canonical_time(seed.created_at),
            "revealed_at": _time(seed.revealed_at),
        }
    if plan.anchor is not None:
        yield {"type": "anchor", "checkpoint": plan.anchor.to_dict()}
    checkpoints = reads.checkpoints(plan)
    next_checkpoint = next(checkpoints, None)
    # The shared-table transactions a partial export holds: their bets come with them.
    shared: set[int] | None = set() if plan.partial else None
    if plan.transactions:
        for batch in _batches(reads.transactions(plan), _ROUND_LOOKUP):
            # After a checkpoint, a round placed before it and decided after comes again,
            # as it is now, before its first transaction of the export.
            continued = plan.from_commit is not None
            placing = [
                tx.round_id
                for tx in batch
                if tx.round_id is not None
                and (continued or tx.kind in store.OPENERS)
                and plan.in_range(tx.created_at, tx.commit_seq)
            ]
            rounds = reads.rounds(placing)
            for tx in batch:
                # A checkpoint goes right after the last transaction it sealed.
                while next_checkpoint is not None and tx.commit_seq >= next_checkpoint.commit_to:
                    yield _checkpoint(next_checkpoint)
                    next_checkpoint = next(checkpoints, None)
                if plan.in_range(tx.created_at, tx.commit_seq):
                    placed = rounds.get(tx.round_id) if tx.round_id is not None else None
                    if placed is not None and _round_goes_before(placed, tx, plan):
                        yield _round(placed)
                    if shared is not None and (tx.reference or "").startswith("shared:"):
                        shared.add(tx.id)
                    yield _transaction(tx)
                elif plan.sealed_until is not None and tx.commit_seq < plan.sealed_until:
                    yield {
                        "type": "leaf",
                        "id": tx.id,
                        "hash": tx.hash,
                        "commit_seq": tx.commit_seq,
                    }
    while next_checkpoint is not None:
        yield _checkpoint(next_checkpoint)
        next_checkpoint = next(checkpoints, None)
    for unplaced in reads.unplaced_rounds(plan):
        yield _round(unplaced)
    yield from shared_lines(reads, plan, shared)


def _round_goes_before(placed: store.RoundExport, tx: TransactionRecord, plan: store.Plan) -> bool:
    """A round's line goes right before the transaction that placed it; in an export from a
    checkpoint, before its first transaction there (its placing one, or a later decision)."""
    if placed.opener_id == tx.id:
        return True
    if plan.from_commit is None or placed.opener_id is None:
        return False
    first = next((pair for pair in placed.transaction_order if pair[0] >= plan.from_commit), None)
    return first == (tx.commit_seq, tx.id)


def _batches(items: Iterable[TransactionRecord], size: int) -> Iterator[list[TransactionRecord]]:
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


def _state(state: store.WalletState | None) -> dict[str, Any] | None:
    if state is None:
        return None
    return {
        "balance": state.balance,
        "chain_length": state.chain_length,
        "chain_hash": state.chain_hash,
    }


def _account(account: store.AccountRecord, plan: store.Plan) -> dict[str, Any]:
    opening = _state(account.opening)
    if account.head is not None and not plan.partial:
        opening = dict(_GENESIS_STATE)  # a full export reads every chain from its start
    return {
        "type": "account",
        "id": account.id,
        "key": account.key,
        "kind": account.kind,
        "currency": account.currency,
        "player_id": account.player_id,
        "head": _state(account.head),
        "opening": opening,
    }


def _transaction(tx: TransactionRecord) -> dict[str, Any]:
    return {
        "type": "transaction",
        "id": tx.id,
        "kind": tx.kind,
        "currency": tx.currency,
        "player_id": tx.player_id,
        "round_id": tx.round_id,
        "reference": tx.reference,
        "wallet_balance_after": tx.wallet_balance_after,
        "created_at": canonical_time(tx.created_at),
        "postings": [[leg, key, amount] for leg, key, amount in tx.postings],
        "wallet_seq": tx.wallet_seq,
        "prev_hash": tx.prev_hash,
        "hash": tx.hash,
        "commit_seq": tx.commit_seq,
    }


def _round(found: store.RoundExport) -> dict[str, Any]:
    record = found.round
    decision = None
    if record.decision is not None:
        decision = {"action": record.decision, "decided_by": record.decided_by or "player"}
    bets = {"ante": record.ante, "tie_bet": record.tie_bet, "raise": record.raise_amount}
    payouts = {
        "ante": record.ante_payout,
        "tie_bet": record.tie_bet_payout,
        "raise": record.raise_payout,
    }
    if record.hands is not None:
        # A round in the hands shape (docs/audit.md): its record, and its totals with the war
        # tie bets; the one-hand fields are hand 0's. A one-hand round's line is as before.
        bets["war_tie_bet"] = record.war_tie_bet
        payouts["war_tie_bet"] = record.war_tie_bet_payout
    line: dict[str, Any] = {
        "type": "round",
        "id": record.id,
        "player_id": record.player_id,
        "table_id": record.table_id,
        "currency": record.currency,
        "status": record.status,
        "rules": dict(record.rules),
        "player_card": record.player_card,
        "dealer_card": record.dealer_card,
        "war": None if record.war is None else dict(record.war),
        "decision": decision,
        "bets": bets,
        "payouts": payouts,
        "net": record.net,
        "balance_after": record.balance_after,
        "fairness": {
            "server_seed_hash": found.seed_hash,
            "client_seed": record.client_seed,
            "nonce": record.nonce,
        },
        "transaction_ids": found.transaction_ids,
        "created_at": canonical_time(record.created_at),
        "settled_at": _time(record.settled_at),
    }
    if record.hands is not None:
        line["table_round"] = dict(record.hands)
    return line


def _checkpoint(checkpoint: Checkpoint) -> dict[str, Any]:
    return {"type": "checkpoint", **checkpoint.to_dict()}
