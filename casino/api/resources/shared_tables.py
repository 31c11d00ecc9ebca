"""Shared tables: the current round, bets and decisions on it, its events
(docs/shared-tables.md)."""

from __future__ import annotations

from typing import Any

from flask import request
from flask.views import MethodView
from flask.wrappers import Response
from marshmallow import RAISE

from casino.api import idempotency
from casino.api.auth import (
    EVERY_SCOPE,
    OPERATOR,
    PLAYER,
    acting_player_id,
    current_principal,
    requires,
    scope_player_id,
)
from casino.api.json_body import ApiBlueprint
from casino.api.openapi import (
    ACCOUNT_BLOCKED_CODES,
    IDEMPOTENCY_CODES,
    SEAMLESS_WALLET_CODES,
    error_responses,
    problem_codes,
)
from casino.api.resources._uow import read
from casino.api.schemas_shared import (
    MyBetSchema,
    SharedBetInputSchema,
    SharedDecisionInputSchema,
    SharedEventPageSchema,
    SharedEventsQuerySchema,
    SharedRoundSchema,
    ShoeRecordSchema,
)
from casino.api.sse import event_stream_burst, wants_event_stream
from casino.service import game_sessions
from casino.service.shared import bets as shared_bets
from casino.service.shared import events as shared_events

blp = ApiBlueprint(
    "shared_tables", __name__, url_prefix="/api/v1/tables", description="Shared tables"
)

_BET = MyBetSchema()


@blp.route("/<table_id>/round")
class SharedRound(MethodView):
    @requires(OPERATOR, PLAYER, scopes=EVERY_SCOPE)
    @blp.response(200, SharedRoundSchema)
    @blp.doc(
        operationId="getSharedRound",
        responses=error_responses(404, 409),
        **problem_codes("table_not_found", "table_not_shared", "round_not_found"),
    )
    def get(self, table_id: str) -> dict[str, Any]:
        """The shared round now: phase, deadlines, common cards, bettors, the caller's own
        bet (players) and the last 50 results (the road)."""
        player_id = scope_player_id()
        return read(lambda uow: shared_bets.current_round(uow, table_id, player_id))


@blp.route("/<table_id>/round/bets")
class SharedBets(MethodView):
    @requires(PLAYER)
    @idempotency.required
    @blp.arguments(SharedBetInputSchema())
    @blp.response(201, MyBetSchema)
    @blp.doc(
        operationId="placeSharedBet",
        responses=error_responses(401, 403, 404, 409, 422, 502, 503),
        **problem_codes(
            "validation_failed",
            *IDEMPOTENCY_CODES,
            "table_not_found",
            "table_not_shared",
            "table_inactive",
            "betting_closed",
            "invalid_bet",
            "ante_out_of_range",
            "ante_not_multiple_of_increment",
            "tie_bet_out_of_range",
            "tie_bet_not_multiple_of_increment",
            "tie_bet_not_offered",
            "insufficient_funds",
            "limit_exceeded",
            *ACCOUNT_BLOCKED_CODES,
            "session_time_limit",
            "session_table_mismatch",
            *SEAMLESS_WALLET_CODES,
        ),
    )
    def post(self, data: dict[str, Any], table_id: str) -> Response:
        """Bet on the shared round taking bets: the stake leaves the wallet now. A second
        bet on the same round adds to the first (the sums must be one valid bet). At a
        seamless operator the stake is debited from its wallet: its refusals and silences
        answer as for a private bet (403 player_blocked, 401 session_expired, 502
        wallet_error, 503 wallet_unavailable with Retry-After; docs/integration.md §6)."""
        player_id = acting_player_id()
        game_sessions.check_table(current_principal().session_table_id, table_id)
        return idempotency.respond(
            201,
            _BET.dump,
            lambda uow: shared_bets.place_bet(
                uow, player_id, table_id, data["ante"], data["tie_bet"]
            ),
        )


@blp.route("/<table_id>/round/decision")
class SharedDecision(MethodView):
    @requires(PLAYER)
    @idempotency.required
    @blp.arguments(SharedDecisionInputSchema())
    @blp.response(200, MyBetSchema)
    @blp.doc(
        operationId="decideSharedRound",
        responses=error_responses(401, 403, 404, 409, 422, 502, 503),
        **problem_codes(
            "validation_failed",
            *IDEMPOTENCY_CODES,
            "table_not_found",
            "table_not_shared",
            "round_not_awaiting_decision",
            "surrender_not_allowed",
            "unknown_decision",
            "illegal_action",
            "insufficient_funds",
            "limit_exceeded",
            *ACCOUNT_BLOCKED_CODES,
            "session_table_mismatch",
            *SEAMLESS_WALLET_CODES,
        ),
    )
    def post(self, data: dict[str, Any], table_id: str) -> Response:
        """War (the raise, and any war tie bet, leave the wallet now) or surrender on the
        shared round's tie, within its decision window. A decision is final. At a seamless
        operator the raise is a ``raise`` debit of its wallet: refused or unanswered (503
        wallet_unavailable, rolled back), the player may still decide until the deadline."""
        player_id = acting_player_id()
        game_sessions.check_table(current_principal().session_table_id, table_id)
        return idempotency.respond(
            200,
            _BET.dump,
            lambda uow: shared_bets.decide(
                uow, player_id, table_id, data["action"], data["war_tie_bet"]
            ),
        )


@blp.route("/<table_id>/events")
class SharedEvents(MethodView):
    @requires(OPERATOR, PLAYER, scopes=EVERY_SCOPE)
    @blp.arguments(SharedEventsQuerySchema(), location="query", unknown=RAISE)
    @blp.response(200, SharedEventPageSchema)
    @blp.doc(
        operationId="listSharedEvents",
        responses=error_responses(404, 409, 422),
        **problem_codes("validation_failed", "table_not_found", "table_not_shared"),
    )
    def get(self, query: dict[str, Any], table_id: str) -> Any:
        """The table's events after ``after`` (or Last-Event-ID). ``Accept:
        text/event-stream`` gets them as Server-Sent Events: here the events there are now
        and a ``retry`` (the stream ends at once, holding no worker); the event server
        (``casino events``) keeps the stream open and pushes (docs/shared-tables.md)."""
        after = shared_events.resume_point(query["after"], request.headers.get("Last-Event-ID"))
        page = read(lambda uow: shared_events.events_after(uow, table_id, after, query["limit"]))
        if wants_event_stream():
            return event_stream_burst(page["events"])
        return page


@blp.route("/<table_id>/shoes/<int:index>")
class SharedShoe(MethodView):
    @requires(OPERATOR, PLAYER, scopes=EVERY_SCOPE)
    @blp.response(200, ShoeRecordSchema)
    @blp.doc(
        operationId="getSharedShoe",
        responses=error_responses(404, 409),
        **problem_codes("table_not_found", "table_not_shared", "shoe_not_found"),
    )
    def get(self, table_id: str, index: int) -> dict[str, Any]:
        """A shoe of the table: its commitment, burn and cut card while it is dealt; once
        over, its seed, order and every round, with a player's own results in it, for
        ``casino verify --shoe`` (docs/fairness.md section 17)."""
        player_id = scope_player_id()
        return read(lambda uow: shared_events.shoe_document(uow, table_id, index, player_id))
