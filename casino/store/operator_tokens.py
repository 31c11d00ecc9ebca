"""Operator tokens kept in the database (hashed), beside those from the configuration.

A token acts for one operator (``operator_id``), or for the platform (None, and ``platform``
true: it manages the operators themselves). Listing and revoking reach the operator's tokens
only, or every token in all-operators mode (the platform's commands).
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from sqlalchemy import delete, or_, select

from casino.store.models import OperatorToken
from casino.store.operator_models import Operator
from casino.store.repository import Repository


class OperatorTokenRow(NamedTuple):
    id: int
    name: str
    created_at: datetime
    expires_at: datetime | None
    scope: str
    #: None: a platform token.
    operator_id: str | None


class StoredToken(NamedTuple):
    """What authentication learns of a stored token."""

    id: int
    scope: str
    #: None: a platform token.
    operator_id: str | None
    #: Whether its operator is active (a platform token: always).
    operator_active: bool


_COLUMNS = (
    OperatorToken.id,
    OperatorToken.name,
    OperatorToken.created_at,
    OperatorToken.expires_at,
    OperatorToken.scope,
    OperatorToken.operator_id,
)


def _row(found: tuple[int, str, datetime, datetime | None, str, str | None]) -> OperatorTokenRow:
    token_id, name, created_at, expires_at, scope, operator_id = found
    return OperatorTokenRow(
        int(token_id), str(name), created_at, expires_at, str(scope), operator_id
    )


class OperatorTokenStore(Repository):
    def add(
        self,
        name: str,
        token_hash: str,
        created_at: datetime,
        expires_at: datetime | None,
        scope: str = "admin",
        *,
        platform: bool = False,
    ) -> int:
        """A token of the operator (or, with ``platform``, of the platform)."""
        token = OperatorToken(
            name=name,
            token_hash=token_hash,
            created_at=created_at,
            expires_at=expires_at,
            scope=scope,
            operator_id=None if platform else self.operator_id,
            platform=platform,
        )
        self.session.add(token)
        self.session.flush()
        return int(token.id)

    def id_by_hash(self, digest: str, *, now: datetime) -> StoredToken | None:
        """Authentication: the token with this hash, unless it has expired by ``now``, with
        its operator (before any operator is known: this decides it)."""
        found = self.session.execute(
            select(
                OperatorToken.id, OperatorToken.scope, OperatorToken.operator_id, Operator.active
            )
            .outerjoin(Operator, Operator.id == OperatorToken.operator_id)
            .where(
                OperatorToken.token_hash == digest,
                or_(OperatorToken.expires_at.is_(None), OperatorToken.expires_at > now),
            )
        ).one_or_none()
        if found is None:
            return None
        token_id, scope, operator_id, active = found
        return StoredToken(int(token_id), str(scope), operator_id, operator_id is None or active)

    def all(self) -> list[OperatorTokenRow]:
        rows = self.session.execute(
            select(*_COLUMNS)
            .where(self.owned(OperatorToken.operator_id))
            .order_by(OperatorToken.id)
        )
        return [_row(tuple(row)) for row in rows]  # type: ignore[arg-type]

    def delete(self, token_id: int) -> OperatorTokenRow | None:
        token = self.session.scalars(
            select(OperatorToken).where(
                OperatorToken.id == token_id, self.owned(OperatorToken.operator_id)
            )
        ).one_or_none()
        if token is None:
            return None
        found = _row(
            (
                token.id,
                token.name,
                token.created_at,
                token.expires_at,
                token.scope,
                token.operator_id,
            )
        )
        self.session.delete(token)
        self.session.flush()
        return found

    def named(self, name: str) -> list[tuple[int, str, datetime | None]]:
        """(id, hash, expiry) of the operator's tokens with this name."""
        rows = self.session.execute(
            select(OperatorToken.id, OperatorToken.token_hash, OperatorToken.expires_at).where(
                OperatorToken.name == name, OperatorToken.operator_id == self.operator_id
            )
        )
        return [(int(i), str(h), e) for i, h, e in rows]

    def delete_all(self, ids: list[int]) -> None:
        if ids:
            self.session.execute(
                delete(OperatorToken).where(
                    OperatorToken.id.in_(ids), OperatorToken.operator_id == self.operator_id
                )
            )
