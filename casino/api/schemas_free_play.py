"""Request and response schemas of free-play War. Requests reject unknown fields.

The game view is the engine's JSON (``WarGame.view``); these schemas document it and pass it
through. Log entries and the battle on the table are free-form objects (their members depend
on the variant: wars, steals, hands, piles), face-down cards in them being counts only.
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import validate

from casino.api.fields import Pattern, StrictInteger, Uuid
from casino.api.schema_rules import NotBoth
from casino.api.schemas import Choice, RequestSchema, ResponseSchema
from casino.engine.war import DRAW_SEAT, PRESETS, STRATEGIES
from casino.service.free_play import MAX_SIMULATION_GAMES, UNTIL
from casino.store.free_play_records import STATUSES as GAME_STATUSES

VARIANTS = tuple(PRESETS)
SEAT_TYPES = ("human", "computer")
MAX_SEATS = 4
# A simulation's game i has seed "<seed>:i"; the engine takes seeds of up to 128 characters.
SIMULATION_SEED_MAX = 100
_PRINTABLE = Pattern(r"^[\x20-\x7e]*$", error="Must be printable ASCII.")


def _variant(**kwargs: Any) -> ma.fields.String:
    return ma.fields.String(
        validate=validate.OneOf(VARIANTS),
        metadata={"description": "A preset: see GET /free-play/variants", "example": "classic"},
        **kwargs,
    )


def _options() -> ma.fields.Dict:
    return ma.fields.Dict(
        keys=ma.fields.String(validate=validate.Length(min=1, max=40)),
        values=ma.fields.Raw(allow_none=True),
        load_default=dict,
        metadata={
            "description": "Option overrides within the preset's allowed values "
            '(e.g. {"war_down": 1}); an impossible combination is 422 invalid_rules'
        },
    )


def _seat_number(**kwargs: Any) -> StrictInteger:
    return StrictInteger(validate=validate.Range(min=0, max=MAX_SEATS - 1), **kwargs)


def _log_tail() -> ma.fields.Integer:
    return ma.fields.Integer(
        validate=validate.Range(min=0, max=100_000),
        metadata={"description": "Only the last N log entries (default: the whole log)"},
    )


class HumanSeat(ma.fields.Field):
    """A seat number 0-3 (a JSON integer, never a bool or a string of digits) or "draw"."""

    default_error_messages = {
        "invalid": f'Must be a seat number from 0 to {MAX_SEATS - 1} or "{DRAW_SEAT}".'
    }

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if value == DRAW_SEAT or (type(value) is int and 0 <= value < MAX_SEATS):
            return value
        raise self.make_error("invalid")


# ---------------------------------------------------------------- requests


class SeatInputSchema(RequestSchema):
    type = ma.fields.String(required=True, validate=validate.OneOf(SEAT_TYPES))
    strategy = ma.fields.String(
        allow_none=True,
        validate=validate.OneOf(tuple(STRATEGIES)),
        metadata={"description": "Computer seats only (default greedy)"},
    )


class GameCreateSchema(RequestSchema):
    # The engine refuses both with its own code (invalid_rules); the spec says it too.
    BODY_RULES = (NotBoth("seats", "human_seat", enforce=False),)

    variant = _variant(required=True)
    options = _options()
    seed = ma.fields.String(
        validate=[validate.Length(min=1, max=128), _PRINTABLE],
        metadata={
            "description": "1-128 printable ASCII characters; the game is fully determined by "
            "its seed and the moves. Drawn at random when omitted; revealed when the game ends."
        },
    )
    seats = ma.fields.List(
        ma.fields.Nested(SeatInputSchema),
        validate=validate.Length(min=1, max=MAX_SEATS),
        metadata={
            "description": "One per seat of the variant; default: seat 0 human, the others "
            "greedy computers"
        },
    )
    human_seat = HumanSeat(
        metadata={
            "description": "With the default seats: the human's seat (0 to seats-1), or "
            '"draw" to draw it from the game\'s seed (nonce 6, docs/fairness.md). Seats are '
            "not equal in every variant (docs/war-variants.md, seat bias). Not with seats.",
            "oneOf": [
                {"type": "integer", "minimum": 0, "maximum": MAX_SEATS - 1},
                {"type": "string", "enum": [DRAW_SEAT]},
            ],
        }
    )


class GameQuerySchema(RequestSchema):
    seat = ma.fields.Integer(
        validate=validate.Range(min=0, max=MAX_SEATS - 1),
        metadata={
            "description": "Whose view (hand, pending choice); default the game's only human "
            "seat, else a spectator's view"
        },
    )
    log_tail = _log_tail()


class LogQuerySchema(RequestSchema):
    log_tail = _log_tail()


class MoveSchema(RequestSchema):
    action = ma.fields.String(
        required=True,
        validate=validate.Length(min=1, max=32),
        metadata={
            "description": "play | steal (Steal War) | top (Steal War: which won card lies on "
            "top); the pending decision lists the legal moves"
        },
    )
    card = ma.fields.String(
        validate=validate.Length(min=1, max=8),
        metadata={"description": "Card code, e.g. QH (hand of three: play; Steal War: top)"},
    )
    seat = _seat_number(
        metadata={"description": "The seat that moves; needed only with several human seats"}
    )


class AutoplaySchema(RequestSchema):
    until = ma.fields.String(
        load_default="decision",
        validate=validate.OneOf(UNTIL),
        metadata={
            "description": "decision: play on until a human seat must choose (or the end); "
            "end: play to the end, pending human choices made by greedy; battle: one battle"
        },
    )
    seat = _seat_number(metadata={"description": "Whose view to return (as ?seat= on GET)"})


class SimulationCreateSchema(RequestSchema):
    variant = _variant(required=True)
    options = _options()
    games = StrictInteger(required=True, validate=validate.Range(min=1, max=MAX_SIMULATION_GAMES))
    seed = ma.fields.String(
        required=True,
        validate=[validate.Length(min=1, max=SIMULATION_SEED_MAX), _PRINTABLE],
        metadata={"description": 'Game i is played with seed "<seed>:i"'},
    )


# ---------------------------------------------------------------- responses


class VariantOptionSchema(ResponseSchema):
    default = ma.fields.Raw(allow_none=True)
    allowed = ma.fields.List(ma.fields.Raw(allow_none=True))
    description = ma.fields.String()


class VariantSchema(ResponseSchema):
    name = ma.fields.String()
    title = ma.fields.String()
    description = ma.fields.String()
    decisions = ma.fields.Boolean(metadata={"description": "Seats make choices in this game"})
    rules = ma.fields.Dict(metadata={"description": "The preset's full rules"})
    options = ma.fields.Dict(
        keys=ma.fields.String(),
        values=ma.fields.Nested(VariantOptionSchema),
        metadata={"description": "Options a player may change; the others are fixed"},
    )


class VariantListSchema(ResponseSchema):
    items = ma.fields.List(ma.fields.Nested(VariantSchema))


class SeatViewSchema(ResponseSchema):
    # Each variant shows only the counters its rules have (capture piles, hands, wars won...).
    OPTIONAL = frozenset({"pile", "pile_top", "won", "hand_size", "hand", "wars_won", "rounds_won"})

    seat = ma.fields.Integer()
    type = ma.fields.String()
    strategy = ma.fields.String(allow_none=True)
    cards = ma.fields.Integer(metadata={"description": "Cards still in play for this seat"})
    stock = ma.fields.Integer()
    pile = ma.fields.Integer(metadata={"description": "Capture pile size (Steal War)"})
    pile_top = ma.fields.String(allow_none=True)
    won = ma.fields.Integer(metadata={"description": "Cards won and set aside (Tod und Leben)"})
    hand_size = ma.fields.Integer()
    hand = ma.fields.List(
        ma.fields.String(),
        allow_none=True,
        metadata={"description": "Hand of three: the viewer's own hand only (null otherwise)"},
    )
    wars_won = ma.fields.Integer()
    rounds_won = ma.fields.Integer()


class PendingSchema(ResponseSchema):
    # Another seat's pending choice shows only its seat and kind.
    OPTIONAL = frozenset({"legal", "context"})

    seat = ma.fields.Integer()
    kind = ma.fields.String(metadata={"description": "hand-card, steal-or-play or pile-top"})
    legal = ma.fields.List(
        ma.fields.Dict(),
        metadata={"description": "The legal moves (the viewer's own decision only)"},
    )
    context = ma.fields.Dict(metadata={"description": "What the deciding seat may see"})


class ResultSchema(ResponseSchema):
    outcome = ma.fields.String(metadata={"description": "win or draw"})
    winners = ma.fields.List(ma.fields.Integer())
    losers = ma.fields.List(ma.fields.Integer())
    reason = ma.fields.String()
    battles = ma.fields.Integer()


class GameSchema(ResponseSchema):
    OPTIONAL = frozenset({"token"})

    id = Uuid()
    token = ma.fields.String(
        metadata={
            "description": "The game token, in the creation's answer only (shown once): "
            "send it as Authorization: Bearer <token> to view or play this game"
        }
    )
    version = ma.fields.Integer(metadata={"description": "Changes with every stored change"})
    created_at = ma.fields.DateTime()
    updated_at = ma.fields.DateTime()
    variant = ma.fields.String()
    options = ma.fields.Dict()
    rules = ma.fields.Dict()
    seed = ma.fields.String(
        allow_none=True, metadata={"description": "Null until the game is over"}
    )
    seed_hash = ma.fields.String(metadata={"description": "SHA-256 commitment to the seed"})
    viewer = ma.fields.Integer(
        allow_none=True, metadata={"description": "The seat this view is for; null: spectator"}
    )
    status = Choice(GAME_STATUSES)
    battles = ma.fields.Integer()
    wars = ma.fields.Integer()
    round = ma.fields.Integer()
    seats = ma.fields.List(ma.fields.Nested(SeatViewSchema))
    pending = ma.fields.List(
        ma.fields.Nested(PendingSchema),
        metadata={"description": "Choices awaited from human seats"},
    )
    table = ma.fields.Dict(
        allow_none=True, metadata={"description": "The battle in progress, if paused in one"}
    )
    log = ma.fields.List(
        ma.fields.Dict(),
        metadata={"description": "Every battle; face-down cards as counts until the end"},
    )
    log_size = ma.fields.Integer()
    result = ma.fields.Nested(ResultSchema, allow_none=True)


class BattleStatsSchema(ResponseSchema):
    mean = ma.fields.Float()
    median = ma.fields.Float()
    p95 = ma.fields.Integer()
    max = ma.fields.Integer()


class SimulationLimitsSchema(ResponseSchema):
    max_battles = ma.fields.Integer()
    max_seconds = ma.fields.Float()


class LengthBinSchema(ResponseSchema):
    low = ma.fields.Integer(metadata={"description": "Fewest battles in the bin"})
    high = ma.fields.Integer(metadata={"description": "Most battles in the bin"})
    games = ma.fields.Integer()


class SimulationSummarySchema(ResponseSchema):
    """A simulation's summary; a finished job's ``result`` (which has no id of its own)."""

    variant = ma.fields.String()
    options = ma.fields.Dict()
    rules = ma.fields.Dict()
    seed = ma.fields.String()
    strategies = ma.fields.List(ma.fields.String())
    games_requested = ma.fields.Integer()
    games = ma.fields.Integer(metadata={"description": "Games played and summarised"})
    complete = ma.fields.Boolean()
    stopped_by = ma.fields.String(
        allow_none=True,
        metadata={"description": "battle_budget or time_limit when stopped early, else null"},
    )
    limits = ma.fields.Nested(SimulationLimitsSchema)
    battles = ma.fields.Nested(BattleStatsSchema)
    wars_per_game = ma.fields.Float()
    wins = ma.fields.List(ma.fields.Integer(), metadata={"description": "Games won per seat"})
    draws = ma.fields.Integer()
    cycles = ma.fields.Integer()
    unfinished = ma.fields.Integer(metadata={"description": "Cycles plus battle-cap stops"})
    endings = ma.fields.Dict(keys=ma.fields.String(), values=ma.fields.Integer())
    battle_cap = ma.fields.Integer()
    length_histogram = ma.fields.List(
        ma.fields.Nested(LengthBinSchema),
        metadata={
            "description": "Games by length: bins of one width from the shortest game to the "
            "longest, empty bins included"
        },
    )


class SimulationSchema(SimulationSummarySchema):
    id = Uuid(metadata={"description": "The simulation job (GET /free-play/simulations/{id})"})


SIMULATION_STATUSES = ("running", "done", "failed")


class SimulationJobSchema(ResponseSchema):
    """A simulation too long to wait for: poll it until its status is done (or failed)."""

    id = Uuid()
    status = Choice(
        SIMULATION_STATUSES,
        metadata={
            "description": "running | done | failed (failed: its worker stopped, or the "
            "simulation could not run; start it again)"
        },
    )
    created_at = ma.fields.DateTime()
    finished_at = ma.fields.DateTime(allow_none=True)
    variant = ma.fields.String()
    options = ma.fields.Dict()
    games = ma.fields.Integer(metadata={"description": "Games requested"})
    seed = ma.fields.String()
    limits = ma.fields.Nested(SimulationLimitsSchema)
    result = ma.fields.Nested(
        SimulationSummarySchema,
        allow_none=True,
        metadata={"description": "Once done: the summary"},
    )
    error = ma.fields.String(allow_none=True)
