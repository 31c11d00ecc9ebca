"""Sealing the ledger: every transaction committed so far goes into a signed checkpoint.

``seal`` is idempotent and safe to run from several hosts at once (casino.store.checkpoints):
run it on a schedule (``casino seal --every 5``), or let ``casino serve`` run it beside the
web workers. It reads only committed, final rows and writes only checkpoints, so it never
waits for a bet and no bet waits for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from casino.ledger.chain import GENESIS_HASH
from casino.ledger.checkpoints import Checkpoint, SigningKey, VerifyingKey, roll_up, seal
from casino.ledger.merkle import inclusion_proof, merkle_root, transaction_leaf
from casino.service.errors import NotFound
from casino.store.types import utcnow
from casino.store.uow import UnitOfWork

#: Transactions at most in one checkpoint (a first seal of a large ledger makes several).
BATCH = 50_000


def seal_pending(uow: UnitOfWork, key: SigningKey, *, batch: int = BATCH) -> list[Checkpoint]:
    """Seal what has been committed and not sealed yet; the checkpoints made (none when
    another sealer is at it or nothing is new). The caller commits."""
    if not uow.checkpoints.try_lock():
        return []
    made: list[Checkpoint] = []
    last = uow.checkpoints.last()
    horizon = uow.checkpoints.horizon()
    while True:
        start = 0 if last is None else last.commit_to
        if horizon <= start:
            return made
        end = uow.checkpoints.batch_end(start, horizon, batch)
        leaves = uow.checkpoints.leaves(start, end)
        if not leaves:
            return made  # nothing committed since the last checkpoint
        checkpoint = seal(
            seq=1 if last is None else last.seq + 1,
            commit_from=start,
            commit_to=end,
            tx_count=len(leaves),
            total_count=len(leaves) + (0 if last is None else last.total_count),
            root=merkle_root([transaction_leaf(tx_id, tx_hash) for tx_id, tx_hash in leaves]),
            balances=roll_up(
                {} if last is None else last.balances, uow.checkpoints.movements(start, end)
            ),
            created_at=utcnow(),
            prev_hash=GENESIS_HASH if last is None else last.hash,
            key=key,
        )
        if not uow.checkpoints.add(checkpoint):
            return made  # another sealer took this place
        made.append(checkpoint)
        last = checkpoint


def trusted_keys(signing: str | None, others: Sequence[str]) -> list[VerifyingKey]:
    """The public keys checkpoints may be signed with: the signing key's and earlier ones."""
    keys = [VerifyingKey.parse(text) for text in others]
    if signing:
        keys.insert(0, SigningKey.parse(signing).verifying)
    return keys


def list_checkpoints(uow: UnitOfWork, after: int, limit: int) -> list[Checkpoint]:
    return uow.checkpoints.page(max(after, 0), max(1, min(limit, 1000)))


def get_checkpoint(uow: UnitOfWork, seq: int) -> Checkpoint:
    # Beyond a bigint no checkpoint can be (and the database would refuse the number).
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
    checkpoint = uow.checkpoints.sealing(tx_id)
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
