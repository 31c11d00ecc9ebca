"""Request and response schemas of game sessions (the launch flow)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import validate

from casino.api.fields import (
    EXTERNAL_REF_PATTERN,
    Currency,
    Pattern,
    StrictBoolean,
    StrictInteger,
    TableId,
    Text,
    Uuid,
)
from casino.api.schemas import RequestSchema, ResponseSchema
from casino.service.game_sessions import (
    LANGUAGES,
    LAUNCH_CODE_SECONDS,
    MAX_TTL_SECONDS,
    MIN_TTL_SECONDS,
)
from casino.service.launch import MAX_OPERATOR_SESSION


class GameSessionCreateSchema(RequestSchema):
    """``table_id``: the table the client opens (it goes into ``launch_url``, and the
    session bets there only); ``language``: the client's (``lang`` in ``launch_url``)."""

    table_id = TableId(load_default=None, allow_none=True)
    ttl_seconds = StrictInteger(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=MIN_TTL_SECONDS, max=MAX_TTL_SECONDS),
        metadata={
            "description": f"Lifetime, {MIN_TTL_SECONDS} to {MAX_TTL_SECONDS} seconds "
            "(default 8 hours)"
        },
    )
    language = ma.fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.OneOf(LANGUAGES),
        metadata={
            "description": "The game client's language (default: the browser's)",
            "example": "en",
        },
    )


class GameSessionSchema(ResponseSchema):
    id = Uuid()
    player_id = Uuid()
    table_id = ma.fields.String(allow_none=True)
    language = ma.fields.String(allow_none=True, validate=validate.OneOf(LANGUAGES))
    expires_at = ma.fields.DateTime()


class GameSessionListItemSchema(GameSessionSchema):
    created_at = ma.fields.DateTime()
    exchanged_at = ma.fields.DateTime(
        allow_none=True,
        metadata={"description": "When the client exchanged the launch code (null: not yet)"},
    )


class GameSessionListSchema(ResponseSchema):
    items = ma.fields.List(
        ma.fields.Nested(GameSessionListItemSchema),
        metadata={"description": "The player's live sessions (neither revoked nor expired)"},
    )


class SessionsRevokedSchema(ResponseSchema):
    revoked = ma.fields.Integer(metadata={"description": "How many live sessions were ended"})


class GameSessionCreatedSchema(GameSessionSchema):
    launch_url = ma.fields.String(
        metadata={
            "description": "Path of the game client with the one-time launch code in the "
            "fragment (/play/?table=<table_id>&lang=<language>#code=<code>; a shared "
            "table's client is /play/live/): prefix it with this service's origin and open "
            "it at once"
        }
    )
    launch_code = ma.fields.String(
        metadata={
            "description": "The one-time code in launch_url (POST /sessions/exchange), for "
            f"a client of your own. Shown once; valid {LAUNCH_CODE_SECONDS} s; only its "
            "hash is kept."
        }
    )
    launch_code_expires_at = ma.fields.DateTime()


class LaunchCodeSchema(RequestSchema):
    code = ma.fields.String(
        required=True,
        validate=Pattern(r"^[\x21-\x7e]{1,512}$", error="Not a launch code."),
        metadata={"description": "The code from the launch URL's fragment (#code=...)"},
    )


class ExchangedSessionSchema(GameSessionSchema):
    session_id = Uuid(metadata={"description": "The game session (same as id)"})
    token = ma.fields.String(
        metadata={
            "description": "The session's bearer token: the player's routes only, until "
            "expires_at. Shown once; only its hash is kept."
        }
    )


class ReissueTokenSchema(RequestSchema):
    revoke_sessions = StrictBoolean(
        load_default=False,
        metadata={"description": "Also end every live game session of the player"},
    )


class OperatorLaunchSchema(RequestSchema):
    """Launch for the operator's own player reference (``POST /sessions``)."""

    # The service refuses another external_ref with its own code (invalid_external_ref);
    # the spec states the same rule as createPlayer's external_ref.
    player = Text(
        200,
        required=True,
        metadata={
            "description": "Your id for the player (its external_ref): made if new",
            "pattern": EXTERNAL_REF_PATTERN,
        },
    )
    currency = Currency(required=True)
    table_id = TableId(required=True)
    operator_session = ma.fields.String(
        validate=[
            validate.Length(min=1, max=MAX_OPERATOR_SESSION),
            Pattern(r"^[^\x00-\x1f\x7f-\x9f]*$", error="Must not contain control characters."),
        ],
        load_default=None,
        allow_none=True,
        metadata={
            "description": "Your own session token for this player: kept with the session "
            "and sent back to a seamless wallet as `session` (docs/integration.md)"
        },
    )
    language = ma.fields.String(
        load_default=None,
        allow_none=True,
        validate=validate.OneOf(LANGUAGES),
        metadata={"description": "The game client's language (default: the browser's)"},
    )
    ttl_seconds = StrictInteger(
        load_default=None,
        allow_none=True,
        validate=validate.Range(min=MIN_TTL_SECONDS, max=MAX_TTL_SECONDS),
        metadata={"description": "Lifetime of the session (default 8 hours)"},
    )


class OperatorLaunchedSchema(GameSessionCreatedSchema):
    external_ref = ma.fields.String(metadata={"description": "Your id for the player"})
    currency = ma.fields.String()
    player_created = ma.fields.Boolean(metadata={"description": "This launch made the player"})
    launch_url = ma.fields.String(
        allow_none=True,
        metadata={
            "description": "As createGameSession's; null in a replay (Idempotent-Replayed): "
            "the code is shown once, launch again with a new key"
        },
    )
    launch_code = ma.fields.String(
        allow_none=True,
        metadata={"description": "The one-time code in launch_url; null in a replay"},
    )
