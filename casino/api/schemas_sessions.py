"""Request and response schemas of game sessions (the launch flow)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import validate

from casino.api.fields import StrictInteger, TableId, Uuid
from casino.api.schemas import RequestSchema, ResponseSchema
from casino.service.game_sessions import MAX_TTL_SECONDS, MIN_TTL_SECONDS


class GameSessionCreateSchema(RequestSchema):
    """``table_id``: the table the client opens (it goes into ``launch_url``)."""

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


class GameSessionSchema(ResponseSchema):
    id = Uuid()
    player_id = Uuid()
    table_id = ma.fields.String(allow_none=True)
    expires_at = ma.fields.DateTime()


class GameSessionCreatedSchema(GameSessionSchema):
    token = ma.fields.String(
        metadata={
            "description": "The session's bearer token: the player's routes only, until "
            "expires_at. Shown once; only its hash is kept."
        }
    )
    launch_url = ma.fields.String(
        metadata={
            "description": "Path of the game client with the token in the fragment "
            "(/play/?table=<table_id>#token=<token>): prefix it with this service's origin"
        }
    )
