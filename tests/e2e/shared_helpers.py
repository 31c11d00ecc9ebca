"""Shared tables in end-to-end tests: a table, a dealer driven by the test's clock, and the
shoe the table deals (read from the stored chain, to find ties)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from casino.engine.casino_war import TableRules
from casino.engine.shared import SharedShoe
from casino.service.shared.dealer import advance
from casino.service.shared.tables import shoe_of
from casino.store.database import Database

from .helpers import Api

OPERATOR = "default"


def create_shared_table(
    api: Api, table_id: str = "live", auth: dict[str, str] | None = None, **rules: Any
) -> dict[str, Any]:
    body = {
        "id": table_id,
        "currency": "EUR",
        "mode": "shared",
        "shared": {"betting_seconds": 10, "pause_seconds": 2},
        "rules": {"min_ante": 10, "bet_increment": 10, "surrender_allowed": True, **rules},
    }
    response = api.post("/api/v1/tables", body, auth=auth or api.operator_auth)
    assert response.status_code == 201, response.get_json()
    return dict(response.get_json())


class DriveDealer:
    """``dealer.advance`` until idle, in units of work on the test's database and clock."""

    def __init__(
        self,
        url: str,
        clock: Callable[[], datetime],
        table_id: str = "live",
        operator: str = OPERATOR,
    ):
        self.database = Database.open(url, clock=clock)
        self.table_id = table_id
        self.operator = operator
        self.steps: list[str] = []

    def run(self, limit: int = 200) -> list[str]:
        """Every step due now; the names of those taken."""
        taken = []
        for _ in range(limit):
            with self.database.unit_of_work(self.operator) as uow:
                done = advance(uow, self.table_id)
                if done.idle:
                    break
                uow.commit()
            taken.append(done.step or f"paid {done.paid}")
        self.steps += taken
        return taken

    def state(self) -> dict[str, Any]:
        with self.database.unit_of_work(self.operator) as uow:
            record = uow.shared.get(self.table_id)
            assert record is not None and record.state is not None
            return dict(record.state)

    def shoe(self, index: int) -> SharedShoe:
        with self.database.unit_of_work(self.operator) as uow:
            record = uow.shared.get(self.table_id)
            rules = next(s["rules"] for s in uow.shared.shoes(self.table_id) if s["shoe"] == index)
            assert record is not None
            return shoe_of(record, index, TableRules.from_dict(rules))

    def close(self) -> None:
        self.database.dispose()
