"""Provably fair seeds of a player: commitment, client seed, rotation."""

from __future__ import annotations

from typing import Any

from flask import g
from flask.views import MethodView
from flask.wrappers import Response

from casino.api import idempotency
from casino.api.auth import OPERATOR, PLAYER, acting_player_id, ensure_visible_player, requires
from casino.api.json_body import ApiBlueprint
from casino.api.openapi import error_responses, problem_codes
from casino.api.resources._uow import read, write
from casino.api.schemas import ClientSeedSchema, RotateSchema, RotationSchema, SeedsSchema
from casino.service import seeds as seed_service
from casino.service.views import RotationView, SeedsView

blp = ApiBlueprint(
    "seeds", __name__, url_prefix="/api/v1/players", description="Provably fair seeds"
)


def _own(player_id: str) -> str:
    """The acting player, which must be the one named in the path (404 otherwise)."""
    ensure_visible_player(player_id)
    return acting_player_id()


@blp.route("/<uuid_str:player_id>/seeds")
class Seeds(MethodView):
    @requires(OPERATOR, PLAYER)
    @blp.response(200, SeedsSchema)
    @blp.doc(operationId="getSeeds", responses=error_responses(404))
    def get(self, player_id: str) -> SeedsView:
        """The active pair (server seed commitment, client seed, next nonce) and the
        commitment to the next server seed."""
        ensure_visible_player(player_id)
        return read(lambda uow: seed_service.get_seeds(uow, player_id))


@blp.route("/<uuid_str:player_id>/seeds/client")
class ClientSeed(MethodView):
    @requires(PLAYER)
    @blp.arguments(ClientSeedSchema())
    @blp.response(200, SeedsSchema)
    @blp.doc(operationId="setClientSeed", responses=error_responses(404, 409, 422))
    def put(self, data: dict[str, Any], player_id: str) -> SeedsView:
        """Choose the client seed used from the next round on (1-64 printable ASCII)."""
        own = _own(player_id)
        return write(lambda uow: seed_service.set_client_seed(uow, own, data["client_seed"]))


_ROTATION = RotationSchema()


@blp.route("/<uuid_str:player_id>/seeds/rotate")
class Rotate(MethodView):
    @requires(PLAYER)
    @idempotency.optional
    @blp.arguments(RotateSchema(), required=False)
    @blp.response(200, RotationSchema)
    @blp.doc(
        operationId="rotateSeeds",
        responses=error_responses(404, 409, 422),
        **problem_codes(
            "validation_failed",
            "player_not_found",
            "round_in_progress",
            "seed_rotation_in_progress",
            "idempotency_key_invalid",
            "idempotency_key_reused",
            "request_in_progress",
        ),
    )
    def post(self, data: dict[str, Any], player_id: str) -> Response | RotationView:
        """Reveal the active server seed, make the committed next one active, commit a new next.

        The new pair's server seed is the one whose hash was shown as next_server_seed_hash
        before this request; client_seed (optional) is the new pair's client seed.
        409 round_in_progress while a round awaits a decision. With an ``Idempotency-Key``
        a retry (after a lost answer) answers the first rotation again
        (``Idempotent-Replayed: true``) and never rotates twice; without one, every request
        rotates.
        """
        own = _own(player_id)
        client_seed = (data or {}).get("client_seed")
        if g.idempotency_key is not None:
            return idempotency.respond(
                200, _ROTATION.dump, lambda uow: seed_service.rotate_seed(uow, own, client_seed)
            )
        return write(lambda uow: seed_service.rotate_seed(uow, own, client_seed))
