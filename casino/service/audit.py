"""The audit as a use case: read the books in one snapshot, check every invariant."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from casino.ledger.audit import AuditReport, audit_books, merge_reports
from casino.ledger.checkpoints import TrustedKey, VerifyingKey, as_trusted
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


def run_incremental_audit(
    uow: UnitOfWork,
    trusted: Sequence[VerifyingKey | TrustedKey],
    state: dict[str, Any] | None,
    *,
    jobs: int = 1,
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """The audit of what followed the checkpoint ``state`` was saved at (issue 24: a daily
    audit costs a day): ``casino export --from-checkpoint N`` of ``uow``'s operator, streamed
    into the standalone verifier continuing from ``state`` (None: the whole ledger, from the
    start). The verifier's summary, and the state to save at the last checkpoint it verified
    (None when a check failed). Transactions after the last checkpoint are accepted here:
    the next run reads them again, sealed by then. Raises ``StateMismatch`` (the verifier's)
    when the state is not of this ledger, ``NoSuchCheckpoint`` when its checkpoint is gone."""
    from casino.audit_export import casino_audit_export as verifier
    from casino.service.export import export

    keys = [verifier.Trusted(key.key.raw, key.first, key.last) for key in as_trusted(list(trusted))]
    start = None if state is None else int(state["checkpoint"]["seq"])
    chunks = export(uow, since=None, until=None, keys=trusted, from_checkpoint=start)
    return verifier.verify_continuing(chunks, keys, state, jobs=jobs, allow_unsealed=True)
