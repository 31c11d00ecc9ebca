"""Run a use case in its own unit of work: reads roll back, writes commit once."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from casino.api.database import unit_of_work
from casino.service.uow import UnitOfWork

T = TypeVar("T")


def read(use_case: Callable[[UnitOfWork], T]) -> T:
    with unit_of_work() as uow:
        return use_case(uow)


def write(use_case: Callable[[UnitOfWork], T]) -> T:
    with unit_of_work() as uow:
        result = use_case(uow)
        uow.commit()
        return result
