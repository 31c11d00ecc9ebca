"""The audit's checks of the seals: the signed checkpoints, and what they leave unsealed.

- ``checkpoints``: the checkpoints chain from 1, their commit ranges follow one another, each
  is signed over its recomputed hash by a key trusted for its number, the transactions in its
  range are exactly the ones it counted and hashed into its Merkle root, and in every
  wallet's chain the sealed transactions come before the unsealed ones;
- ``unsealed``: how many transactions no checkpoint seals yet, and that none of them is older
  than a bound: a sealer that stopped (or refuses) is an alarm, not a silent pass.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from casino.ledger.books import Books, CheckResult, Problems, TransactionRow
from casino.ledger.chain import GENESIS_HASH
from casino.ledger.checkpoints import TrustedKey, check_signature
from casino.ledger.merkle import merkle_root, transaction_leaf


@dataclass(frozen=True)
class Sealing:
    """How far the checkpoints reach: the first commit position they leave unsealed, and the
    transactions on either side of it."""

    sealed_until: int
    sealed: int
    unsealed: int
    oldest_unsealed: datetime | None


def sealing(books: Books) -> Sealing:
    sealed_until = books.checkpoints[-1].commit_to if books.checkpoints else 0
    unsealed = [tx for tx in books.transactions if tx.commit_seq >= sealed_until]
    return Sealing(
        sealed_until=sealed_until,
        sealed=len(books.transactions) - len(unsealed),
        unsealed=len(unsealed),
        oldest_unsealed=min((tx.created_at for tx in unsealed), default=None),
    )


def check_checkpoints(
    books: Books,
    chains: Mapping[int, list[TransactionRow]],
    trusted: Sequence[TrustedKey],
    sealed_until: int,
) -> CheckResult:
    problems = Problems()
    by_seq = sorted(books.transactions, key=lambda tx: (tx.commit_seq, tx.id))
    commit_seqs = [tx.commit_seq for tx in by_seq]
    prev_hash = GENESIS_HASH
    prev_to: int | None = None
    total = 0
    for n, checkpoint in enumerate(books.checkpoints, start=1):
        name = f"checkpoint {checkpoint.seq}"
        if checkpoint.seq != n:
            problems.add(f"{name} is not number {n}")
        if checkpoint.prev_hash != prev_hash:
            problems.add(f"{name} does not link to the previous checkpoint")
        if prev_to is not None and checkpoint.commit_from != prev_to:
            problems.add(f"{name} does not start where the previous one ended")
        signature = check_signature(checkpoint, trusted)
        if signature is not None:
            problems.add(signature)
        lo = bisect.bisect_left(commit_seqs, checkpoint.commit_from)
        hi = bisect.bisect_left(commit_seqs, checkpoint.commit_to)
        batch = by_seq[lo:hi]
        total += len(batch)
        if len(batch) != checkpoint.tx_count or total != checkpoint.total_count:
            problems.add(
                f"{name} sealed {checkpoint.tx_count} transactions, its range now holds "
                f"{len(batch)}"
            )
        if merkle_root([transaction_leaf(tx.id, tx.hash) for tx in batch]) != checkpoint.root:
            problems.add(f"{name}: the transactions it sealed were changed, added or removed")
        prev_hash = checkpoint.hash
        prev_to = checkpoint.commit_to
    if books.checkpoints:
        first = books.checkpoints[0].commit_from
        early = bisect.bisect_left(commit_seqs, first)
        if early:
            problems.add(f"{early} transaction(s) lie before the first checkpoint's range")
    # In each wallet's chain, sealed transactions come first: one inserted behind a seal
    # (unsealed, but placed before sealed links) is caught even if it kept the links intact.
    for wallet_id, chain in chains.items():
        seen_unsealed = False
        for tx in chain:
            is_sealed = tx.commit_seq < sealed_until
            if is_sealed and seen_unsealed:
                problems.add(f"wallet {wallet_id}: an unsealed transaction precedes sealed ones")
                break
            seen_unsealed = seen_unsealed or not is_sealed
    sealed = bisect.bisect_left(commit_seqs, sealed_until) if books.checkpoints else 0
    return problems.result(
        "checkpoints",
        f"{len(books.checkpoints)} checkpoints signed and matching; {sealed} of "
        f"{len(by_seq)} transactions sealed",
    )


def check_unsealed(
    state: Sealing, *, now: datetime | None, max_age: timedelta | None
) -> CheckResult:
    """The transactions no checkpoint seals yet; a failure when the oldest of them is older
    than ``max_age`` at ``now`` (no bound: counted only)."""
    problems = Problems()
    age = None if state.oldest_unsealed is None or now is None else now - state.oldest_unsealed
    if age is not None and max_age is not None and age > max_age:
        problems.add(
            f"{state.unsealed} transaction(s) unsealed, the oldest for {_words(age)} (more than "
            f"{_words(max_age)}): is the sealer running? (casino seal)"
        )
    oldest = "" if age is None else f", the oldest {_words(age)} old"
    bound = "" if max_age is None else f" (at most {_words(max_age)} allowed)"
    return problems.result(
        "unsealed",
        f"{state.sealed} transactions sealed, {state.unsealed} not yet{oldest}{bound}",
    )


def _words(span: timedelta) -> str:
    seconds = max(0, int(span.total_seconds()))
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h"
