"""Operator tokens kept in the database (hashed), beside those from the configuration."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from sqlalchemy import delete, or_, select

from casino.store.models import OperatorToken
from casino.store.repository import Repository


class OperatorTokenRow(NamedTuple):
    id: int
    name: str
    created_at: datetime
    expires_at: datetime | None
    scope: str


_COLUMNS = (
    OperatorToken.id,
    OperatorToken.name,
    OperatorToken.created_at,
    OperatorToken.expires_at,
    OperatorToken.scope,
)


def _row(found: tuple[int, str, datetime, datetime | None, str]) -> OperatorTokenRow:
    token_id, name, created_at, expires_at, scope = found
    return OperatorTokenRow(int(token_id), str(name), created_at, expires_at, str(scope))


class OperatorTokenStore(Repository):
    def add(
        self,
        name: str,
        token_hash: str,
        created_at: datetime,
        expires_at: datetime | None,
        scope: str = "admin",
    ) -> int:
        token = OperatorToken(
            name=name,
            token_hash=token_hash,
            created_at=created_at,
            expires_at=expires_at,
            scope=scope,
        )
        self.session.add(token)
        self.session.flush()
        return int(token.id)

    def id_and_scope_by_hash(self, digest: str, *, now: datetime) -> tuple[int, str] | None:
        """The (id, scope) of the token with this hash, unless it has expired by ``now``."""
        found = self.session.execute(
            select(OperatorToken.id, OperatorToken.scope).where(
                OperatorToken.token_hash == digest,
                or_(OperatorToken.expires_at.is_(None), OperatorToken.expires_at > now),
            )
        ).one_or_none()
        return None if found is None else (int(found[0]), str(found[1]))

    def all(self) -> list[OperatorTokenRow]:
        rows = self.session.execute(select(*_COLUMNS).order_by(OperatorToken.id))
        return [_row(tuple(row)) for row in rows]  # type: ignore[arg-type]

    def delete(self, token_id: int) -> OperatorTokenRow | None:
        token = self.session.get(OperatorToken, token_id)
        if token is None:
            return None
        found = _row((token.id, token.name, token.created_at, token.expires_at, token.scope))
        self.session.delete(token)
        self.session.flush()
        return found

    def named(self, name: str) -> list[tuple[int, str, datetime | None]]:
        """(id, hash, expiry) of the tokens with this name."""
        rows = self.session.execute(
            select(OperatorToken.id, OperatorToken.token_hash, OperatorToken.expires_at).where(
                OperatorToken.name == name
            )
        )
        return [(int(i), str(h), e) for i, h, e in rows]

    def delete_all(self, ids: list[int]) -> None:
        if ids:
            self.session.execute(delete(OperatorToken).where(OperatorToken.id.in_(ids)))
