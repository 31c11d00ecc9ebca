"""What the sealer checks before it signs anything, so that it is no signing oracle for
whoever can write to the database (docs/audit.md, "Threat model").

Someone with write access to the database could delete checkpoints from some number on,
rewrite what they sealed, recompute the (plain SHA-256) chain hashes, and wait for the sealer
to sign the forgery. The sealer refuses:

1. **Its own record** (``CASINO_SEALER_STATE``, casino.store.sealer_state): the last
   checkpoint it signed, or accepted. The database's last checkpoint must be that one or a
   later one that continues it, each checked with a trusted key; a ledger that ends before
   it, or holds another checkpoint at its number, was cut back or rewritten.
2. **The checkpoint it continues**: its hash recomputed and its signature checked with a key
   trusted for its number (its fields go into the next one).
3. **Each transaction it seals** continues its wallet's chain (its ``prev_hash`` is the
   hash of the link before it) from the transaction sealed before: that one's link
   recomputed from its row, its checkpoint's Merkle root recomputed from the rows and its
   signature checked, and nothing of the wallet sealed after it. Heads it sealed itself
   while running are remembered and need no lookup. (Whether each new row hashes to its own
   link is the audit's check: a writer can write any unsealed row anyway; what it must not
   get is a signature over a chain that leaves the sealed one.)

A refusal raises ``SealRefused``: nothing is signed, the caller exits non-zero, logs and
counts it (casino.cli.seal_cmd).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from casino.ledger.chain import GENESIS_HASH, content_digest, link_hash
from casino.ledger.checkpoints import Checkpoint, CheckpointRef, TrustedKey, check_signature
from casino.ledger.merkle import merkle_root, transaction_leaf
from casino.store.checkpoints import Link
from casino.store.records import TransactionRecord
from casino.store.uow import UnitOfWork

#: Why a sealer refused: its record, a checkpoint it would continue, or a wallet's chain.
RECORD, CHECKPOINT, CHAIN = "record", "checkpoint", "chain"
#: Wallet heads remembered at most (then forgotten and looked up again).
MAX_HEADS = 1_000_000
_PAGE = 1_000


class SealRefused(Exception):
    """The sealer will not sign: ``reason`` is RECORD, CHECKPOINT or CHAIN."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


#: The last checkpoint a sealer signed or accepted.
SealerRecord = CheckpointRef


def verified_last(
    uow: UnitOfWork,
    trusted: Sequence[TrustedKey],
    *,
    tracked: bool,
    record: SealerRecord | None,
    first_use: bool,
) -> Checkpoint | None:
    """The database's last checkpoint, once trusted: signed by a trusted key and, for a
    sealer that keeps a record (``tracked``), the recorded one or a verified successor.
    A tracked sealer without a record yet continues an empty ledger, or one whose whole
    chain of checkpoints it verifies when ``first_use`` says so."""
    last = uow.checkpoints.last()
    if last is None:
        if tracked and record is not None:
            raise SealRefused(
                RECORD,
                f"this sealer signed up to checkpoint {record.seq} and the ledger has none: "
                "its checkpoints were deleted, or this is another database",
            )
        return None
    problem = check_signature(last, trusted)
    if problem is not None:
        raise SealRefused(CHECKPOINT, f"the ledger's last checkpoint is not trusted: {problem}")
    if not tracked:
        return last
    if record is None:
        if not first_use:
            raise SealRefused(
                RECORD,
                f"no record of the last checkpoint this sealer signed (CASINO_SEALER_STATE), "
                f"and the ledger holds {last.seq}: check them (casino audit) and run "
                "`casino seal --init` once to trust them",
            )
        _chain_from(uow, trusted, None, last)
        return last
    if last.seq < record.seq:
        raise SealRefused(
            RECORD,
            f"the ledger's last checkpoint is {last.seq}, this sealer signed up to "
            f"{record.seq}: checkpoints were deleted, or the database was rolled back",
        )
    _chain_from(uow, trusted, record, last)
    return last


def _chain_from(
    uow: UnitOfWork, trusted: Sequence[TrustedKey], record: SealerRecord | None, last: Checkpoint
) -> None:
    """Checkpoints from the recorded one (or the first) to ``last`` follow one another, each
    signed by a key trusted for its number; the recorded one is the one recorded."""
    expected_seq = 1 if record is None else record.seq
    prev_hash = GENESIS_HASH
    after = expected_seq - 1
    while True:
        page = uow.checkpoints.page(after, _PAGE)
        for checkpoint in page:
            if checkpoint.seq != expected_seq:
                raise SealRefused(RECORD, f"checkpoint {expected_seq} is missing")
            if record is not None and checkpoint.seq == record.seq:
                if checkpoint.hash != record.hash:
                    raise SealRefused(
                        RECORD,
                        f"checkpoint {record.seq} is not the one this sealer signed "
                        f"(hash {checkpoint.hash[:16]}, recorded {record.hash[:16]}): "
                        "the ledger was rewritten",
                    )
            elif checkpoint.prev_hash != prev_hash:
                raise SealRefused(
                    CHECKPOINT, f"checkpoint {checkpoint.seq} does not follow the one before"
                )
            problem = check_signature(checkpoint, trusted)
            if problem is not None:
                raise SealRefused(CHECKPOINT, problem)
            prev_hash = checkpoint.hash
            expected_seq += 1
            if checkpoint.seq == last.seq:
                return
        if not page:
            raise SealRefused(RECORD, f"checkpoint {expected_seq} is missing")
        after = page[-1].seq


def recomputed_link(tx: TransactionRecord) -> str:
    """The link a transaction's row and postings hash to (casino.ledger.chain)."""
    digest = content_digest(
        tx_id=tx.id,
        kind=tx.kind,
        currency=tx.currency,
        player_id=tx.player_id,
        round_id=tx.round_id,
        reference=tx.reference,
        wallet_balance_after=tx.wallet_balance_after,
        created_at=tx.created_at,
        postings=tx.postings,
    )
    return link_hash(tx.prev_hash, tx.wallet_seq, digest)


@dataclass
class BatchLinks:
    """The links of the transactions one batch seals, by wallet, as they are read."""

    leaves: list[tuple[int, str]] = field(default_factory=list)
    wallets: dict[int, list[Link]] = field(default_factory=lambda: defaultdict(list))

    def add(self, link: Link) -> None:
        self.leaves.append((link.id, link.hash))
        self.wallets[link.wallet_id].append(link)


@dataclass
class ChainGuard:
    """Checks that a batch continues every wallet's sealed chain. It remembers the heads it
    sealed (``sealed``, kept once ``committed``) so that a long-running sealer looks up only
    the wallets new to it."""

    trusted: Sequence[TrustedKey]
    heads: dict[int, tuple[int, str]] = field(default_factory=dict)
    fresh: dict[int, tuple[int, str]] = field(default_factory=dict)  # not committed yet
    _roots: dict[int, bool] = field(default_factory=dict)

    def check(self, uow: UnitOfWork, batch: BatchLinks, start: int, end: int) -> None:
        """``batch`` seals ``[start, end)``; everything below ``start`` is sealed."""
        self._roots = {}  # verified checkpoints: for this batch only (rows may change later)
        unknown: list[tuple[int, int]] = []
        for wallet_id, links in batch.wallets.items():
            links.sort(key=lambda link: link.seq)
            for before, link in pairwise(links):
                if link.seq != before.seq + 1:
                    self._pending_before(uow, wallet_id, link, end)
                elif link.prev_hash != before.hash:
                    raise SealRefused(
                        CHAIN, f"transaction {link.id} does not link to the one before it"
                    )
            head = self.fresh.get(wallet_id) or self.heads.get(wallet_id)
            first = links[0]
            if head is not None and first.seq == head[0] + 1:
                if first.prev_hash != head[1]:
                    raise SealRefused(
                        CHAIN,
                        f"transaction {first.id} does not continue wallet {wallet_id}'s chain "
                        "as this sealer sealed it: its history was rewritten",
                    )
            elif head is not None and first.seq <= head[0]:
                raise SealRefused(
                    CHAIN,
                    f"transaction {first.id} takes position {first.seq} of wallet "
                    f"{wallet_id}, which this sealer sealed already: its history was rewritten",
                )
            else:
                unknown.append((wallet_id, max(first.seq - 1, 0)))
        if unknown:
            self._look_up(uow, batch, unknown, start, end)

    def _look_up(
        self,
        uow: UnitOfWork,
        batch: BatchLinks,
        positions: list[tuple[int, int]],
        start: int,
        end: int,
    ) -> None:
        """The wallets whose sealed head is not remembered: read from the database, and
        trusted once its checkpoint's root and signature hold."""
        sealed: dict[int, list[TransactionRecord]] = defaultdict(list)
        for tx in uow.checkpoints.sealed_since(positions, start):
            sealed[tx.wallet_id].append(tx)
        for wallet_id, before_seq in positions:
            first = batch.wallets[wallet_id][0]
            found = sorted(sealed.get(wallet_id, []), key=lambda tx: tx.wallet_seq)
            later = [tx for tx in found if tx.wallet_seq > before_seq]
            if later:
                raise SealRefused(
                    CHAIN,
                    f"transaction {later[0].id} is sealed at position {later[0].wallet_seq} "
                    f"of wallet {wallet_id}, after the unsealed transaction {first.id}: its "
                    "history was rewritten",
                )
            if first.seq == 1:
                if first.prev_hash != GENESIS_HASH:
                    raise SealRefused(CHAIN, f"transaction {first.id} starts no chain")
                continue
            if found:
                self._sealed_before(uow, found[-1], first)
            else:
                self._pending_before(uow, wallet_id, first, end)

    def _sealed_before(self, uow: UnitOfWork, before: TransactionRecord, first: Link) -> None:
        if before.hash != first.prev_hash or recomputed_link(before) != before.hash:
            raise SealRefused(
                CHAIN,
                f"transaction {first.id} does not continue wallet {before.wallet_id}'s "
                f"sealed chain (transaction {before.id} at position {before.wallet_seq})",
            )
        checkpoint = uow.checkpoints.covering(before.commit_seq)
        if checkpoint is None or not self._root_holds(uow, checkpoint):
            raise SealRefused(
                CHAIN,
                f"transaction {before.id}, which {first.id} continues, is not as its "
                "checkpoint sealed it: sealed history was rewritten",
            )

    def _pending_before(self, uow: UnitOfWork, wallet_id: int, first: Link, end: int) -> None:
        """The link before ``first`` is not sealed: committed after the batch's range (two
        requests of one player may commit in the other order than they chained); it is
        checked in turn when its own batch is sealed."""
        before = uow.checkpoints.link(wallet_id, first.seq - 1)
        if (
            before is None
            or before.commit_seq < end
            or before.hash != first.prev_hash
            or recomputed_link(before) != before.hash
        ):
            raise SealRefused(
                CHAIN,
                f"transaction {first.id} does not continue wallet {wallet_id}'s chain: "
                f"position {first.seq - 1} is missing or differs",
            )

    def _root_holds(self, uow: UnitOfWork, checkpoint: Checkpoint) -> bool:
        """Whether the rows in a checkpoint's range are the ones it signed."""
        known = self._roots.get(checkpoint.seq)
        if known is None:
            leaves = uow.checkpoints.leaves(checkpoint.commit_from, checkpoint.commit_to)
            root = merkle_root([transaction_leaf(tx_id, tx_hash) for tx_id, tx_hash in leaves])
            known = root == checkpoint.root and check_signature(checkpoint, self.trusted) is None
            self._roots[checkpoint.seq] = known
        return known

    def sealed(self, batch: BatchLinks) -> None:
        """The batch is signed: its wallets' heads, known once the caller commits."""
        for wallet_id, links in batch.wallets.items():
            last = links[-1]
            head = self.fresh.get(wallet_id) or self.heads.get(wallet_id)
            if head is None or last.seq > head[0]:
                self.fresh[wallet_id] = (last.seq, last.hash)

    def committed(self) -> None:
        if len(self.heads) + len(self.fresh) > MAX_HEADS:
            self.heads.clear()
        self.heads.update(self.fresh)
        self.fresh.clear()

    def rolled_back(self) -> None:
        self.fresh.clear()
