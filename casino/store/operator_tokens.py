"""Operator tokens kept in the database (hashed), beside those from the configuration."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select

from casino.store.models import OperatorToken
from casino.store.repository import Repository


class OperatorTokenStore(Repository):
    def add(self, name: str, token_hash: str, created_at: datetime) -> int:
        token = OperatorToken(name=name, token_hash=token_hash, created_at=created_at)
        self.session.add(token)
        self.session.flush()
        return int(token.id)

    def id_by_hash(self, digest: str) -> int | None:
        found = self.session.execute(
            select(OperatorToken.id).where(OperatorToken.token_hash == digest)
        )
        return found.scalar_one_or_none()

    def all(self) -> list[tuple[int, str, datetime]]:
        rows = self.session.execute(
            select(OperatorToken.id, OperatorToken.name, OperatorToken.created_at).order_by(
                OperatorToken.id
            )
        )
        return [(int(i), str(n), c) for i, n, c in rows]

    def delete(self, token_id: int) -> tuple[int, str, datetime] | None:
        token = self.session.get(OperatorToken, token_id)
        if token is None:
            return None
        found = (int(token.id), token.name, token.created_at)
        self.session.delete(token)
        self.session.flush()
        return found
