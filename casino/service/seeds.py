"""Provably fair seeds of a player: commitment, client seed, nonce, rotation.

Each player has one active server seed, known to the players only by its SHA-256 commitment.
Nonces count rounds per player and carry on across rotations. Rotation reveals the old seed,
so every round dealt from it can be re-dealt and checked by anyone.
"""

from __future__ import annotations

from casino.engine import fairness
from casino.service.common import player_exists
from casino.service.errors import Conflict
from casino.service.views import RotationView, SeedsView
from casino.store.records import SeedRecord
from casino.store.types import utcnow
from casino.store.uow import UnitOfWork

#: Attempts at locking the active seed while other rotations replace it under us.
_ATTEMPTS = 5


def seeds_view(seed: SeedRecord) -> SeedsView:
    return SeedsView(
        server_seed_hash=seed.seed_hash,
        client_seed=seed.client_seed,
        next_nonce=seed.next_nonce,
    )


def _rotating() -> Conflict:
    return Conflict("the player's seeds are being rotated; retry", code="seed_rotation_in_progress")


def active_seed(uow: UnitOfWork, player_id: str, *, for_update: bool = False) -> SeedRecord:
    """The player's active seed. A rotation committing meanwhile can leave a locking read
    without a row (it re-checks ``active`` on the replaced row): the next read finds the new
    seed, so it is tried again before giving up with 409."""
    player_exists(uow, player_id)
    for _ in range(_ATTEMPTS):
        seed = uow.seeds.active(player_id, for_update=for_update)
        if seed is not None:
            return seed
    raise _rotating()


def get_seeds(uow: UnitOfWork, player_id: str) -> SeedsView:
    return seeds_view(active_seed(uow, player_id))


def set_client_seed(uow: UnitOfWork, player_id: str, client_seed: str) -> SeedsView:
    """Set the client seed for the next rounds (a round keeps the seed it was dealt with)."""
    fairness.validate_client_seed(client_seed)
    seed = active_seed(uow, player_id, for_update=True)
    if not uow.seeds.set_client_seed(seed.id, client_seed):
        raise _rotating()
    return seeds_view(active_seed(uow, player_id))


def open_round_id(uow: UnitOfWork, player_id: str) -> str | None:
    return uow.rounds.open_round_id(player_id)


def rotate_seed(uow: UnitOfWork, player_id: str) -> RotationView:
    """Reveal the active server seed and commit to a new one.

    Refused while a round awaits a decision: its war cards come from the active seed, so
    revealing it would tell the player what going to war yields.
    """
    old = active_seed(uow, player_id, for_update=True)
    pending = uow.rounds.open_round_id(player_id)
    if pending is not None:
        raise Conflict(
            "a round awaits a decision; finish it before rotating seeds",
            code="round_in_progress",
            round_id=pending,
        )
    now = utcnow()
    if not uow.seeds.reveal(old.id, now):  # the partial unique index allows one active seed
        raise _rotating()
    seed = fairness.new_server_seed()
    new = uow.seeds.add(
        player_id=player_id,
        seed=seed,
        seed_hash=fairness.commitment(seed),
        client_seed=old.client_seed,
        first_nonce=old.next_nonce,
        created_at=now,
    )
    client_seeds: list[str] = []
    for value in [*uow.seeds.client_seeds_used(old.id), old.client_seed]:
        if value not in client_seeds:
            client_seeds.append(value)
    revealed = {
        "server_seed": old.seed.hex(),
        "server_seed_hash": old.seed_hash,
        "client_seed": old.client_seed,
        "client_seeds": client_seeds,
        "first_nonce": old.first_nonce,
        "last_nonce": old.next_nonce - 1 if old.next_nonce > old.first_nonce else None,
        "revealed_at": now,
    }
    return RotationView(revealed=revealed, current=seeds_view(new))
