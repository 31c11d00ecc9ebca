"""The audit as a use case: read the books in one snapshot, check every invariant."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from casino.ledger.audit import AuditReport, audit_books
from casino.ledger.checkpoints import VerifyingKey
from casino.store.uow import UnitOfWork


def run_audit(
    uow: UnitOfWork, trusted: Sequence[VerifyingKey], *, rounds_since: datetime | None = None
) -> AuditReport:
    """Read-only. ``rounds_since`` limits the round replay to recent rounds; the books
    (balances, chains, checkpoints) are always checked whole."""
    return audit_books(uow.read_books(rounds_since=rounds_since), trusted)
