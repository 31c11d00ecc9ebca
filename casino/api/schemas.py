"""Request and response schemas. Requests reject unknown fields (marshmallow RAISE)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC
from typing import Any, ClassVar

import marshmallow as ma
from marshmallow import validate

from casino.api.fields import (
    Amount,
    Currency,
    ExternalRef,
    Pattern,
    Text,
    Uuid,
)
from casino.api.language import request_language
from casino.api.localized import reality_check_message
from casino.api.schema_rules import BodyRule, check_body_rules
from casino.engine.casino_war import Decision
from casino.service.views import TRANSACTION_KINDS

DECISIONS = tuple(decision.value for decision in Decision)


class RequestSchema(ma.Schema):
    """A request: unknown fields refused, and the rules across fields in ``BODY_RULES``
    (casino.api.schema_rules) enforced here and stated in the spec."""

    BODY_RULES: ClassVar[tuple[BodyRule, ...]] = ()

    class Meta:
        unknown = ma.RAISE

    @ma.validates_schema
    def _body_rules(self, data: dict[str, Any], **_: Any) -> None:
        check_body_rules(self, data)


class ResponseSchema(ma.Schema):
    """A response document: every field is always there, so the spec marks it ``required``
    (generated clients then get plain attributes, not "maybe unset") - except the fields
    named in ``OPTIONAL``, which some documents leave out."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    def on_bind_field(self, field_name: str, field_obj: ma.fields.Field) -> None:
        # Dumping ignores ``required``; only the spec reads it.
        field_obj.required = field_name not in self.OPTIONAL


def Choice(values: tuple[str, ...], **kwargs: Any) -> ma.fields.String:
    """A string from a closed set: an ``enum`` in the spec."""
    return ma.fields.String(validate=validate.OneOf(values), **kwargs)


# ---------------------------------------------------------------- pagination


class PageQuerySchema(RequestSchema):
    # Cursors are unpadded base64url; the pattern keeps the spec honest (a long non-ASCII
    # "cursor" would otherwise pass the spec yet overflow the server's request line).
    cursor = ma.fields.String(
        validate=[validate.Length(min=1, max=512), Pattern(r"^[A-Za-z0-9_-]+$")],
        metadata={"description": "Opaque cursor from a previous page's next_cursor"},
    )
    limit = ma.fields.Integer(
        load_default=50,
        validate=validate.Range(min=1, max=200),
        metadata={"description": "Items per page, 1 to 200"},
    )


# ---------------------------------------------------------------- players


class PlayerCreateSchema(RequestSchema):
    external_ref = ExternalRef(
        200,
        required=True,
        metadata={
            "description": "Your id for the player: no control characters, no white space "
            "at either end (compared exactly, case included)"
        },
    )
    display_name = Text(100, load_default=None, allow_none=True)


class PlayerSchema(ResponseSchema):
    id = Uuid()
    external_ref = ma.fields.String()
    display_name = ma.fields.String(allow_none=True)
    created_at = ma.fields.DateTime()


class PlayerCreatedSchema(PlayerSchema):
    token = ma.fields.String(
        allow_none=True,
        metadata={
            "description": "The player's bearer token. Shown once; only its hash is kept: "
            "null in a replay (Idempotent-Replayed), reissue one with reissue_token."
        },
    )
    reissue_token = ma.fields.String(
        metadata={"description": "Path of the operation that issues the player a new token"}
    )


class PlayerTokenSchema(ResponseSchema):
    id = Uuid(metadata={"description": "The player's id"})
    token = ma.fields.String(
        metadata={"description": "The new bearer token. Shown once; the old one no longer works."}
    )
    sessions_revoked = ma.fields.Integer(
        metadata={"description": "Game sessions ended with it (revoke_sessions), else 0"}
    )


# ---------------------------------------------------------------- wallets and ledger


class MoneyMovementSchema(RequestSchema):
    currency = Currency(required=True)
    amount = Amount(required=True)
    reference = Text(200, required=True, metadata={"description": "Your payment reference"})


class WalletSchema(ResponseSchema):
    currency = ma.fields.String()
    balance = ma.fields.Integer()


class PostingSchema(ResponseSchema):
    account = ma.fields.String(
        metadata={"description": "wallet:<player_id>, house, in_play or cash"}
    )
    amount = ma.fields.Integer(metadata={"description": "Positive = credit to the account"})


class TransactionSchema(ResponseSchema):
    id = ma.fields.Integer()
    kind = Choice(TRANSACTION_KINDS)
    round_id = Uuid(allow_none=True)
    currency = ma.fields.String()
    postings = ma.fields.List(ma.fields.Nested(PostingSchema))
    balance_after = ma.fields.Integer(allow_none=True)
    reference = ma.fields.String(allow_none=True)
    created_at = ma.fields.DateTime()
    hash = ma.fields.String(metadata={"description": "SHA-256 hash chaining the ledger"})


class TransactionPageSchema(ResponseSchema):
    items = ma.fields.List(ma.fields.Nested(TransactionSchema))
    next_cursor = ma.fields.String(allow_none=True)


# ---------------------------------------------------------------- seeds


def ClientSeed(**kwargs: Any) -> ma.fields.String:
    """A client seed: 1 to 64 printable ASCII characters, used byte for byte."""
    return ma.fields.String(
        validate=[
            validate.Length(min=1, max=64),
            Pattern(r"^[ -~]*$", error="Must be printable ASCII."),
        ],
        **kwargs,
    )


class ClientSeedSchema(RequestSchema):
    client_seed = ClientSeed(required=True)


class RotateSchema(RequestSchema):
    """The body of a rotation is optional: without ``client_seed`` the old one carries over."""

    client_seed = ClientSeed(
        metadata={
            "description": "The client seed of the new pair, chosen after seeing its "
            "server_seed_hash (the next_server_seed_hash shown until now). Left out: the old "
            "client seed carries over, not counted as chosen for the new pair"
        }
    )


class SeedsSchema(ResponseSchema):
    server_seed_hash = ma.fields.String(
        metadata={"description": "SHA-256 commitment to the active server seed"}
    )
    client_seed = ma.fields.String()
    next_nonce = ma.fields.Integer()
    next_server_seed_hash = ma.fields.String(
        metadata={
            "description": "SHA-256 commitment to the server seed the next rotation makes "
            "active: fixed now, before you choose the client seed that will go with it"
        }
    )
    client_seed_chosen = ma.fields.Boolean(
        metadata={
            "description": "true when the player chose the active pair's client seed after its "
            "server seed was committed (with the rotation, PUT .../seeds/client or the pair's "
            "first bet); false for the server's default or a seed carried over by a rotation "
            "without one, which the pair's first bet may still replace"
        }
    )


class RevealedSeedSchema(ResponseSchema):
    server_seed = ma.fields.String(metadata={"description": "The retired server seed, hex"})
    server_seed_hash = ma.fields.String()
    client_seed = ma.fields.String()
    client_seeds = ma.fields.List(ma.fields.String())
    first_nonce = ma.fields.Integer()
    last_nonce = ma.fields.Integer(allow_none=True)
    revealed_at = ma.fields.DateTime()


class NoFieldsSchema(RequestSchema):
    """For POSTs that take no input: an empty body or {} only."""


class RotationSchema(ResponseSchema):
    revealed = ma.fields.Nested(RevealedSeedSchema)
    current = ma.fields.Nested(SeedsSchema)


def Instant(description: str) -> ma.fields.AwareDateTime:
    """A moment in a query: ISO 8601, UTC when it gives no offset."""
    return ma.fields.AwareDateTime(default_timezone=UTC, metadata={"description": description})


# ---------------------------------------------------------------- reality checks


class RealityCheckSchema(ResponseSchema):
    due_at = ma.fields.DateTime()
    session_started_at = ma.fields.DateTime()
    minutes_played = ma.fields.Integer()
    interval_minutes = ma.fields.Integer()
    acknowledge = ma.fields.String(metadata={"description": "Path to POST once shown"})
    message = ma.fields.String(
        metadata={
            "description": "The check in words for the player, in the language "
            "Accept-Language asks for (Content-Language says which); times in UTC"
        }
    )

    @ma.pre_dump
    def _with_message(self, check: Mapping[str, Any], **_: Any) -> dict[str, Any]:
        return {**check, "message": reality_check_message(request_language(), check)}


# ---------------------------------------------------------------- health


class HealthSchema(ResponseSchema):
    status = ma.fields.String()
