"""The audit as a use case: read the books in one snapshot, check every invariant."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta

from casino.ledger.audit import AuditReport, audit_books, merge_reports
from casino.ledger.checkpoints import TrustedKey, VerifyingKey
from casino.service.shared.verify import check_shared
from casino.store.types import utcnow
from casino.store.uow import UnitOfWork


def run_audit(
    uow: UnitOfWork,
    trusted: Sequence[VerifyingKey | TrustedKey],
    *,
    rounds_since: datetime | None = None,
    unsealed_max_age: timedelta | None = None,
    now: datetime | None = None,
) -> AuditReport:
    """Read-only. ``rounds_since`` limits the round replay to recent rounds; the books
    (balances, chains, checkpoints) are always checked whole. A transaction left unsealed
    longer than ``unsealed_max_age`` fails the audit (the sealer stopped or refuses).
    Each operator's books are audited on their own: the operator of ``uow``, or every one
    in all-operators mode (one report)."""
    moment = now or utcnow()
    reports = {}
    for operator, books in uow.read_books(rounds_since=rounds_since):
        report = audit_books(books, trusted, now=moment, unsealed_max_age=unsealed_max_age)
        shared = check_shared(uow, operator)  # in the same snapshot as the books
        reports[operator] = replace(
            report, ok=report.ok and shared.ok, checks=[*report.checks, shared]
        )
    return merge_reports(reports)
