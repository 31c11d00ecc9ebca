"""Players: created by operators; a player may read itself."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from casino.api.auth import OPERATOR, PLAYER, ensure_visible_player, requires
from casino.api.json_body import ApiBlueprint
from casino.api.openapi import error_responses
from casino.api.resources._uow import read, write
from casino.api.schemas import (
    NoFieldsSchema,
    PlayerCreatedSchema,
    PlayerCreateSchema,
    PlayerSchema,
    PlayerTokenSchema,
)
from casino.service import players as player_service
from casino.service.views import PlayerView

blp = ApiBlueprint("players", __name__, url_prefix="/api/v1/players", description="Players")


@blp.route("")
class Players(MethodView):
    @requires(OPERATOR)
    @blp.arguments(PlayerCreateSchema())
    @blp.response(201, PlayerCreatedSchema)
    @blp.doc(operationId="createPlayer", responses=error_responses(409, 422))
    def post(self, data: dict[str, Any]) -> dict[str, Any]:
        """Create a player and its bearer token (shown only in this response).

        Not idempotent by key on purpose: a replay would have to store the token; a retry
        with the same external_ref answers 409 duplicate_external_ref instead.
        """
        player, token = write(
            lambda uow: player_service.create_player(
                uow, data["external_ref"], data["display_name"]
            )
        )
        return {**_player_dict(player), "token": token}


@blp.route("/<uuid_str:player_id>")
class Player(MethodView):
    @requires(OPERATOR, PLAYER)
    @blp.response(200, PlayerSchema)
    @blp.doc(operationId="getPlayer", responses=error_responses(404))
    def get(self, player_id: str) -> PlayerView:
        """A player (a player token sees only its own player)."""
        ensure_visible_player(player_id)
        return read(lambda uow: player_service.get_player(uow, player_id))


@blp.route("/<uuid_str:player_id>/token")
class PlayerToken(MethodView):
    @requires(OPERATOR)
    @blp.arguments(NoFieldsSchema(), required=False)
    @blp.response(201, PlayerTokenSchema)
    @blp.doc(operationId="reissuePlayerToken", responses=error_responses(404, 422))
    def post(self, _: dict[str, Any], player_id: str) -> dict[str, str]:
        """Issue the player a new bearer token; the old one stops working at once.

        For a token lost or leaked. The new token is in this response only. Not idempotent by
        key (a replay would have to store the token): a retry issues yet another token, and
        only the last one issued works.
        """
        token = write(lambda uow: player_service.reissue_player_token(uow, player_id))
        return {"id": player_id, "token": token}


def _player_dict(player: PlayerView) -> dict[str, Any]:
    return {
        "id": player.id,
        "external_ref": player.external_ref,
        "display_name": player.display_name,
        "created_at": player.created_at,
    }
