"""Casino War tables: currency, rules and their exact theoretical RTP."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from casino.service.uow import UnitOfWork
from casino.service.views import TableView

if TYPE_CHECKING:
    from casino.engine.casino_war import TableRules


def list_tables(uow: UnitOfWork) -> list[TableView]:
    raise NotImplementedError


def get_table(uow: UnitOfWork, table_id: str) -> TableView:
    raise NotImplementedError


def create_table(uow: UnitOfWork, table_id: str, currency: str, rules: TableRules) -> TableView:
    raise NotImplementedError


def update_table(uow: UnitOfWork, table_id: str, changes: dict[str, Any]) -> TableView:
    raise NotImplementedError
