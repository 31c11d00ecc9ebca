"""Casino War rounds: bet, decide, recall."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask.wrappers import Response
from marshmallow import RAISE

from casino.api import idempotency, metrics
from casino.api.auth import (
    EVERY_SCOPE,
    OPERATOR,
    PLAYER,
    acting_player_id,
    claims_bet,
    current_principal,
    player_not_found,
    requires,
    scope_player_id,
)
from casino.api.database import request_uow
from casino.api.json_body import ApiBlueprint
from casino.api.openapi import (
    ACCOUNT_BLOCKED_CODES,
    IDEMPOTENCY_CODES,
    SEAMLESS_WALLET_CODES,
    error_responses,
    problem_codes,
)
from casino.api.resources._uow import write
from casino.api.schemas_rounds import (
    BetSchema,
    DecisionSchema,
    RoundPageSchema,
    RoundSchema,
    RoundsQuerySchema,
    round_body,
)
from casino.engine.casino_war import HandBet
from casino.service import game_sessions
from casino.service import rounds as round_service
from casino.service.errors import Conflict
from casino.service.views import Page, RoundView
from casino.store.uow import UnitOfWork

blp = ApiBlueprint("rounds", __name__, url_prefix="/api/v1/rounds", description="Rounds")


@blp.route("")
class Rounds(MethodView):
    @claims_bet
    @requires(PLAYER)
    @idempotency.required
    @blp.arguments(BetSchema())
    @blp.response(201, RoundSchema)
    @blp.doc(
        operationId="placeBet",
        responses=error_responses(401, 403, 404, 409, 422, 502, 503),
        **problem_codes(
            "validation_failed",
            *IDEMPOTENCY_CODES,
            "table_not_found",
            "table_inactive",
            "ante_out_of_range",
            "ante_not_multiple_of_increment",
            "tie_bet_out_of_range",
            "tie_bet_not_multiple_of_increment",
            "invalid_bet",
            "insufficient_funds",
            "round_in_progress",
            "client_seed_fixed",
            "seed_rotation_in_progress",
            "limit_exceeded",
            *ACCOUNT_BLOCKED_CODES,
            "session_time_limit",
            "session_table_mismatch",
            *SEAMLESS_WALLET_CODES,
        ),
    )
    def post(self, data: dict[str, Any]) -> Response:
        """Bet one hand (ante, tie_bet) or several (hands: [{ante, tie_bet}, ...], up to the
        table's max_hands): the stakes leave the wallet and the first cards are dealt.

        A tie leaves the round awaiting a decision; anything else settles it at once.
        409 insufficient_funds; 409 round_in_progress (with round_id) while another round
        awaits a decision; 409 client_seed_fixed for a client_seed the pair no longer takes;
        422 invalid_bet codes for stakes the table does not take. With a game session's
        token, only at the table the session was launched for (403 session_table_mismatch;
        a session launched for no table bets anywhere).
        """
        player_id = acting_player_id()
        game_sessions.check_table(current_principal().session_table_id, data["table_id"])

        def bet() -> Response:
            return idempotency.respond(
                201,
                metrics.noting(metrics.BET, round_body),
                lambda uow: round_service.place_bet(
                    uow,
                    player_id,
                    data["table_id"],
                    hands=[HandBet(hand["ante"], hand["tie_bet"]) for hand in data["hands"]],
                    client_seed=data.get("client_seed"),
                ),
            )

        try:
            return bet()
        except Conflict as exc:
            if exc.code != "round_in_progress":
                raise
            # The open round may be past its decision deadline: the clock decides it (its
            # own commit), and the bet is tried again.
            uow = request_uow()
            uow.rollback()
            if not round_service.time_out_due(uow, player_id):
                raise
            uow.commit()
            return bet()

    @requires(OPERATOR, PLAYER, scopes=EVERY_SCOPE)
    @blp.arguments(RoundsQuerySchema(), location="query", unknown=RAISE)
    @blp.response(200, RoundPageSchema)
    @blp.doc(operationId="listRounds", responses=error_responses(404, 422))
    def get(self, query: dict[str, Any]) -> Page[RoundView]:
        """Rounds, newest first: a player's own; an operator's all (filter by player_id).
        Filters: status, table_id, and creation time from since (included) to until
        (excluded); 422 invalid_range when since is not before until."""
        wanted = query.get("player_id")
        scope = scope_player_id()
        if scope is not None:
            if wanted is not None and wanted != scope:
                raise player_not_found(wanted)
            wanted = scope

        def listing(uow: UnitOfWork) -> Page[RoundView]:
            # Rounds past their decision deadline are decided by the clock first, committed
            # (one probe of a partial index), so no list shows one waiting beyond its clock.
            if round_service.time_out_due(uow, wanted):
                uow.commit()
            return round_service.list_rounds(
                uow,
                wanted,
                query.get("status"),
                query.get("cursor"),
                query["limit"],
                table_id=query.get("table_id"),
                since=query.get("since"),
                until=query.get("until"),
            )

        return write(listing)


@blp.route("/<uuid_str:round_id>")
class Round(MethodView):
    @requires(OPERATOR, PLAYER, scopes=EVERY_SCOPE)
    @blp.response(200, RoundSchema)
    @blp.doc(operationId="getRound", responses=error_responses(404))
    def get(self, round_id: str) -> RoundView:
        """A round's full recall: cards, war, decision, bets, payouts and fairness data.

        For the player, ``reality_check`` is the one due now, as in bet and decision
        answers, until acknowledged; an operator's recall has it null."""
        scope = scope_player_id()
        # A write: a round past its decision deadline is decided by the clock on being read.
        return write(lambda uow: round_service.get_round(uow, round_id, scope))


@blp.route("/<uuid_str:round_id>/decision")
class RoundDecision(MethodView):
    @requires(PLAYER)
    @idempotency.required
    @blp.arguments(DecisionSchema())
    @blp.response(200, RoundSchema)
    @blp.doc(
        operationId="decideRound",
        responses=error_responses(401, 403, 404, 409, 422, 502, 503),
        **problem_codes(
            "validation_failed",
            *IDEMPOTENCY_CODES,
            "round_not_found",
            "round_not_awaiting_decision",
            "surrender_not_allowed",
            "illegal_action",
            "invalid_bet",
            "insufficient_funds",
            "limit_exceeded",
            *ACCOUNT_BLOCKED_CODES,
            *SEAMLESS_WALLET_CODES,
        ),
    )
    def post(self, data: dict[str, Any], round_id: str) -> Response:
        """Surrender (half the ante back) or go to war (raise = ante) on tied hands.

        ``{action, war_tie_bet}`` decides the round's one hand awaiting a decision;
        ``{hands: {"0": "war", "2": "surrender"}, war_tie_bets: {"0": 100}}`` any of them
        (all or none). Past the round's decision_deadline the table's clock decides instead
        (200, decided_by timeout: the late choice is not applied).

        409 round_not_awaiting_decision; 409 insufficient_funds for the raise (the round
        stays open). Going to war is a new wager: a suspended, closed, self-excluded or
        cooling-off account is refused it (403, the round stays open) and may surrender.
        """
        principal = current_principal()
        return idempotency.respond(
            200,
            metrics.noting(metrics.DECISION, round_body),
            lambda uow: round_service.decide_hands(
                uow,
                round_id,
                data["decisions"],
                player_id=principal.player_id,
                one_hand=data["one_hand"],
            ),
        )
