"""Operator tokens kept in the database (hashed), beside those from the configuration.

A token acts for one operator (``operator_id``), or for the platform (None: it manages the
operators themselves). Listing and revoking reach the operator's tokens only, or every token
in all-operators mode (the platform's commands).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, or_, select

from casino.store.models import Operator, OperatorToken
from casino.store.repository import Repository


class OperatorTokenStore(Repository):
    def add(
        self,
        name: str,
        token_hash: str,
        created_at: datetime,
        expires_at: datetime | None,
        *,
        platform: bool = False,
    ) -> int:
        """A token of the operator (or, with ``platform``, of the platform)."""
        token = OperatorToken(
            name=name,
            token_hash=token_hash,
            created_at=created_at,
            expires_at=expires_at,
            operator_id=None if platform else self.operator_id,
            platform=platform,
        )
        self.session.add(token)
        self.session.flush()
        return int(token.id)

    def id_by_hash(self, digest: str, *, now: datetime) -> tuple[int, str | None, bool] | None:
        """Authentication: (id, operator or None for a platform token, whether that
        operator is active) of the token with this hash, unless it has expired by ``now``."""
        found = self.session.execute(
            select(OperatorToken.id, OperatorToken.operator_id, Operator.active)
            .outerjoin(Operator, Operator.id == OperatorToken.operator_id)
            .where(
                OperatorToken.token_hash == digest,
                or_(OperatorToken.expires_at.is_(None), OperatorToken.expires_at > now),
            )
        ).one_or_none()
        if found is None:
            return None
        token_id, operator_id, active = found
        return int(token_id), operator_id, operator_id is None or bool(active)

    def all(self) -> list[tuple[int, str, datetime, datetime | None, str | None]]:
        """(id, name, created, expiry, operator) of the tokens, by id."""
        rows = self.session.execute(
            select(
                OperatorToken.id,
                OperatorToken.name,
                OperatorToken.created_at,
                OperatorToken.expires_at,
                OperatorToken.operator_id,
            )
            .where(self.owned(OperatorToken.operator_id))
            .order_by(OperatorToken.id)
        )
        return [(int(i), str(n), c, e, o) for i, n, c, e, o in rows]

    def delete(
        self, token_id: int
    ) -> tuple[int, str, datetime, datetime | None, str | None] | None:
        token = self.session.scalars(
            select(OperatorToken).where(
                OperatorToken.id == token_id, self.owned(OperatorToken.operator_id)
            )
        ).one_or_none()
        if token is None:
            return None
        found = (int(token.id), token.name, token.created_at, token.expires_at, token.operator_id)
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
