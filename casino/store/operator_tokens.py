"""Operator tokens kept in the database (hashed), beside those from the configuration."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, or_, select

from casino.store.models import OperatorToken
from casino.store.repository import Repository


class OperatorTokenStore(Repository):
    def add(
        self, name: str, token_hash: str, created_at: datetime, expires_at: datetime | None
    ) -> int:
        token = OperatorToken(
            name=name, token_hash=token_hash, created_at=created_at, expires_at=expires_at
        )
        self.session.add(token)
        self.session.flush()
        return int(token.id)

    def id_by_hash(self, digest: str, *, now: datetime) -> int | None:
        """The token with this hash, unless it has expired by ``now``."""
        found = self.session.execute(
            select(OperatorToken.id).where(
                OperatorToken.token_hash == digest,
                or_(OperatorToken.expires_at.is_(None), OperatorToken.expires_at > now),
            )
        )
        return found.scalar_one_or_none()

    def all(self) -> list[tuple[int, str, datetime, datetime | None]]:
        rows = self.session.execute(
            select(
                OperatorToken.id,
                OperatorToken.name,
                OperatorToken.created_at,
                OperatorToken.expires_at,
            ).order_by(OperatorToken.id)
        )
        return [(int(i), str(n), c, e) for i, n, c, e in rows]

    def delete(self, token_id: int) -> tuple[int, str, datetime, datetime | None] | None:
        token = self.session.get(OperatorToken, token_id)
        if token is None:
            return None
        found = (int(token.id), token.name, token.created_at, token.expires_at)
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
