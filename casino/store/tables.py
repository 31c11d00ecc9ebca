"""Casino War tables: currency, rules snapshot, open or closed."""

from __future__ import annotations

from sqlalchemy import select

from casino.store.models import CasinoTable
from casino.store.records import TableRecord
from casino.store.repository import Repository


def _record(table: CasinoTable) -> TableRecord:
    return TableRecord(
        table.id,
        table.currency,
        dict(table.rules),
        table.active,
        table.created_at,
        table.updated_at,
    )


class TableStore(Repository):
    def get(self, table_id: str) -> TableRecord | None:
        table = self.session.get(CasinoTable, table_id) if isinstance(table_id, str) else None
        return None if table is None else _record(table)

    def all(self) -> list[TableRecord]:
        return [
            _record(t) for t in self.session.scalars(select(CasinoTable).order_by(CasinoTable.id))
        ]

    def add(self, record: TableRecord) -> None:
        self.session.add(
            CasinoTable(
                id=record.id,
                currency=record.currency,
                rules=record.rules,
                active=record.active,
                created_at=record.created_at,
                updated_at=record.updated_at,
            )
        )
        self.session.flush()

    def replace(self, record: TableRecord) -> None:
        table = self.session.get(CasinoTable, record.id)
        if table is None:
            raise LookupError(record.id)
        table.currency = record.currency
        table.rules = record.rules
        table.active = record.active
        table.updated_at = record.updated_at
        self.session.flush()
