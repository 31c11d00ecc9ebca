"""Casino War rounds: bet, decision, recall, listing, resolving abandoned rounds."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Literal

from casino.service.uow import UnitOfWork
from casino.service.views import Page, RoundView

if TYPE_CHECKING:
    from casino.engine.casino_war import Decision


def place_bet(
    uow: UnitOfWork, player_id: str, table_id: str, ante: int, tie_bet: int = 0
) -> RoundView:
    raise NotImplementedError


def decide(
    uow: UnitOfWork,
    round_id: str,
    action: Decision | str,
    *,
    player_id: str | None,
    decided_by: Literal["player", "system"] = "player",
) -> RoundView:
    raise NotImplementedError


def get_round(uow: UnitOfWork, round_id: str, player_id: str | None) -> RoundView:
    raise NotImplementedError


def list_rounds(
    uow: UnitOfWork,
    player_id: str | None,
    status: str | None = None,
    cursor: str | None = None,
    limit: int = 50,
) -> Page[RoundView]:
    raise NotImplementedError


def resolve_stale(uow: UnitOfWork, older_than: timedelta) -> list[RoundView]:
    raise NotImplementedError
