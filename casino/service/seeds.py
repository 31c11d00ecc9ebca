"""Provably fair seeds of a player: commitment, client seed, nonce, rotation.

Each player has one active server seed, known to the players only by its SHA-256 commitment.
Nonces count rounds per player and carry on across rotations. Rotation reveals the old seed,
so every round dealt from it can be re-dealt and checked by anyone.
"""

from __future__ import annotations

from sqlalchemy import select

from casino.engine import fairness
from casino.service.common import player_exists
from casino.service.errors import Conflict
from casino.service.uow import UnitOfWork
from casino.service.views import RotationView, SeedsView
from casino.store.models import AWAITING_DECISION, Round, ServerSeed, utcnow


def seeds_view(seed: ServerSeed) -> SeedsView:
    return SeedsView(
        server_seed_hash=seed.seed_hash,
        client_seed=seed.client_seed,
        next_nonce=int(seed.next_nonce),
    )


#: Attempts at locking the active seed while other rotations replace it under us.
LOCK_ATTEMPTS = 5


def active_seed(uow: UnitOfWork, player_id: str, *, for_update: bool = False) -> ServerSeed:
    player_exists(uow.session, player_id)
    query = select(ServerSeed).where(ServerSeed.player_id == player_id, ServerSeed.active)
    if not for_update:
        seed = uow.session.scalars(query).one_or_none()
        if seed is None:  # every player gets a seed at creation; this is a broken invariant
            raise RuntimeError(f"player {player_id} has no active server seed")
        return seed
    for _ in range(LOCK_ATTEMPTS):
        seed = uow.session.scalars(query.with_for_update()).one_or_none()
        if seed is not None:
            return seed
        # PostgreSQL, read committed: we waited for the row lock of a seed that a concurrent
        # rotation then retired, and the re-check dropped it. The new active seed committed
        # with that rotation, so the next statement's snapshot sees it.
    raise Conflict("the player's seeds are being rotated; retry", code="seed_rotation_in_progress")


def get_seeds(uow: UnitOfWork, player_id: str) -> SeedsView:
    return seeds_view(active_seed(uow, player_id))


def set_client_seed(uow: UnitOfWork, player_id: str, client_seed: str) -> SeedsView:
    """Set the client seed for the next rounds (a round keeps the seed it was dealt with)."""
    fairness.validate_client_seed(client_seed)
    seed = active_seed(uow, player_id, for_update=True)
    seed.client_seed = client_seed
    uow.session.flush()
    return seeds_view(seed)


def open_round_id(uow: UnitOfWork, player_id: str) -> str | None:
    return uow.session.execute(
        select(Round.id).where(Round.player_id == player_id, Round.status == AWAITING_DECISION)
    ).scalar_one_or_none()


def rotate_seed(uow: UnitOfWork, player_id: str) -> RotationView:
    """Reveal the active server seed and commit to a new one.

    Refused while a round awaits a decision: its war cards come from the active seed, so
    revealing it would tell the player what going to war yields.
    """
    session = uow.session
    old = active_seed(uow, player_id, for_update=True)
    pending = open_round_id(uow, player_id)
    if pending is not None:
        raise Conflict(
            "a round awaits a decision; finish it before rotating seeds",
            code="round_in_progress",
            round_id=pending,
        )
    now = utcnow()
    old.active = False
    old.revealed_at = now
    session.flush()  # the partial unique index allows one active seed at a time
    seed = fairness.new_server_seed()
    new = ServerSeed(
        player_id=player_id,
        seed=seed,
        seed_hash=fairness.commitment(seed),
        client_seed=old.client_seed,
        active=True,
        first_nonce=old.next_nonce,
        next_nonce=old.next_nonce,
        created_at=now,
    )
    session.add(new)
    session.flush()
    used = session.scalars(
        select(Round.client_seed).where(Round.server_seed_id == old.id).order_by(Round.nonce)
    )
    client_seeds: list[str] = []
    for value in [*used, old.client_seed]:
        if value not in client_seeds:
            client_seeds.append(value)
    revealed = {
        "server_seed": old.seed.hex(),
        "server_seed_hash": old.seed_hash,
        "client_seed": old.client_seed,
        "client_seeds": client_seeds,
        "first_nonce": int(old.first_nonce),
        "last_nonce": int(old.next_nonce) - 1 if old.next_nonce > old.first_nonce else None,
        "revealed_at": now,
    }
    return RotationView(revealed=revealed, current=seeds_view(new))
