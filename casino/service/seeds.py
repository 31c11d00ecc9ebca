"""Provably fair seeds of a player: commitments, client seed, nonce, rotation.

Each player has one active pair (a server seed, known to the players only by its SHA-256
commitment, and a client seed) and a committed next server seed. Rotation reveals the active
server seed, promotes the next one - committed before the player could choose the client
seed that now goes with it - and commits a fresh next one. So the server never picks a server
seed once it knows a client seed the player chooses for it (docs/fairness.md, "Commitments:
who can steer what"). Nonces count rounds per player and carry on across rotations.
"""

from __future__ import annotations

from datetime import datetime

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
    assert seed.next_seed_hash is not None  # an active seed always has its successor
    return SeedsView(
        server_seed_hash=seed.seed_hash,
        client_seed=seed.client_seed,
        next_nonce=seed.next_nonce,
        next_server_seed_hash=seed.next_seed_hash,
        client_seed_chosen=seed.client_seed_chosen,
    )


def first_pair(uow: UnitOfWork, player_id: str, now: datetime) -> SeedRecord:
    """A new player's active pair and committed next seed. The default client seed is the
    server's (the player has chosen none yet); ``client_seed_chosen`` says so."""
    seed, successor = fairness.new_server_seed(), fairness.new_server_seed()
    return uow.seeds.add(
        player_id=player_id,
        seed=seed,
        seed_hash=fairness.commitment(seed),
        next_seed=successor,
        next_seed_hash=fairness.commitment(successor),
        client_seed=fairness.new_client_seed(),
        client_seed_chosen=False,
        first_nonce=0,
        created_at=now,
    )


def _rotating() -> Conflict:
    return Conflict("the player's seeds are being rotated; retry", code="seed_rotation_in_progress")


def active_seed(uow: UnitOfWork, player_id: str, *, for_update: bool = False) -> SeedRecord:
    """The player's active seed. A rotation committing meanwhile can leave a locking read
    without a row (it re-checks ``active`` on the replaced row): the next read finds the new
    seed, so it is tried again before giving up with 409."""
    for _ in range(_ATTEMPTS):
        seed = uow.seeds.active(player_id, for_update=for_update)
        if seed is not None:
            return seed
        player_exists(uow, player_id)  # only when there is no row: no player is 404
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


def _client_seed_fixed(detail: str) -> Conflict:
    return Conflict(detail, code="client_seed_fixed")


def take_first_bet_client_seed(uow: UnitOfWork, player_id: str, client_seed: str) -> None:
    """Make ``client_seed``, brought by a bet, the active pair's client seed: only for the
    pair's first round and only if the player never chose its client seed (else 409
    client_seed_fixed). Called before the bet's claim: the seed row is locked here first,
    as the claim would lock it, so no other bet or rotation slips in between."""
    fairness.validate_client_seed(client_seed)
    seed = active_seed(uow, player_id, for_update=True)
    if seed.client_seed_chosen:
        raise _client_seed_fixed(
            "the client seed of the active pair was chosen already; bet without client_seed, "
            "or rotate the seeds with a new one"
        )
    if seed.next_nonce != seed.first_nonce:
        raise _client_seed_fixed(
            "rounds were dealt from the active pair already; only its first bet may bring the "
            "client seed (set one with PUT .../seeds/client, or rotate the seeds with one)"
        )
    if not uow.seeds.set_first_client_seed(seed.id, client_seed):
        raise _rotating()


def open_round_id(uow: UnitOfWork, player_id: str) -> str | None:
    return uow.rounds.open_round_id(player_id)


def rotate_seed(uow: UnitOfWork, player_id: str, client_seed: str | None = None) -> RotationView:
    """Reveal the active server seed, promote the committed next one and commit a fresh next.

    ``client_seed``: the player's client seed for the new pair. Without one the old client
    seed carries over, but not as the player's choice for the new pair: the server may have
    known it when it committed the promoted seed (e.g. it came with the previous rotation),
    so the pair's first bet may still bring one.

    Refused while a round awaits a decision: its war cards come from the active seed, so
    revealing it would tell the player what going to war yields.
    """
    if client_seed is not None:
        fairness.validate_client_seed(client_seed)
    old = active_seed(uow, player_id, for_update=True)
    pending = uow.rounds.open_round_id(player_id)
    if pending is not None:
        raise Conflict(
            "a round awaits a decision; finish it before rotating seeds",
            code="round_in_progress",
            round_id=pending,
        )
    assert old.next_seed is not None and old.next_seed_hash is not None
    now = utcnow()
    if not uow.seeds.reveal(old.id, now):  # the partial unique index allows one active seed
        raise _rotating()
    successor = fairness.new_server_seed()
    new = uow.seeds.add(
        player_id=player_id,
        seed=old.next_seed,
        seed_hash=old.next_seed_hash,
        next_seed=successor,
        next_seed_hash=fairness.commitment(successor),
        client_seed=old.client_seed if client_seed is None else client_seed,
        client_seed_chosen=client_seed is not None,
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
