"""Operators (tenants): the platform's own table, read and written by platform-level use
cases; ``current`` is the operator a unit of work acts for.

The wallet secrets are sealed here on their way in and opened on their way out
(casino.store.secret_box): above the store a record carries the secret itself, in the
database it is sealed whenever a key is configured."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, replace
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from casino.store.operator_models import Operator
from casino.store.operator_records import OperatorRecord
from casino.store.repository import Repository
from casino.store.secret_box import SecretBox, from_environment
from casino.store.tenancy import Tenancy
from casino.store.types import as_utc


def _record(row: Operator) -> OperatorRecord:
    return OperatorRecord(
        id=row.id,
        name=row.name,
        currencies=None if row.currencies is None else tuple(row.currencies),
        wallet_mode=row.wallet_mode,
        wallet_url=row.wallet_url,
        wallet_secret=row.wallet_secret,
        wallet_previous_secret=row.wallet_previous_secret,
        wallet_previous_secret_until=row.wallet_previous_secret_until,
        wallet_timeout_ms=int(row.wallet_timeout_ms),
        close_losing_round_with_zero_win=bool(row.close_losing_round_with_zero_win),
        active=bool(row.active),
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


#: The columns of ``operator_from_row``, in its order: a claim that reads the operator in its
#: own statement (casino.store.rounds) selects these of alias ``o``.
OPERATOR_COLUMNS = (
    "id",
    "name",
    "currencies",
    "wallet_mode",
    "wallet_url",
    "wallet_secret",
    "wallet_previous_secret",
    "wallet_previous_secret_until",
    "wallet_timeout_ms",
    "close_losing_round_with_zero_win",
    "active",
    "created_at",
    "updated_at",
)


def operator_from_row(row: Sequence[Any]) -> OperatorRecord:
    """The record of a raw row of ``OPERATOR_COLUMNS`` (psycopg's types)."""
    values = dict(zip(OPERATOR_COLUMNS, row, strict=True))
    until = values["wallet_previous_secret_until"]
    currencies = values["currencies"]
    return OperatorRecord(
        id=str(values["id"]),
        name=str(values["name"]),
        currencies=None if currencies is None else tuple(currencies),
        wallet_mode=str(values["wallet_mode"]),
        wallet_url=values["wallet_url"],
        wallet_secret=values["wallet_secret"],
        wallet_previous_secret=values["wallet_previous_secret"],
        wallet_previous_secret_until=None if until is None else as_utc(until),
        wallet_timeout_ms=int(values["wallet_timeout_ms"]),
        close_losing_round_with_zero_win=bool(values["close_losing_round_with_zero_win"]),
        active=bool(values["active"]),
        created_at=as_utc(values["created_at"]),
        updated_at=as_utc(values["updated_at"]),
    )


#: The sealed columns; each seals with its operator and its own name as additional data.
SECRET_COLUMNS = ("wallet_secret", "wallet_previous_secret")


def _context(operator_id: str, column: str) -> str:
    return f"operators:{operator_id}:{column}"


class OperatorStore(Repository):
    _current: OperatorRecord | None = None

    def __init__(
        self,
        session: Any,
        postgres: bool,
        tenancy: Tenancy | None = None,
        secrets: SecretBox | None = None,
    ) -> None:
        super().__init__(session, postgres, tenancy)
        self._secrets = from_environment() if secrets is None else secrets

    def _opened(self, record: OperatorRecord) -> OperatorRecord:
        if record.wallet_secret is None and record.wallet_previous_secret is None:
            return record
        box = self._secrets
        return replace(
            record,
            wallet_secret=box.open(record.wallet_secret, _context(record.id, "wallet_secret")),
            wallet_previous_secret=box.open(
                record.wallet_previous_secret, _context(record.id, "wallet_previous_secret")
            ),
        )

    def _columns(self, record: OperatorRecord) -> dict[str, Any]:
        values = asdict(record)
        if values["currencies"] is not None:
            values["currencies"] = list(values["currencies"])
        for column in SECRET_COLUMNS:
            values[column] = self._secrets.seal(values[column], _context(record.id, column))
        return values

    def _record(self, row: Operator) -> OperatorRecord:
        return self._opened(_record(row))

    def remember_row(self, row: Sequence[Any]) -> None:
        """``remember`` the operator of a raw row of ``OPERATOR_COLUMNS`` (read by another
        statement of this transaction, such as the bet's claim)."""
        self.remember(self._opened(operator_from_row(row)))

    def current(self) -> OperatorRecord:
        """The operator this unit of work acts for (read once per transaction)."""
        operator_id = self.operator_id
        if self._current is None or self._current.id != operator_id:
            found = self.get(operator_id)
            if found is None:
                raise LookupError(f"operator {operator_id!r} does not exist")
            self._current = found
        return self._current

    def remember(self, record: OperatorRecord) -> None:
        """Keep ``record`` as ``current`` (read by another statement of this transaction,
        such as the bet's claim), so ``current`` costs no statement of its own."""
        if record.id == self.operator_id:
            self._current = record

    def get(self, operator_id: str) -> OperatorRecord | None:
        row = self.session.get(Operator, operator_id) if isinstance(operator_id, str) else None
        return None if row is None else self._record(row)

    def all(self) -> list[OperatorRecord]:
        rows = self.session.scalars(select(Operator).order_by(Operator.id))
        return [self._record(row) for row in rows]

    def ids(self) -> list[str]:
        return list(self.session.scalars(select(Operator.id).order_by(Operator.id)))

    def add(self, record: OperatorRecord) -> bool:
        """Insert the operator; False (and nothing changed) if its id is taken."""
        try:
            # A savepoint, so a concurrent duplicate does not poison the caller's transaction.
            with self.session.begin_nested():
                self.session.add(Operator(**self._columns(record)))
                self.session.flush()
        except IntegrityError:
            return False
        return True

    def replace(self, record: OperatorRecord) -> None:
        row = self.session.get(Operator, record.id, with_for_update=True)
        if row is None:
            raise LookupError(record.id)
        for name, value in self._columns(record).items():
            setattr(row, name, value)
        self.session.flush()
        if self._current is not None and self._current.id == record.id:
            self._current = record

    def lock(self, operator_id: str) -> OperatorRecord | None:
        """The operator's row, locked until commit (a change reads it as it stands)."""
        row = self.session.get(Operator, operator_id, with_for_update=True, populate_existing=True)
        return None if row is None else self._record(row)

    def seal_secrets(self) -> int:
        """Seal every wallet secret again under the current key (one stored in clear, or
        under an earlier key); the number of operators rewritten."""
        if not self._secrets.sealing:
            raise LookupError("no key to seal with")
        rows = self.session.scalars(select(Operator).order_by(Operator.id).with_for_update())
        changed = 0
        for row in rows:
            stale = [
                column
                for column in SECRET_COLUMNS
                if getattr(row, column) is not None
                and not self._secrets.sealed_by_current(getattr(row, column))
            ]
            for column in stale:
                context = _context(row.id, column)
                plain = self._secrets.open(getattr(row, column), context)
                setattr(row, column, self._secrets.seal(plain, context))
            changed += bool(stale)
        self.session.flush()
        self._current = None
        return changed
