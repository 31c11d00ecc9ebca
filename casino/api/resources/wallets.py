"""Deposits, withdrawals, balances and ledger history of a player."""

from __future__ import annotations

from typing import Any

from flask.views import MethodView
from flask.wrappers import Response
from marshmallow import RAISE

from casino.api import idempotency
from casino.api.auth import OPERATOR, PLAYER, WITH_AUDITOR, ensure_visible_player, requires
from casino.api.json_body import ApiBlueprint
from casino.api.openapi import (
    ACCOUNT_BLOCKED_CODES,
    IDEMPOTENCY_CODES,
    error_responses,
    problem_codes,
)
from casino.api.resources._uow import read
from casino.api.schemas import (
    MoneyMovementSchema,
    PageQuerySchema,
    TransactionPageSchema,
    TransactionSchema,
    WalletSchema,
)
from casino.service import wallets as wallet_service
from casino.service.views import Page, TransactionView, WalletView

blp = ApiBlueprint(
    "wallets", __name__, url_prefix="/api/v1/players", description="Wallets and ledger"
)
# One instance for every response: building a schema deep-copies its fields (~0.3 ms a
# request); dumping does not change it, so threads can share it.
_TRANSACTION_BODY = TransactionSchema()


@blp.route("/<uuid_str:player_id>/deposits")
class Deposits(MethodView):
    @requires(OPERATOR)
    @idempotency.required
    @blp.arguments(MoneyMovementSchema())
    @blp.response(201, TransactionSchema)
    @blp.doc(
        operationId="deposit",
        responses=error_responses(404, 409, 422),
        **problem_codes(
            "validation_failed",
            "operator_wallet",
            *IDEMPOTENCY_CODES,
            "player_not_found",
            "unsupported_currency",
            "duplicate_reference",
            "limit_exceeded",
            *ACCOUNT_BLOCKED_CODES,
        ),
    )
    def post(self, data: dict[str, Any], player_id: str) -> Response:
        """Credit a player's wallet (created by the first deposit in a currency)."""
        return idempotency.respond(
            201,
            _TRANSACTION_BODY.dump,
            lambda uow: wallet_service.deposit(
                uow, player_id, data["currency"], data["amount"], data["reference"]
            ),
        )


@blp.route("/<uuid_str:player_id>/withdrawals")
class Withdrawals(MethodView):
    @requires(OPERATOR)
    @idempotency.required
    @blp.arguments(MoneyMovementSchema())
    @blp.response(201, TransactionSchema)
    @blp.doc(
        operationId="withdraw",
        responses=error_responses(404, 409, 422),
        **problem_codes(
            "validation_failed",
            "operator_wallet",
            *IDEMPOTENCY_CODES,
            "player_not_found",
            "unsupported_currency",
            "insufficient_funds",
            "duplicate_reference",
        ),
    )
    def post(self, data: dict[str, Any], player_id: str) -> Response:
        """Debit a player's wallet; beyond the balance -> 409 insufficient_funds."""
        return idempotency.respond(
            201,
            _TRANSACTION_BODY.dump,
            lambda uow: wallet_service.withdraw(
                uow, player_id, data["currency"], data["amount"], data["reference"]
            ),
        )


@blp.route("/<uuid_str:player_id>/wallets")
class Wallets(MethodView):
    @requires(OPERATOR, PLAYER, scopes=WITH_AUDITOR)
    @blp.response(200, WalletSchema(many=True))
    @blp.doc(
        operationId="listWallets",
        responses=error_responses(404, 503),
        **problem_codes("player_not_found", "wallet_unavailable"),
    )
    def get(self, player_id: str) -> list[WalletView]:
        """The player's balance in each currency it holds. For a seamless operator's player:
        the operator's wallet's balance in each of the operator's currencies, plus what
        rounds owe the player and the wallet has not confirmed yet (503 wallet_unavailable
        when the wallet does not answer)."""
        ensure_visible_player(player_id)
        return read(lambda uow: wallet_service.list_wallets(uow, player_id))


@blp.route("/<uuid_str:player_id>/transactions")
class Transactions(MethodView):
    @requires(OPERATOR, PLAYER, scopes=WITH_AUDITOR)
    @blp.arguments(PageQuerySchema(), location="query", unknown=RAISE)
    @blp.response(200, TransactionPageSchema)
    @blp.doc(operationId="listTransactions", responses=error_responses(404, 422))
    def get(self, query: dict[str, Any], player_id: str) -> Page[TransactionView]:
        """The player's ledger history, newest first, one page at a time."""
        ensure_visible_player(player_id)
        return read(
            lambda uow: wallet_service.list_transactions(
                uow, player_id, query.get("cursor"), query["limit"]
            )
        )
