"""The ledger audit: invariants of the books and a replay of every settled round."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.orm import Session


@dataclass(frozen=True)
class CheckResult:
    name: str
    ok: bool
    detail: str


@dataclass(frozen=True)
class AuditReport:
    ok: bool
    checks: list[CheckResult]


def run_audit(session: Session) -> AuditReport:
    raise NotImplementedError


def format_report(report: AuditReport) -> str:
    raise NotImplementedError
