"""Provably fair seeds of a player: commitment, client seed, nonce, rotation."""

from __future__ import annotations

from casino.service.uow import UnitOfWork
from casino.service.views import RotationView, SeedsView


def get_seeds(uow: UnitOfWork, player_id: str) -> SeedsView:
    raise NotImplementedError


def set_client_seed(uow: UnitOfWork, player_id: str, client_seed: str) -> SeedsView:
    raise NotImplementedError


def rotate_seed(uow: UnitOfWork, player_id: str) -> RotationView:
    raise NotImplementedError
