"""Demo data for a fresh install: default tables, an operator token, a funded player."""

from __future__ import annotations

from typing import Any

from casino.service.uow import UnitOfWork


def seed_demo(uow: UnitOfWork) -> dict[str, Any]:
    raise NotImplementedError
