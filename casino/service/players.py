"""Players: created by an operator, each with a bearer token shown once."""

from __future__ import annotations

import re
import uuid

from casino.service.auth import PLAYER_PREFIX, hash_token, new_token
from casino.service.common import require_player
from casino.service.errors import Conflict, Invalid
from casino.service.seeds import first_pair
from casino.service.views import PlayerView
from casino.store.records import PlayerRecord
from casino.store.types import utcnow
from casino.store.uow import UnitOfWork

MAX_REF = 200
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def player_view(player: PlayerRecord) -> PlayerView:
    return PlayerView(
        id=player.id,
        external_ref=player.external_ref,
        display_name=player.display_name,
        created_at=player.created_at,
    )


def _check_text(value: str | None, name: str, code: str, *, required: bool) -> str | None:
    if value is None:
        if required:
            raise Invalid(f"{name} is required", code=code)
        return None
    if not isinstance(value, str) or not 1 <= len(value.strip()) <= MAX_REF or len(value) > MAX_REF:
        raise Invalid(f"{name} must be 1 to {MAX_REF} characters", code=code)
    return value


def _check_ref(value: str | None) -> str:
    """An external_ref: no control characters, no white space at either end ("abc " would
    be another player than "abc", which no operator means)."""
    ref = _check_text(value, "external_ref", "invalid_external_ref", required=True) or ""
    if ref != ref.strip() or ref[0] == "\ufeff" or ref[-1] == "\ufeff" or _CONTROL.search(ref):
        raise Invalid(
            "external_ref must not contain control characters nor start or end with white space",
            code="invalid_external_ref",
        )
    return ref


def _duplicate(player_id: str | None) -> Conflict:
    return Conflict(
        "a player with this external_ref exists",
        code="duplicate_external_ref",
        player_id=player_id,
    )


def create_player(
    uow: UnitOfWork, external_ref: str, display_name: str | None = None
) -> tuple[PlayerView, str]:
    """A new player with its first server seed; the token is returned once, stored hashed."""
    external_ref = _check_ref(external_ref)
    display_name = _check_text(display_name, "display_name", "invalid_display_name", required=False)
    existing = uow.players.id_by_external_ref(external_ref)
    if existing is not None:
        raise _duplicate(existing)
    token = new_token(PLAYER_PREFIX)
    now = utcnow()
    player = PlayerRecord(str(uuid.uuid4()), external_ref, display_name, now)
    if not uow.players.add(player, hash_token(token)):  # created meanwhile by another request
        raise _duplicate(uow.players.id_by_external_ref(external_ref))
    first_pair(uow, player.id, now)
    return player_view(player), token


def find_players(uow: UnitOfWork, external_ref: str) -> list[PlayerView]:
    """The player with this external_ref, if any (a list: none or one)."""
    _check_text(external_ref, "external_ref", "invalid_external_ref", required=True)
    player_id = uow.players.id_by_external_ref(external_ref)
    player = None if player_id is None else uow.players.get(player_id)
    return [] if player is None else [player_view(player)]


def get_player(uow: UnitOfWork, player_id: str) -> PlayerView:
    return player_view(require_player(uow, player_id))


def reissue_player_token(
    uow: UnitOfWork, player_id: str, *, revoke_sessions: bool = False
) -> tuple[str, int]:
    """Replace a player's token (the old one stops working); returned once. With
    ``revoke_sessions`` every live game session of the player ends too: (token, how many)."""
    require_player(uow, player_id)
    token = new_token(PLAYER_PREFIX)
    uow.players.set_token_hash(player_id, hash_token(token))
    revoked = uow.game_sessions.revoke_player(player_id, uow.now()) if revoke_sessions else 0
    return token, revoked


def find_or_create_player(uow: UnitOfWork, external_ref: str) -> tuple[PlayerView, bool]:
    """The operator's player with this external_ref, made (with its first seeds, and a
    token nobody is shown) if it does not exist yet; whether it was made now."""
    found = find_players(uow, external_ref)
    if found:
        return found[0], False
    try:
        player, _ = create_player(uow, external_ref)
    except Conflict:  # made meanwhile by another request
        return find_players(uow, external_ref)[0], False
    return player, True
