"""Players and the hashes of their bearer tokens, each player one operator's."""

from __future__ import annotations

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from casino.store import direct
from casino.store.models import Player
from casino.store.operator_models import Operator
from casino.store.records import PlayerRecord, TokenOwner
from casino.store.repository import Repository

_BY_TOKEN = (
    "SELECT p.id, p.operator_id, o.active FROM players AS p "
    "JOIN operators AS o ON o.id = p.operator_id WHERE p.token_hash = %(digest)s"
)


def _record(player: Player) -> PlayerRecord:
    return PlayerRecord(player.id, player.external_ref, player.display_name, player.created_at)


class PlayerStore(Repository):
    def get(self, player_id: str) -> PlayerRecord | None:
        if not isinstance(player_id, str):
            return None
        player = self.session.scalars(
            select(Player).where(Player.id == player_id, self.owned(Player.operator_id))
        ).one_or_none()
        return None if player is None else _record(player)

    def exists(self, player_id: str) -> bool:
        if not isinstance(player_id, str):
            return False
        found = self.session.execute(
            select(Player.id).where(Player.id == player_id, self.owned(Player.operator_id))
        )
        return found.scalar_one_or_none() is not None

    def id_by_external_ref(self, external_ref: str) -> str | None:
        found = self.session.execute(
            select(Player.id).where(
                Player.operator_id == self.operator_id, Player.external_ref == external_ref
            )
        )
        return found.scalar_one_or_none()

    def id_and_token_hash(self, external_ref: str) -> tuple[str, str] | None:
        found = self.session.execute(
            select(Player.id, Player.token_hash).where(
                Player.operator_id == self.operator_id, Player.external_ref == external_ref
            )
        ).one_or_none()
        return None if found is None else (str(found[0]), str(found[1]))

    def owner_of_token(self, digest: str) -> TokenOwner | None:
        """Authentication: the player whose token has this hash, its operator and whether
        that operator is active (before any operator is known: this decides it)."""
        if self.postgres:
            rows = direct.execute(self.session, _BY_TOKEN, {"digest": digest})
            return TokenOwner(str(rows[0][0]), str(rows[0][1]), bool(rows[0][2])) if rows else None
        found = self.session.execute(
            select(Player.id, Player.operator_id, Operator.active)
            .join(Operator, Operator.id == Player.operator_id)
            .where(Player.token_hash == digest)
        ).one_or_none()
        return None if found is None else TokenOwner(str(found[0]), str(found[1]), bool(found[2]))

    def add(self, record: PlayerRecord, token_hash: str) -> bool:
        """Insert the player; False (and nothing changed) if its external_ref is taken."""
        operator_id = self.operator_id
        try:
            # A savepoint, so a concurrent duplicate does not poison the caller's transaction.
            with self.session.begin_nested():
                self.session.add(
                    Player(
                        id=record.id,
                        operator_id=operator_id,
                        external_ref=record.external_ref,
                        display_name=record.display_name,
                        token_hash=token_hash,
                        created_at=record.created_at,
                    )
                )
                self.session.flush()
        except IntegrityError:
            return False
        return True

    def set_token_hash(self, player_id: str, token_hash: str) -> None:
        self.session.execute(
            update(Player)
            .where(Player.id == player_id, Player.operator_id == self.operator_id)
            .values(token_hash=token_hash)
        )
