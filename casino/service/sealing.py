"""Sealing the ledger: every transaction committed so far goes into a signed checkpoint.

``seal`` is idempotent and safe to run from several hosts at once (casino.store.checkpoints):
run it on a schedule (``casino seal --every 5``), or let ``casino serve`` run it beside the
web workers. It reads only committed, final rows and writes only checkpoints, so it never
waits for a bet and no bet waits for it. Before it signs it checks what it continues and
what it seals (casino.service.sealer_guard): it is no signing oracle for whoever can write
to the database.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from casino.ledger.chain import GENESIS_HASH
from casino.ledger.checkpoints import (
    Checkpoint,
    CheckpointBody,
    SigningKey,
    TrustedKey,
    VerifyingKey,
    as_trusted,
    roll_up,
    seal,
)
from casino.ledger.merkle import inclusion_proof, merkle_root, transaction_leaf
from casino.service.errors import NotFound
from casino.service.sealer_guard import (
    BatchLinks,
    ChainGuard,
    SealerRecord,
    SealRefused,
    verified_last,
)
from casino.store.types import utcnow
from casino.store.uow import UnitOfWork

__all__ = [
    "BATCH",
    "RecordStore",
    "SealRefused",
    "SealRun",
    "Sealer",
    "SealerRecord",
    "seal_pending",
]

#: Transactions at most in one checkpoint (a first seal of a large ledger makes several).
BATCH = 50_000


@dataclass(frozen=True)
class SealRun:
    """What one run did: the checkpoints it made, and the ledger's last checkpoint after it,
    trusted: the sealer's record from now on (None: nothing to record, the ledger has no
    checkpoint or another sealer held the lock)."""

    made: list[Checkpoint]
    last: Checkpoint | None
    first_record: bool = False  # the sealer had no record before this run

    @property
    def record(self) -> SealerRecord | None:
        return None if self.last is None else SealerRecord(self.last.seq, self.last.hash)


class RecordStore(Protocol):
    """Where a sealer keeps its record (casino.store.sealer_state.SealerStateFile)."""

    def holding(self) -> AbstractContextManager[None]: ...

    def load(self) -> SealerRecord | None: ...

    def save(self, record: SealerRecord, key_id: str) -> None: ...


class Sealer:
    """Seals with ``key``; trusts the checkpoints of ``trusted`` keys (its own key's always).
    One per process: it remembers the wallet heads it sealed between runs."""

    def __init__(
        self,
        key: SigningKey,
        trusted: Sequence[VerifyingKey | TrustedKey] = (),
        *,
        batch: int = BATCH,
    ) -> None:
        self.key = key
        self.trusted = as_trusted(trusted)
        if not any(entry.key == key.verifying for entry in self.trusted):
            self.trusted.insert(0, TrustedKey(key.verifying))
        self.batch = batch
        self.guard = ChainGuard(self.trusted)

    def run(
        self,
        uow: UnitOfWork,
        *,
        tracked: bool = False,
        record: SealerRecord | None = None,
        first_use: bool = False,
    ) -> SealRun:
        """Seal what has been committed and not sealed yet (nothing when another sealer is at
        it). ``tracked``: this sealer keeps a record (``record``, None before its first
        checkpoint), which the ledger must continue. Raises SealRefused, having signed
        nothing. The caller commits, then calls ``committed`` (or ``rolled_back``)."""
        self.guard.rolled_back()
        if not uow.checkpoints.try_lock():
            return SealRun([], None)  # another sealer is at it: nothing to record either
        last = verified_last(uow, self.trusted, tracked=tracked, record=record, first_use=first_use)
        made: list[Checkpoint] = []
        horizon = uow.checkpoints.horizon()
        while True:
            start = 0 if last is None else last.commit_to
            if horizon <= start:
                break
            end = uow.checkpoints.batch_end(start, horizon, self.batch)
            links = BatchLinks()
            for link in uow.checkpoints.links(start, end):
                links.add(link)
            if not links.leaves:
                break  # nothing committed since the last checkpoint
            self.guard.check(uow, links, start, end)
            body = CheckpointBody(
                seq=1 if last is None else last.seq + 1,
                commit_from=start,
                commit_to=end,
                tx_count=len(links.leaves),
                total_count=len(links.leaves) + (0 if last is None else last.total_count),
                root=merkle_root([transaction_leaf(i, h) for i, h in links.leaves]),
                balances=roll_up(
                    {} if last is None else last.balances, uow.checkpoints.movements(start, end)
                ),
                created_at=utcnow(),
                prev_hash=GENESIS_HASH if last is None else last.hash,
            )
            checkpoint = seal(body, self.key)
            if not uow.checkpoints.add(checkpoint):
                break  # another sealer took this place
            self.guard.sealed(links)
            made.append(checkpoint)
            last = checkpoint
        return SealRun(made, last)

    def committed(self) -> None:
        """The run's checkpoints are committed: the heads they sealed are known."""
        self.guard.committed()

    def rolled_back(self) -> None:
        self.guard.rolled_back()

    def seal(
        self, uow: UnitOfWork, record: RecordStore | None = None, *, first_use: bool = False
    ) -> SealRun:
        """One run of the sealer as a use case: with ``record`` (its record store) it checks
        the ledger against it, commits, and then records the last checkpoint (after the
        commit: a crash in between leaves the record behind the ledger, which the next run
        verifies forward; ahead of it, it would refuse)."""
        if record is None:
            return self._seal(uow, None, first_use)
        # Sealers sharing the record take turns, from reading it to writing it: one that read
        # it before another recorded the first checkpoints would find checkpoints it has no
        # record of. (The unit of work has begun nothing yet, so no database lock is held.)
        with record.holding():
            return self._seal(uow, record, first_use)

    def _seal(self, uow: UnitOfWork, record: RecordStore | None, first_use: bool) -> SealRun:
        recorded = None if record is None else record.load()
        try:
            run = self.run(uow, tracked=record is not None, record=recorded, first_use=first_use)
            uow.commit()
        except BaseException:
            self.rolled_back()
            raise
        self.committed()
        if record is not None and run.record is not None and run.record != recorded:
            record.save(run.record, self.key.key_id)
            return SealRun(run.made, run.last, first_record=recorded is None)
        return run


def seal_pending(
    uow: UnitOfWork,
    key: SigningKey,
    *,
    batch: int = BATCH,
    trusted: Sequence[VerifyingKey | TrustedKey] = (),
) -> list[Checkpoint]:
    """Seal what has been committed and not sealed yet, keeping no record (a sealer of its
    own for this one run); the checkpoints made. The caller commits."""
    return Sealer(key, trusted, batch=batch).run(uow).made


def trusted_keys(public: str | None, others: Sequence[str]) -> list[TrustedKey]:
    """The keys checkpoints may be signed with: the signing key's public key (``public``,
    hex or PEM; trusted for any checkpoint) and earlier ones (``KEY`` or ``KEY@FIRST-LAST``,
    trusted for the checkpoints they signed)."""
    keys = [TrustedKey.parse(text) for text in others]
    if public:
        keys.insert(0, TrustedKey(VerifyingKey.parse(public)))
    return keys


def list_checkpoints(uow: UnitOfWork, after: int, limit: int) -> list[Checkpoint]:
    return uow.checkpoints.page(max(after, 0), max(1, min(limit, 1000)))


def get_checkpoint(uow: UnitOfWork, seq: int) -> Checkpoint:
    found = uow.checkpoints.get(seq) if 0 < seq < 2**63 else None
    if found is None:
        raise NotFound("no such checkpoint", code="checkpoint_not_found")
    return found


@dataclass(frozen=True)
class InclusionProof:
    """That transaction ``tx_id`` with ``tx_hash`` is leaf ``index`` of the Merkle tree of
    ``checkpoint``: anyone can check it with casino.ledger.merkle.verify_inclusion."""

    tx_id: int
    tx_hash: str
    index: int
    size: int
    path: list[str]
    checkpoint: Checkpoint


def inclusion(uow: UnitOfWork, tx_id: int) -> InclusionProof | None:
    """The proof that a transaction is sealed; None while it is not sealed yet."""
    checkpoint = uow.checkpoints.sealing(tx_id) if 0 < tx_id < 2**63 else None
    if checkpoint is None:
        return None
    leaves = uow.checkpoints.leaves(checkpoint.commit_from, checkpoint.commit_to)
    index = next(n for n, (leaf_id, _) in enumerate(leaves) if leaf_id == tx_id)
    encoded = [transaction_leaf(i, h) for i, h in leaves]
    return InclusionProof(
        tx_id=tx_id,
        tx_hash=leaves[index][1],
        index=index,
        size=len(leaves),
        path=inclusion_proof(encoded, index),
        checkpoint=checkpoint,
    )
