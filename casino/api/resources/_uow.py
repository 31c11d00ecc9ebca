"""Run a use case in the request's unit of work: reads never commit, writes commit once."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from casino.api.database import request_uow
from casino.store.uow import UnitOfWork

T = TypeVar("T")


def read(use_case: Callable[[UnitOfWork], T]) -> T:
    return use_case(request_uow())


def write(use_case: Callable[[UnitOfWork], T]) -> T:
    uow = request_uow()
    result = use_case(uow)
    uow.commit()
    return result
