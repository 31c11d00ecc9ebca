"""Schemas of shared tables (docs/shared-tables.md): the table's clock, the current round,
a bettor's bet and decision, and the events a follower receives."""

from __future__ import annotations

from typing import ClassVar

import marshmallow as ma
from marshmallow import validate

from casino.api.fields import MAX_AMOUNT, Amount, StrictInteger
from casino.api.schemas import DECISIONS, Choice, RequestSchema, ResponseSchema
from casino.engine.shared.events import EventType
from casino.engine.shared.rules import (
    MAX_BETTING_SECONDS,
    MAX_PAUSE_SECONDS,
    MIN_BETTING_SECONDS,
)
from casino.engine.shared.state import Phase

TABLE_MODES = ("private", "shared")
PHASES = tuple(phase.value for phase in Phase)
EVENT_TYPES = tuple(kind.value for kind in EventType)
BET_STATUSES = ("open", "awaiting_decision", "settled", "refunded")


# ---------------------------------------------------------------- the table's clock


class SharedClockInputSchema(RequestSchema):
    """How long a shared table takes bets and pauses between rounds; its decision window is
    the rules' ``decision_seconds`` (default 10)."""

    betting_seconds = StrictInteger(
        load_default=15,
        validate=validate.Range(min=MIN_BETTING_SECONDS, max=MAX_BETTING_SECONDS),
    )
    pause_seconds = StrictInteger(
        load_default=5, validate=validate.Range(min=0, max=MAX_PAUSE_SECONDS)
    )


class SharedClockSchema(ResponseSchema):
    betting_seconds = ma.fields.Integer()
    decision_seconds = ma.fields.Integer()
    pause_seconds = ma.fields.Integer()
    chain_commitment = ma.fields.String(
        metadata={"description": "c_0 of the table's hash chain of shoe seeds, 64 hex digits"}
    )
    public_value = ma.fields.Dict(
        metadata={"description": "{source, reference, value}: mixed into every shoe's order"}
    )


# ---------------------------------------------------------------- the round


class SharedWarSchema(ResponseSchema):
    player_card = ma.fields.String()
    dealer_card = ma.fields.String()


class SharedCardsSchema(ResponseSchema):
    player_card = ma.fields.String(allow_none=True)
    dealer_card = ma.fields.String(allow_none=True)
    wars = ma.fields.List(ma.fields.Nested(SharedWarSchema))
    winner = Choice(("player", "dealer", "tie"), allow_none=True)


class ShoeSchema(ResponseSchema):
    index = ma.fields.Integer(metadata={"description": "The shoe's place in the chain (1, 2 ..)"})
    commitment = ma.fields.String(
        metadata={"description": "SHA-256 of the shoe's seed: the previous link of the chain"}
    )
    burn = ma.fields.Dict(metadata={"description": "{shown: card code, cards: count}"})
    cut = ma.fields.Integer(metadata={"description": "The cut card lies before this position"})
    rounds_dealt = ma.fields.Integer()


class MyBetSchema(ResponseSchema):
    """The caller's stake in the round (a game session's token only)."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset()

    table_id = ma.fields.String()
    shoe = ma.fields.Integer()
    round = ma.fields.Integer()
    status = Choice(BET_STATUSES)
    ante = ma.fields.Integer()
    tie_bet = ma.fields.Integer()
    raise_amount = ma.fields.Integer(data_key="raise")
    war_tie_bet = ma.fields.Integer()
    decision = ma.fields.Dict(
        allow_none=True,
        metadata={"description": "{action: war|surrender, decided_by: player|timeout}"},
    )
    awaiting_decision = ma.fields.Boolean()
    payouts = ma.fields.Dict(
        allow_none=True,
        metadata={"description": "Returned per bet, stake included, once settled"},
    )
    net = ma.fields.Integer(allow_none=True)
    balance_after = ma.fields.Integer(
        allow_none=True,
        metadata={
            "description": "The wallet's balance after this call (null: no wallet, or an "
            "operator's wallet keeps it and no debit told it: read GET /players/{id}/wallets)"
        },
    )
    currency = ma.fields.String()
    transaction_ids = ma.fields.List(ma.fields.Integer())


class RoadEntrySchema(ResponseSchema):
    shoe = ma.fields.Integer()
    round = ma.fields.Integer()
    winner = Choice(("player", "dealer", "tie", "void"))
    player_card = ma.fields.String(allow_none=True)
    dealer_card = ma.fields.String(allow_none=True)
    ties = ma.fields.Integer()


class SharedRoundSchema(ResponseSchema):
    table_id = ma.fields.String()
    currency = ma.fields.String()
    shoe = ma.fields.Nested(ShoeSchema)
    round = ma.fields.Integer(metadata={"description": "The round's number in its shoe"})
    phase = Choice(PHASES)
    opened_at = ma.fields.DateTime()
    closes_at = ma.fields.DateTime(metadata={"description": "End of the betting window"})
    deadline = ma.fields.DateTime(
        allow_none=True, metadata={"description": "End of the decision window (a tie)"}
    )
    next_at = ma.fields.DateTime(
        allow_none=True, metadata={"description": "When the next round opens (settled/voided)"}
    )
    cards = ma.fields.Nested(SharedCardsSchema)
    bettors = ma.fields.Integer()
    at_war = ma.fields.Integer()
    void_reason = ma.fields.String(allow_none=True)
    last_event_id = ma.fields.Integer(
        metadata={"description": "Resume the event stream after this id"}
    )
    server_time = ma.fields.DateTime()
    my_bet = ma.fields.Nested(MyBetSchema, allow_none=True)
    road = ma.fields.List(
        ma.fields.Nested(RoadEntrySchema),
        metadata={"description": "The last 50 finished rounds, newest last"},
    )


# ---------------------------------------------------------------- bets and decisions


class SharedBetInputSchema(RequestSchema):
    ante = StrictInteger(
        load_default=0,
        validate=validate.Range(min=0, max=MAX_AMOUNT),
        metadata={"description": "0 only for a tie bet alone, where the table takes one"},
    )
    tie_bet = StrictInteger(load_default=0, validate=validate.Range(min=0, max=MAX_AMOUNT))


class SharedDecisionInputSchema(RequestSchema):
    action = Choice(DECISIONS, required=True)
    war_tie_bet = StrictInteger(load_default=0, validate=validate.Range(min=0, max=MAX_AMOUNT))


# ---------------------------------------------------------------- events


class SharedEventSchema(ResponseSchema):
    id = ma.fields.Integer(metadata={"description": "1, 2 ... per table: the SSE id"})
    type = Choice(EVENT_TYPES)
    shoe = ma.fields.Integer()
    round = ma.fields.Integer()
    at = ma.fields.String(metadata={"description": "ISO 8601, UTC"})
    data = ma.fields.Dict()


class SharedEventsQuerySchema(RequestSchema):
    after = ma.fields.Integer(
        load_default=0,
        validate=validate.Range(min=0, max=2**62),
        metadata={"description": "The last event id seen (as Last-Event-ID)"},
    )
    limit = ma.fields.Integer(load_default=200, validate=validate.Range(min=1, max=1000))


class SharedEventPageSchema(ResponseSchema):
    events = ma.fields.List(ma.fields.Nested(SharedEventSchema))
    last_event_id = ma.fields.Integer()


__all__ = ["TABLE_MODES", "Amount"]


# ---------------------------------------------------------------- shoes


class ShoeRecordSchema(ResponseSchema):
    """A shoe as published: ``casino verify --shoe`` checks it (docs/fairness.md §17)."""

    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"order", "burnt", "rounds", "bets"})

    shoe = ma.fields.Integer()
    chain = ma.fields.Dict(metadata={"description": "{commitment, length}"})
    public_value = ma.fields.Dict()
    rules = ma.fields.Dict()
    commitment = ma.fields.String()
    decks = ma.fields.Integer()
    burn = ma.fields.Dict()
    cut = ma.fields.Integer()
    seed = ma.fields.String(allow_none=True, metadata={"description": "Null until the shoe ends"})
    order = ma.fields.List(ma.fields.String())
    burnt = ma.fields.List(ma.fields.String())
    rounds = ma.fields.List(ma.fields.Dict())
    bets = ma.fields.List(
        ma.fields.Dict(), metadata={"description": "The calling player's results in the shoe"}
    )
