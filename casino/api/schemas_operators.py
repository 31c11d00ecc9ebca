"""Request and response schemas of operators (tenants), which the platform manages."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import validate

from casino.api.fields import (
    TABLE_ID_PATTERN,
    Currency,
    Pattern,
    StrictBoolean,
    StrictInteger,
    Text,
)
from casino.api.schema_rules import AtLeastOne
from casino.api.schemas import Choice, RequestSchema, ResponseSchema
from casino.service.operators import (
    MAX_SECRET_LENGTH,
    MAX_TIMEOUT_MS,
    MAX_URL_LENGTH,
    MIN_SECRET_LENGTH,
    WALLET_FIELDS,
)
from casino.store.operator_records import WALLET_MODES


def OperatorId(**kwargs: Any) -> ma.fields.String:
    return ma.fields.String(
        validate=Pattern(
            TABLE_ID_PATTERN, error="Must be a slug: lowercase letters, digits and '-'."
        ),
        metadata={"example": "acme-casino"},
        **kwargs,
    )


class WalletSettingsInputSchema(RequestSchema):
    mode = Choice(
        WALLET_MODES,
        metadata={
            "description": "transfer: wallets held here (deposits and withdrawals); seamless: "
            "the operator's own wallet, called for every bet and win (docs/integration.md)"
        },
    )
    url = ma.fields.String(
        allow_none=True,
        validate=validate.Length(min=1, max=MAX_URL_LENGTH),
        metadata={"description": "The seamless wallet's base URL (http or https)"},
    )
    secret = ma.fields.String(
        load_only=True,
        validate=validate.Length(min=MIN_SECRET_LENGTH, max=MAX_SECRET_LENGTH),
        metadata={
            "description": "The secret requests to the wallet are signed with. Write-only: "
            "never shown. A new one keeps the old one valid for 24 hours."
        },
    )
    timeout_ms = StrictInteger(
        validate=validate.Range(min=1, max=MAX_TIMEOUT_MS),
        metadata={"description": "How long a wallet call may take (default 3000)"},
    )
    close_losing_round_with_zero_win = StrictBoolean(
        metadata={"description": "Close a lost round with a win of 0 (default true)"}
    )


assert set(WalletSettingsInputSchema._declared_fields) == WALLET_FIELDS


class OperatorCreateSchema(RequestSchema):
    id = OperatorId(required=True)
    name = Text(200, required=True)
    currencies = ma.fields.List(
        Currency(),
        load_default=None,
        allow_none=True,
        validate=validate.Length(min=1, max=64),
        metadata={
            "description": "ISO 4217 codes it may use, some of the deployment's "
            "(omitted or null: all of them)"
        },
    )
    wallet = ma.fields.Nested(WalletSettingsInputSchema, load_default=None, allow_none=True)
    active = StrictBoolean(load_default=True)


class OperatorUpdateSchema(RequestSchema):
    BODY_RULES = (AtLeastOne(("name", "currencies", "wallet", "active")),)

    name = Text(200)
    currencies = ma.fields.List(
        Currency(),
        allow_none=True,
        validate=validate.Length(min=1, max=64),
        metadata={"description": "null: the deployment's currencies, whatever they are"},
    )
    wallet = ma.fields.Nested(WalletSettingsInputSchema)
    active = StrictBoolean(metadata={"description": "false refuses every token of the operator"})


class WalletSettingsSchema(ResponseSchema):
    mode = Choice(WALLET_MODES)
    url = ma.fields.String(allow_none=True)
    timeout_ms = ma.fields.Integer()
    close_losing_round_with_zero_win = ma.fields.Boolean()
    secret_set = ma.fields.Boolean(
        metadata={"description": "Whether a signing secret is set (it is never shown)"}
    )
    previous_secret_valid_until = ma.fields.DateTime(
        allow_none=True,
        metadata={"description": "Until when the secret replaced last is still valid"},
    )


class OperatorSchema(ResponseSchema):
    id = ma.fields.String()
    name = ma.fields.String()
    currencies = ma.fields.List(ma.fields.String())
    currencies_from_deployment = ma.fields.Boolean(
        metadata={"description": "True: its currencies are the deployment's (CASINO_CURRENCIES)"}
    )
    wallet = ma.fields.Nested(WalletSettingsSchema)
    active = ma.fields.Boolean()
    created_at = ma.fields.DateTime()
    updated_at = ma.fields.DateTime()


class OperatorCreatedSchema(OperatorSchema):
    token = ma.fields.String(
        allow_none=True,
        metadata={
            "description": "A new admin token of the operator. Shown once; only its hash is "
            "kept: null in a replay (Idempotent-Replayed)."
        },
    )


class OperatorListSchema(ResponseSchema):
    items = ma.fields.List(ma.fields.Nested(OperatorSchema))
