"""An operator's seamless wallet calls of one UTC day (docs/integration.md §7): the totals,
or every call as NDJSON; and the calls that need a person, each sent once more on request
(§6). The platform reads any operator's; an operator its own only — another id answers 404
like a missing one."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import marshmallow as ma
from flask import current_app
from flask.views import MethodView
from flask.wrappers import Response
from marshmallow import RAISE, validate

from casino.api.auth import OPERATOR, PLATFORM, WITH_AUDITOR, requires
from casino.api.database import database, request_uow
from casino.api.json_body import ApiBlueprint
from casino.api.openapi import error_responses, problem_codes
from casino.api.resources._uow import read, write
from casino.api.schemas import RequestSchema, ResponseSchema
from casino.service import reconciliation as service
from casino.service import stuck_calls

blp = ApiBlueprint(
    "reconciliation",
    __name__,
    url_prefix="/api/v1/operators",
    description="Reconciliation of a seamless operator's wallet calls",
)


class ReconciliationQuerySchema(RequestSchema):
    date = ma.fields.String(
        required=True,
        metadata={"description": "The UTC day, YYYY-MM-DD", "example": "2026-01-31"},
    )
    format = ma.fields.String(
        load_default="json",
        validate=validate.OneOf(["json", "ndjson"]),
        metadata={"description": "json: the totals; ndjson: every call of the day"},
    )


class CountAmountSchema(ResponseSchema):
    count = ma.fields.Integer(required=True)
    amount = ma.fields.Integer(required=True, metadata={"description": "Minor units"})


class CurrencyTotalsSchema(ResponseSchema):
    currency = ma.fields.String(required=True)
    bets = ma.fields.Nested(
        CountAmountSchema, required=True, metadata={"description": "Applied (OK)"}
    )
    wins = ma.fields.Nested(
        CountAmountSchema, required=True, metadata={"description": "Applied (OK)"}
    )
    rollbacks = ma.fields.Nested(
        CountAmountSchema, required=True, metadata={"description": "Applied (OK)"}
    )
    unknown_bets = ma.fields.Nested(
        CountAmountSchema,
        required=True,
        metadata={"description": "Bets without a definite answer (each has a rollback)"},
    )
    pending = ma.fields.Nested(
        CountAmountSchema, required=True, metadata={"description": "Wins and rollbacks to send"}
    )
    needs_attention = ma.fields.Nested(
        CountAmountSchema,
        required=True,
        metadata={"description": "Retried for the whole window without a final answer"},
    )


class ReconciliationSchema(ResponseSchema):
    operator_id = ma.fields.String(required=True)
    date = ma.fields.String(required=True)
    currencies = ma.fields.List(ma.fields.Nested(CurrencyTotalsSchema), required=True)


@blp.route("/<operator_id>/reconciliation")
class Reconciliation(MethodView):
    @requires(PLATFORM, OPERATOR, scopes=WITH_AUDITOR)
    @blp.arguments(ReconciliationQuerySchema(), location="query", unknown=RAISE)
    @blp.response(200, ReconciliationSchema)
    @blp.alt_response(
        200,
        schema={"type": "string", "description": "One wallet call a line"},
        content_type=service.MEDIA_TYPE,
        description="format=ndjson: every wallet call of the day, streamed",
        success=True,
    )
    @blp.doc(
        operationId="getReconciliation",
        responses=error_responses(404, 422),
        **problem_codes("validation_failed", "operator_not_found", "invalid_date"),
    )
    def get(self, query: dict[str, Any], operator_id: str) -> Any:
        """A seamless operator's wallet calls of one UTC day (docs/integration.md §7)."""
        uow = request_uow()
        service.open_books_of(uow, operator_id)
        service.day_bounds(query["date"])  # 422 invalid_date before anything streams
        if query["format"] == "ndjson":
            # Its own unit of work, read while the lines are sent (after this view returned);
            # the request's ends its transaction first.
            operator, source = uow.operator_id, database()
            uow.rollback()

            def stream() -> Iterator[bytes]:
                with source.unit_of_work(operator) as own:
                    yield from service.day_lines(own, query["date"])

            return Response(stream(), mimetype=service.MEDIA_TYPE)
        return service.day_summary(uow, query["date"])


class StuckCallsQuerySchema(RequestSchema):
    limit = ma.fields.Integer(
        load_default=100,
        validate=validate.Range(min=1, max=500),
        metadata={"description": "How many of the oldest to list (1-500)"},
    )


class WalletCallSchema(ResponseSchema):
    transaction_id = ma.fields.String(required=True)
    operator_transaction_id = ma.fields.String(allow_none=True)
    kind = ma.fields.String(required=True, metadata={"description": "bet, win or rollback"})
    bet_kind = ma.fields.String(allow_none=True, metadata={"description": "deal or raise"})
    round_id = ma.fields.String(required=True)
    player = ma.fields.String(allow_none=True, metadata={"description": "The operator's id"})
    player_id = ma.fields.String(required=True)
    currency = ma.fields.String(required=True)
    amount = ma.fields.Integer(required=True, metadata={"description": "Minor units"})
    reference_transaction_id = ma.fields.String(allow_none=True)
    status = ma.fields.String(
        required=True,
        metadata={"description": "pending, ok, final, unknown or needs_attention"},
    )
    wallet_status = ma.fields.String(allow_none=True)
    attempts = ma.fields.Integer(required=True)
    last_error = ma.fields.String(allow_none=True)
    created_at = ma.fields.String(required=True)
    updated_at = ma.fields.String(required=True)
    next_attempt_at = ma.fields.String(allow_none=True)


class StuckCallsSchema(ResponseSchema):
    operator_id = ma.fields.String(required=True)
    total = ma.fields.Integer(required=True, metadata={"description": "All that need attention"})
    items = ma.fields.List(ma.fields.Nested(WalletCallSchema), required=True)


@blp.route("/<operator_id>/wallet-calls/needing-attention")
class StuckCalls(MethodView):
    @requires(PLATFORM, OPERATOR, scopes=WITH_AUDITOR)
    @blp.arguments(StuckCallsQuerySchema(), location="query", unknown=RAISE)
    @blp.response(200, StuckCallsSchema)
    @blp.doc(
        operationId="listStuckWalletCalls",
        responses=error_responses(404, 422),
        **problem_codes("validation_failed", "operator_not_found"),
    )
    def get(self, query: dict[str, Any], operator_id: str) -> Any:
        """A seamless operator's wallet calls that need a person, oldest first.

        A win or rollback the wallet refused, or never answered within the retry window
        (docs/integration.md §6). Once the wallet is fixed, send one again with
        ``POST .../wallet-calls/{transaction_id}/retry``."""
        return read(lambda uow: stuck_calls.stuck_calls(uow, operator_id, query["limit"]))


@blp.route("/<operator_id>/wallet-calls/<uuid_str:transaction_id>/retry")
class RetryCall(MethodView):
    @requires(PLATFORM, OPERATOR)
    @blp.response(200, WalletCallSchema)
    @blp.doc(
        operationId="retryWalletCall",
        responses=error_responses(404, 409),
        **problem_codes("operator_not_found", "wallet_call_not_found", "wallet_call_not_stuck"),
    )
    def post(self, operator_id: str, transaction_id: str) -> Any:
        """Send a wallet call that needs attention once more, now; the call after it.

        Only a call in ``needs_attention`` (else 409 ``wallet_call_not_stuck``); sending
        again is safe, the wallet applies a ``transaction_id`` once. Answered OK, the call
        is ``ok`` (and any round waiting for it goes on); not answered, it is ``pending``
        (the worker retries it) or needs attention again. No body, no ``Idempotency-Key``:
        a second request finds the call no longer waiting (409)."""
        window = timedelta(seconds=current_app.config["WALLET_RETRY_WINDOW_SECONDS"])
        return write(lambda uow: stuck_calls.retry_call(uow, operator_id, transaction_id, window))
