"""Casino War tables: currency, rules snapshot, open or closed; ids unique per operator."""

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
    def _row(self, table_id: str) -> CasinoTable | None:
        if not isinstance(table_id, str):
            return None
        return self.session.get(CasinoTable, (self.operator_id, table_id))

    def get(self, table_id: str) -> TableRecord | None:
        table = self._row(table_id)
        return None if table is None else _record(table)

    def all(self) -> list[TableRecord]:
        query = select(CasinoTable).where(self.owned(CasinoTable.operator_id))
        return [_record(t) for t in self.session.scalars(query.order_by(CasinoTable.id))]

    def add(self, record: TableRecord) -> None:
        self.session.add(
            CasinoTable(
                operator_id=self.operator_id,
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
        table = self._row(record.id)
        if table is None:
            raise LookupError(record.id)
        table.currency = record.currency
        table.rules = record.rules
        table.active = record.active
        table.updated_at = record.updated_at
        self.session.flush()
