"""Server seeds of the players: the active one (committed by its hash) with its committed
successor, and the revealed ones. A seed is its player's, so its operator's: every statement
here reaches only the seeds of the operator's players."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlalchemy import select, update

from casino.store.models import Round, ServerSeed
from casino.store.records import SeedRecord
from casino.store.repository import Repository


def _record(seed: ServerSeed) -> SeedRecord:
    return SeedRecord(
        id=int(seed.id),
        player_id=seed.player_id,
        seed=bytes(seed.seed),
        seed_hash=seed.seed_hash,
        client_seed=seed.client_seed,
        active=bool(seed.active),
        first_nonce=int(seed.first_nonce),
        next_nonce=int(seed.next_nonce),
        created_at=seed.created_at,
        revealed_at=seed.revealed_at,
        next_seed=None if seed.next_seed is None else bytes(seed.next_seed),
        next_seed_hash=seed.next_seed_hash,
        client_seed_chosen=bool(seed.client_seed_chosen),
    )


class SeedStore(Repository):
    def active(self, player_id: str, *, for_update: bool = False) -> SeedRecord | None:
        """The player's active seed (locked with ``for_update``); None if there is none, e.g.
        while a rotation that replaced it commits."""
        query = select(ServerSeed).where(
            ServerSeed.player_id == player_id,
            ServerSeed.active,
            self.owned_player(ServerSeed.player_id),
        )
        if for_update:
            query = query.with_for_update()
        seed = self.session.scalars(query.execution_options(populate_existing=True)).first()
        return None if seed is None else _record(seed)

    def by_ids(self, ids: Iterable[int]) -> dict[int, SeedRecord]:
        wanted = list(set(ids))
        if not wanted:
            return {}
        seeds = self.session.scalars(
            select(ServerSeed).where(
                ServerSeed.id.in_(wanted), self.owned_player(ServerSeed.player_id)
            )
        )
        return {int(seed.id): _record(seed) for seed in seeds}

    def add(
        self,
        *,
        player_id: str,
        seed: bytes,
        seed_hash: str,
        next_seed: bytes,
        next_seed_hash: str,
        client_seed: str,
        client_seed_chosen: bool,
        first_nonce: int,
        created_at: datetime,
    ) -> SeedRecord:
        """A new active seed with its committed successor (of a player the caller found
        among the operator's)."""
        self.tenancy.require()
        row = ServerSeed(
            player_id=player_id,
            seed=seed,
            seed_hash=seed_hash,
            client_seed=client_seed,
            active=True,
            first_nonce=first_nonce,
            next_nonce=first_nonce,
            created_at=created_at,
            next_seed=next_seed,
            next_seed_hash=next_seed_hash,
            client_seed_chosen=client_seed_chosen,
        )
        self.session.add(row)
        self.session.flush()
        return _record(row)

    def set_client_seed(self, seed_id: int, client_seed: str) -> bool:
        """The player's choice of client seed for the active pair; False if it is no longer
        active."""
        changed = self.session.execute(
            update(ServerSeed)
            .where(
                ServerSeed.id == seed_id,
                ServerSeed.active,
                self.owned_player(ServerSeed.player_id),
            )
            .values(client_seed=client_seed, client_seed_chosen=True)
        )
        return bool(changed.rowcount)  # type: ignore[attr-defined]

    def set_first_client_seed(self, seed_id: int, client_seed: str) -> bool:
        """The client seed a pair's first bet brings; False unless the pair is still active,
        its client seed was never chosen by the player and no round was dealt from it."""
        changed = self.session.execute(
            update(ServerSeed)
            .where(
                ServerSeed.id == seed_id,
                ServerSeed.active,
                ServerSeed.client_seed_chosen.is_(False),
                ServerSeed.next_nonce == ServerSeed.first_nonce,
                self.owned_player(ServerSeed.player_id),
            )
            .values(client_seed=client_seed, client_seed_chosen=True)
        )
        return bool(changed.rowcount)  # type: ignore[attr-defined]

    def reveal(self, seed_id: int, revealed_at: datetime) -> bool:
        """Deactivate the seed (revealing it); False if it was no longer active. Its successor
        leaves the row (it is about to become the active seed); its hash stays as the record
        of what this seed committed to."""
        changed = self.session.execute(
            update(ServerSeed)
            .where(
                ServerSeed.id == seed_id,
                ServerSeed.active,
                self.owned_player(ServerSeed.player_id),
            )
            .values(active=False, revealed_at=revealed_at, next_seed=None)
        )
        self.session.flush()
        return bool(changed.rowcount)  # type: ignore[attr-defined]

    def client_seeds_used(self, seed_id: int) -> list[str]:
        """The client seeds of the rounds dealt from this seed, in nonce order."""
        return list(
            self.session.scalars(
                select(Round.client_seed)
                .where(Round.server_seed_id == seed_id, self.owned(Round.operator_id))
                .order_by(Round.nonce)
            )
        )
