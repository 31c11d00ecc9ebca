"""Who is calling: operator or player, from a bearer token."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from casino.service.uow import UnitOfWork


@dataclass(frozen=True)
class Principal:
    role: Literal["operator", "player"]
    player_id: str | None
    subject: str


def authenticate(uow: UnitOfWork, token: str, operator_tokens: Sequence[str]) -> Principal:
    raise NotImplementedError


def create_operator_token(uow: UnitOfWork, name: str) -> str:
    raise NotImplementedError
