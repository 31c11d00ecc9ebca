from __future__ import annotations

import pytest
from sqlalchemy import text

from casino.service import players
from casino.service.auth import authenticate, create_operator_token, hash_token
from casino.service.errors import Conflict, Invalid, NotFound, Unauthenticated

from .conftest import Svc


def test_create_and_get_player(svc: Svc) -> None:
    view, token = svc.run(players.create_player, "ext-1", "Alice")
    assert view.external_ref == "ext-1" and view.display_name == "Alice"
    assert view.created_at.tzinfo is not None
    with svc.uow() as uow:
        assert players.get_player(uow, view.id) == view
        principal = authenticate(uow, token, [])
    assert principal.role == "player" and principal.player_id == view.id


def test_player_token_is_stored_only_as_hash(svc: Svc) -> None:
    view, token = svc.run(players.create_player, "ext-hash")
    with svc.uow() as uow:
        stored = uow.session.execute(
            text("SELECT token_hash FROM players WHERE id = :id"), {"id": view.id}
        ).scalar_one()
    assert stored == hash_token(token) and token not in stored


def test_duplicate_external_ref_conflicts(svc: Svc) -> None:
    svc.run(players.create_player, "dup")
    with pytest.raises(Conflict) as caught:
        svc.run(players.create_player, "dup")
    assert caught.value.code == "duplicate_external_ref"


@pytest.mark.parametrize("ref", ["", "   ", "x" * 201])
def test_invalid_external_ref(svc: Svc, ref: str) -> None:
    with pytest.raises(Invalid):
        svc.run(players.create_player, ref)


def test_unknown_player_is_not_found(svc: Svc) -> None:
    with svc.uow() as uow, pytest.raises(NotFound):
        players.get_player(uow, "00000000-0000-0000-0000-000000000000")


def test_operator_tokens_from_config_and_database(svc: Svc) -> None:
    db_token = svc.run(create_operator_token, "ops")
    with svc.uow() as uow:
        from_config = authenticate(uow, "configured-secret", ["other", "configured-secret"])
        from_db = authenticate(uow, db_token, ["configured-secret"])
    assert from_config.role == "operator" and from_config.player_id is None
    assert from_db.role == "operator" and from_db.subject.startswith("operator:")
    assert from_config.subject != from_db.subject


@pytest.mark.parametrize("token", ["", "nope", "pl_unknown", "op_unknown", "x" * 600])
def test_bad_tokens_are_unauthenticated(svc: Svc, token: str) -> None:
    with svc.uow() as uow, pytest.raises(Unauthenticated):
        authenticate(uow, token, ["configured-secret"])


def test_reissued_player_token_replaces_the_old(svc: Svc) -> None:
    view, old = svc.run(players.create_player, "reissue")
    new, revoked = svc.run(players.reissue_player_token, view.id)
    assert revoked == 0
    with svc.uow() as uow:
        assert authenticate(uow, new, []).player_id == view.id
        with pytest.raises(Unauthenticated):
            authenticate(uow, old, [])


def test_operator_token_needs_a_name(svc: Svc) -> None:
    with pytest.raises(Invalid):
        svc.run(create_operator_token, "  ")
