"""What every repository of a unit of work shares: its session, which database it is on, and
the operator it acts for (casino.store.tenancy)."""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import ColumnElement, Table, select, true
from sqlalchemy.orm import Session

from casino.store.models import Player
from casino.store.tenancy import Tenancy

_PLAYERS = cast(Table, Player.__table__)


class Repository:
    def __init__(self, session: Session, postgres: bool, tenancy: Tenancy | None = None) -> None:
        self.session = session
        self.postgres = postgres
        # A repository made on its own (a test, a tool) acts for nobody until told.
        self.tenancy = tenancy if tenancy is not None else Tenancy()

    @property
    def operator_id(self) -> str:
        """The operator new rows belong to; raises (TenantRequired) without one."""
        return self.tenancy.require()

    def owned(self, column: Any) -> ColumnElement[bool]:
        """``column`` (an ``operator_id``) is the operator's; anything in all-operators
        mode; raises (TenantRequired) without either."""
        scope = self.tenancy.scope()
        return true() if scope is None else column == scope

    def owned_player(self, column: Any) -> ColumnElement[bool]:
        """The player ``column`` names is one of the operator's (for rows that hang off a
        player and carry no operator of their own: one primary key probe)."""
        scope = self.tenancy.scope()
        if scope is None:
            return true()
        return (
            select(_PLAYERS.c.id)
            .where(_PLAYERS.c.id == column, _PLAYERS.c.operator_id == scope)
            .exists()
        )
