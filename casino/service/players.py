"""Players: created by an operator, each with a bearer token shown once."""

from __future__ import annotations

from casino.service.uow import UnitOfWork
from casino.service.views import PlayerView


def create_player(
    uow: UnitOfWork, external_ref: str, display_name: str | None = None
) -> tuple[PlayerView, str]:
    raise NotImplementedError


def get_player(uow: UnitOfWork, player_id: str) -> PlayerView:
    raise NotImplementedError
