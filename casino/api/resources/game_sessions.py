"""Game sessions: the operator launches the game client for a player, and can end it."""

from __future__ import annotations

from typing import Any

from flask import g
from flask.views import MethodView
from flask.wrappers import Response

from casino.api import clock, idempotency, throttling
from casino.api.auth import OPERATOR, PLAYER, WITH_SUPPORT, current_principal, requires
from casino.api.json_body import ApiBlueprint
from casino.api.openapi import error_responses, problem_codes
from casino.api.resources._uow import read, write
from casino.api.schemas_sessions import (
    ExchangedSessionSchema,
    GameSessionCreatedSchema,
    GameSessionCreateSchema,
    GameSessionListSchema,
    GameSessionSchema,
    LaunchCodeSchema,
    OperatorLaunchedSchema,
    OperatorLaunchSchema,
    SessionsRevokedSchema,
)
from casino.service import game_sessions as service
from casino.service import launch as operator_launch
from casino.service.errors import NotFound

blp = ApiBlueprint(
    "game-sessions",
    __name__,
    url_prefix="/api/v1",
    description="Game sessions: short-lived player credentials for the game client",
)


def _session_of_caller() -> str:
    principal = current_principal()
    if principal.session_id is None:
        raise NotFound("this token is not a game session's", code="session_not_found")
    return principal.session_id


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

        launch_url carries a one-time launch code (valid 120 s), not a token: the client
        exchanges it once at POST /sessions/exchange for the session's token. The token
        authenticates the player on its own routes only (wallets and transactions, rounds
        and decisions - bets at the session's table only -, seeds, and what protects the
        player: lowering limits, exclusions, reality checks, statements; raising or removing
        a limit is 403 forbidden), never as an operator, until ``expires_at`` (then 401
        session_expired) or until it is revoked (DELETE /sessions/{id}, DELETE
        /players/{id}/sessions, DELETE /sessions/current). Not idempotent by key: a retry
        opens another session.
        """
        data = data or {}
        launch = write(
            lambda uow: service.create_session(
                uow,
                player_id,
                clock.now(),
                table_id=data.get("table_id"),
                ttl_seconds=data.get("ttl_seconds"),
                language=data.get("language"),
            )
        )
        view = launch.view
        return {
            "id": view.id,
            "player_id": view.player_id,
            "table_id": view.table_id,
            "language": view.language,
            "expires_at": view.expires_at,
            "launch_url": launch.launch_url,
            "launch_code": launch.code,
            "launch_code_expires_at": launch.code_expires_at,
        }

    @requires(OPERATOR, scopes=WITH_SUPPORT)
    @blp.response(200, GameSessionListSchema)
    @blp.doc(
        operationId="listGameSessions",
        responses=error_responses(404),
        **problem_codes("player_not_found"),
    )
    def get(self, player_id: str) -> dict[str, Any]:
        """The player's live game sessions (neither revoked nor expired), newest first:
        when each was made, for which table, whether its launch code was exchanged."""
        now = clock.now()
        return {"items": read(lambda uow: service.list_live_sessions(uow, player_id, now))}

    @requires(OPERATOR, scopes=WITH_SUPPORT)
    @blp.response(200, SessionsRevokedSchema)
    @blp.doc(
        operationId="revokePlayerSessions",
        responses=error_responses(404),
        **problem_codes("player_not_found"),
    )
    def delete(self, player_id: str) -> dict[str, int]:
        """End every live game session of the player at once (tokens and unused launch
        codes alike); the player's own token is untouched. Again: revoked 0."""
        now = clock.now()
        return {"revoked": write(lambda uow: service.revoke_player_sessions(uow, player_id, now))}


_LAUNCHED = OperatorLaunchedSchema()


@blp.route("/sessions")
class Sessions(MethodView):
    @requires(OPERATOR)
    @idempotency.optional
    @blp.arguments(OperatorLaunchSchema())
    @blp.response(201, OperatorLaunchedSchema)
    @blp.doc(
        operationId="launchGameSession",
        responses=error_responses(404, 409, 422),
        **problem_codes(
            "validation_failed",
            "unsupported_currency",
            "table_not_found",
            "table_currency_mismatch",
            "invalid_operator_session",
            "invalid_external_ref",
            "idempotency_key_invalid",
            "idempotency_key_reused",
            "request_in_progress",
        ),
    )
    def post(self, data: dict[str, Any]) -> Response | dict[str, Any]:
        """Launch by your own player reference: the player ``player`` (your external_ref)
        is found, or made (``player_created``), and a game session opened for it at
        ``table_id``, in ``currency`` (the table's), answered like createGameSession: the
        launch_url with its one-time launch code. ``operator_session``, your own session
        token, is kept with the session (a seamless wallet gets it back as ``session``).

        With an ``Idempotency-Key`` a retry answers the same session again, with
        ``launch_url`` and ``launch_code`` null (shown once: launch again with a new key);
        without one, a retry opens another session for the same player.
        """
        now = clock.now()

        def launch(uow: Any) -> dict[str, Any]:
            done = operator_launch.launch(
                uow,
                data["player"],
                data["currency"],
                data["table_id"],
                now,
                operator_session=data["operator_session"],
                language=data["language"],
                ttl_seconds=data["ttl_seconds"],
            )
            view = done.launch.view
            return {
                "id": view.id,
                "player_id": view.player_id,
                "external_ref": done.external_ref,
                "player_created": done.player_created,
                "table_id": view.table_id,
                "currency": done.currency,
                "language": view.language,
                "expires_at": view.expires_at,
                "launch_url": done.launch.launch_url,
                "launch_code": done.launch.code,
                "launch_code_expires_at": done.launch.code_expires_at,
            }

        if g.idempotency_key is not None:
            return idempotency.respond(
                201,
                _LAUNCHED.dump,
                launch,
                stored=lambda body: {**body, "launch_url": None, "launch_code": None},
            )
        return write(launch)


@blp.route("/sessions/exchange")
class ExchangeLaunchCode(MethodView):
    @blp.arguments(LaunchCodeSchema())
    @blp.response(200, ExchangedSessionSchema)
    @blp.doc(
        operationId="exchangeLaunchCode",
        responses=error_responses(401, 429, 503),
        **problem_codes("validation_failed"),
    )
    def post(self, data: dict[str, Any]) -> dict[str, Any]:
        """Trade the launch code from a launch URL's fragment for the session's token.

        No token needed: the code is the credential. It works once, within 120 s of the
        launch: a second exchange, or an unknown, expired or revoked code, is 401
        unauthenticated, and counts as a failed authentication of the address (too many:
        429 rate_limited, refused before any database work). The token is in this answer
        only.
        """
        throttling.refuse_blocked_client(None)
        now = clock.now()
        view, token = write(lambda uow: service.exchange(uow, data["code"], now))
        return {
            "id": view.id,
            "session_id": view.id,
            "player_id": view.player_id,
            "table_id": view.table_id,
            "language": view.language,
            "expires_at": view.expires_at,
            "token": token,
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
        launched for, its language and when it ends. 404 session_not_found for a token that
        is not a game session's."""
        session_id = _session_of_caller()
        player_id = current_principal().player_id
        return read(lambda uow: service.get_session(uow, session_id, player_id))

    @requires(PLAYER)
    @blp.response(204)
    @blp.doc(
        operationId="endCurrentGameSession",
        responses=error_responses(404),
        **problem_codes("session_not_found"),
    )
    def delete(self) -> None:
        """Log out: end the calling token's game session at once (its token is refused from
        now on). 404 session_not_found for a token that is not a game session's."""
        session_id = _session_of_caller()
        write(lambda uow: service.revoke_session(uow, session_id, clock.now()))


@blp.route("/sessions/<uuid_str:session_id>")
class GameSession(MethodView):
    @requires(OPERATOR, scopes=WITH_SUPPORT)
    @blp.response(204)
    @blp.doc(
        operationId="revokeGameSession",
        responses=error_responses(404),
        **problem_codes("session_not_found"),
    )
    def delete(self, session_id: str) -> None:
        """Revoke the session: its token (or unused launch code) is refused from now on
        (again: no change)."""
        write(lambda uow: service.revoke_session(uow, session_id, clock.now()))
