"""Players: created by operators; a player may read itself."""

from __future__ import annotations

from typing import Any

from flask import g
from flask.views import MethodView
from flask.wrappers import Response
from marshmallow import RAISE

from casino.api import idempotency
from casino.api.auth import OPERATOR, PLAYER, WITH_SUPPORT, ensure_visible_player, requires
from casino.api.json_body import ApiBlueprint
from casino.api.openapi import error_responses, problem_codes
from casino.api.resources._uow import read, write
from casino.api.schemas import (
    PlayerCreatedSchema,
    PlayerCreateSchema,
    PlayerSchema,
    PlayerTokenSchema,
)
from casino.api.schemas_protection import PlayerListSchema, PlayerQuerySchema
from casino.api.schemas_sessions import ReissueTokenSchema
from casino.service import players as player_service
from casino.service.views import PlayerView

blp = ApiBlueprint("players", __name__, url_prefix="/api/v1/players", description="Players")


@blp.route("")
class Players(MethodView):
    @requires(OPERATOR)
    @idempotency.optional
    @blp.arguments(PlayerCreateSchema())
    @blp.response(201, PlayerCreatedSchema)
    @blp.doc(
        operationId="createPlayer",
        responses=error_responses(409, 422),
        **problem_codes(
            "validation_failed",
            "duplicate_external_ref",
            "idempotency_key_invalid",
            "idempotency_key_reused",
            "request_in_progress",
        ),
    )
    def post(self, data: dict[str, Any]) -> Response | dict[str, Any]:
        """Create a player and its bearer token (shown only in this response).

        With an ``Idempotency-Key`` a retry answers the same player again
        (``Idempotent-Replayed: true``) but with ``token`` null: the token is never stored
        in clear, so a lost one is replaced by ``POST`` to ``reissue_token``. Without a key,
        a retry answers 409 ``duplicate_external_ref`` with the existing ``player_id``.
        """

        def create(uow: Any) -> dict[str, Any]:
            player, token = player_service.create_player(
                uow, data["external_ref"], data["display_name"]
            )
            return {**_player_dict(player), "token": token}

        if g.idempotency_key is not None:
            return idempotency.respond(
                201, _CREATED_BODY.dump, create, stored=lambda body: {**body, "token": None}
            )
        return write(create)

    @requires(OPERATOR, scopes=WITH_SUPPORT)
    @blp.arguments(PlayerQuerySchema(), location="query", unknown=RAISE)
    @blp.response(200, PlayerListSchema)
    @blp.doc(operationId="findPlayers", responses=error_responses(422))
    def get(self, query: dict[str, Any]) -> dict[str, list[PlayerView]]:
        """Look a player up by your ``external_ref``: ``items`` holds it, or nothing."""
        return {"items": read(lambda uow: player_service.find_players(uow, query["external_ref"]))}


@blp.route("/<uuid_str:player_id>")
class Player(MethodView):
    @requires(OPERATOR, PLAYER, scopes=WITH_SUPPORT)
    @blp.response(200, PlayerSchema)
    @blp.doc(operationId="getPlayer", responses=error_responses(404))
    def get(self, player_id: str) -> PlayerView:
        """A player (a player token sees only its own player)."""
        ensure_visible_player(player_id)
        return read(lambda uow: player_service.get_player(uow, player_id))


@blp.route("/<uuid_str:player_id>/token")
class PlayerToken(MethodView):
    @requires(OPERATOR)
    @blp.arguments(ReissueTokenSchema(), required=False)
    @blp.response(201, PlayerTokenSchema)
    @blp.doc(operationId="reissuePlayerToken", responses=error_responses(404, 422))
    def post(self, data: dict[str, Any], player_id: str) -> dict[str, Any]:
        """Issue the player a new bearer token; the old one stops working at once.

        For a token lost or leaked. With ``revoke_sessions: true`` every live game session
        of the player ends too (``sessions_revoked`` says how many); by default they are
        left alone. The new token is in this response only. Not idempotent by key (a replay
        would have to store the token): a retry issues yet another token, and only the last
        one issued works.
        """
        revoke = bool((data or {}).get("revoke_sessions"))
        token, revoked = write(
            lambda uow: player_service.reissue_player_token(uow, player_id, revoke_sessions=revoke)
        )
        return {"id": player_id, "token": token, "sessions_revoked": revoked}


_CREATED_BODY = PlayerCreatedSchema()


def _player_dict(player: PlayerView) -> dict[str, Any]:
    return {
        "id": player.id,
        "external_ref": player.external_ref,
        "display_name": player.display_name,
        "created_at": player.created_at,
        "reissue_token": f"/api/v1/players/{player.id}/token",
    }
