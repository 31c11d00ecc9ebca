"""Game sessions: the operator launches the game client for a player, and can end it."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from casino.api import clock
from casino.api.auth import OPERATOR, PLAYER, current_principal, requires
from casino.api.json_body import ApiBlueprint
from casino.api.openapi import error_responses, problem_codes
from casino.api.resources._uow import read, write
from casino.api.schemas_sessions import (
    GameSessionCreatedSchema,
    GameSessionCreateSchema,
    GameSessionSchema,
)
from casino.service import game_sessions as service
from casino.service.errors import NotFound

blp = ApiBlueprint(
    "game-sessions",
    __name__,
    url_prefix="/api/v1",
    description="Game sessions: short-lived player credentials for the game client",
)


@blp.route("/players/<uuid_str:player_id>/sessions")
class PlayerSessions(MethodView):
    @requires(OPERATOR)
    @blp.arguments(GameSessionCreateSchema(), required=False)
    @blp.response(201, GameSessionCreatedSchema)
    @blp.doc(
        operationId="createGameSession",
        responses=error_responses(404, 422),
        **problem_codes("validation_failed", "player_not_found", "table_not_found"),
    )
    def post(self, data: dict[str, Any], player_id: str) -> dict[str, Any]:
        """Launch: a game session for the player, and the client's launch_url.

        The token authenticates the player on its own routes only (wallets and transactions,
        rounds and decisions, seeds, and what protects the player: lowering limits,
        exclusions, reality checks, statements; raising or removing a limit is 403
        forbidden), never as an operator, until ``expires_at`` (then 401
        session_expired) or until DELETE /sessions/{id}. Shown once, stored hashed. Not
        idempotent by key: a retry opens another session.
        """
        data = data or {}
        view, token = write(
            lambda uow: service.create_session(
                uow,
                player_id,
                clock.now(),
                table_id=data.get("table_id"),
                ttl_seconds=data.get("ttl_seconds"),
            )
        )
        return {
            "id": view.id,
            "player_id": view.player_id,
            "table_id": view.table_id,
            "expires_at": view.expires_at,
            "token": token,
            "launch_url": service.launch_url(token, view.table_id),
        }


@blp.route("/sessions/current")
class CurrentSession(MethodView):
    @requires(PLAYER)
    @blp.response(200, GameSessionSchema)
    @blp.doc(
        operationId="getCurrentGameSession",
        responses=error_responses(404),
        **problem_codes("session_not_found"),
    )
    def get(self) -> service.GameSessionView:
        """The game session of the calling token: who the player is, which table it was
        launched for and when it ends. 404 session_not_found for a token that is not a game
        session's."""
        principal = current_principal()
        if principal.session_id is None:
            raise NotFound("this token is not a game session's", code="session_not_found")
        session_id = principal.session_id
        return read(lambda uow: service.get_session(uow, session_id, principal.player_id))


@blp.route("/sessions/<uuid_str:session_id>")
class GameSession(MethodView):
    @requires(OPERATOR)
    @blp.response(204)
    @blp.doc(
        operationId="revokeGameSession",
        responses=error_responses(404),
        **problem_codes("session_not_found"),
    )
    def delete(self, session_id: str) -> None:
        """Revoke the session: its token is refused from now on (again: no change)."""
        write(lambda uow: service.revoke_session(uow, session_id, clock.now()))
