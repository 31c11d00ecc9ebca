"""Operators (tenants): the platform creates, lists, reads and changes them.

Only platform tokens (``CASINO_PLATFORM_TOKENS``, ``casino create-operator-token
--platform``) reach these operations; an operator's token gets 403 ``forbidden``.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from flask import g
from flask.views import MethodView
from flask.wrappers import Response

from casino.api import idempotency
from casino.api.auth import PLATFORM, requires
from casino.api.json_body import ApiBlueprint
from casino.api.openapi import error_responses, problem_codes
from casino.api.resources._uow import read, write
from casino.api.schemas_operators import (
    OperatorCreatedSchema,
    OperatorCreateSchema,
    OperatorListSchema,
    OperatorSchema,
    OperatorUpdateSchema,
)
from casino.service import operators as service
from casino.service.operators import OperatorView
from casino.store.uow import UnitOfWork

blp = ApiBlueprint(
    "operators",
    __name__,
    url_prefix="/api/v1/operators",
    description="Operators (tenants), managed by the platform",
)
_CREATED_BODY = OperatorCreatedSchema()


@blp.route("")
class Operators(MethodView):
    @requires(PLATFORM)
    @idempotency.optional
    @blp.arguments(OperatorCreateSchema())
    @blp.response(201, OperatorCreatedSchema)
    @blp.doc(
        operationId="createOperator",
        responses=error_responses(409, 422),
        **problem_codes(
            "validation_failed",
            "invalid_operator",
            "unsupported_currency",
            "invalid_wallet_settings",
            "duplicate_operator",
            "idempotency_key_invalid",
            "idempotency_key_reused",
            "request_in_progress",
        ),
    )
    def post(self, data: dict[str, Any]) -> Response | dict[str, Any]:
        """Create an operator and a first admin token for it (shown only in this response).

        Transfer mode unless ``wallet.mode`` is seamless (then ``url`` and ``secret`` are
        required). With an ``Idempotency-Key`` a retry answers the same operator again with
        ``token`` null; without one, a retry answers 409 ``duplicate_operator``.
        """

        def create(uow: UnitOfWork) -> dict[str, Any]:
            view = service.create_operator(
                uow,
                data["id"],
                data["name"],
                currencies=data["currencies"],
                wallet=data["wallet"],
                active=data["active"],
            )
            return {**asdict(view), "token": service.first_token(uow, view.id)}

        if g.idempotency_key is not None:
            return idempotency.respond(
                201, _CREATED_BODY.dump, create, stored=lambda body: {**body, "token": None}
            )
        return write(create)

    @requires(PLATFORM)
    @blp.response(200, OperatorListSchema)
    @blp.doc(operationId="listOperators")
    def get(self) -> dict[str, list[OperatorView]]:
        """Every operator, by id."""
        return {"items": read(service.list_operators)}


@blp.route("/<operator_id>")
class Operator(MethodView):
    @requires(PLATFORM)
    @blp.response(200, OperatorSchema)
    @blp.doc(
        operationId="getOperator",
        responses=error_responses(404),
        **problem_codes("operator_not_found"),
    )
    def get(self, operator_id: str) -> OperatorView:
        """One operator (its wallet secret is never shown)."""
        return read(lambda uow: service.get_operator(uow, operator_id))

    @requires(PLATFORM)
    @blp.arguments(OperatorUpdateSchema())
    @blp.response(200, OperatorSchema)
    @blp.doc(
        operationId="updateOperator",
        responses=error_responses(404, 422),
        **problem_codes(
            "validation_failed",
            "operator_not_found",
            "invalid_operator",
            "unsupported_currency",
            "invalid_wallet_settings",
        ),
    )
    def patch(self, data: dict[str, Any], operator_id: str) -> OperatorView:
        """Change the name, the currencies, the wallet settings (merged into the current
        ones) or whether the operator is active (an inactive operator's tokens, its players'
        included, get 403 ``operator_inactive``).

        A new ``wallet.secret`` signs from now on; the one it replaces stays valid for 24
        hours (``previous_secret_valid_until``), so the operator's wallet can switch over.
        """
        return write(lambda uow: service.update_operator(uow, operator_id, data))
