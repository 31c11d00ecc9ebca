"""Request and response schemas. Requests reject unknown fields (marshmallow RAISE)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, ClassVar

import marshmallow as ma
from marshmallow import validate

from casino.api.fields import (
    MAX_AMOUNT,
    Amount,
    Currency,
    ExternalRef,
    Pattern,
    StrictBoolean,
    StrictInteger,
    TableId,
    Text,
    Uuid,
    UUIDString,
)
from casino.api.language import request_language
from casino.api.localized import reality_check_message
from casino.api.schema_rules import AtLeastOne, BodyRule, check_body_rules
from casino.engine.cards import MAX_DECKS, MIN_DECKS
from casino.engine.casino_war import ALLOWED_TIE_PAYS, BetOutcome, Decision
from casino.service.views import DECIDED_BY, ROUND_STATUSES, TRANSACTION_KINDS, RoundView

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


# ---------------------------------------------------------------- tables

_RULE_LIMIT = validate.Range(min=0, max=MAX_AMOUNT)


class RulesInputSchema(RequestSchema):
    """Table rules; omitted ones take the engine's defaults (create) or stay (update)."""

    decks = StrictInteger(validate=validate.Range(min=MIN_DECKS, max=MAX_DECKS))
    min_ante = StrictInteger(validate=_RULE_LIMIT, metadata={"minimum": 1})
    max_ante = StrictInteger(validate=_RULE_LIMIT, metadata={"minimum": 1})
    # The engine refuses an unplayable table with its own code (bet_increment_invalid,
    # tie_pays_not_allowed); the spec says what it allows.
    bet_increment = StrictInteger(
        validate=_RULE_LIMIT,
        metadata={"minimum": 2, "multipleOf": 2, "description": "Even, so half an ante is whole"},
    )
    max_tie_bet = StrictInteger(validate=_RULE_LIMIT)
    tie_pays = StrictInteger(
        validate=validate.Range(min=0, max=1000), metadata={"enum": list(ALLOWED_TIE_PAYS)}
    )
    war_tie_bonus = StrictBoolean()
    surrender_allowed = StrictBoolean()
    # The tie rules and the decision clock a shared table needs (docs/shared-tables.md).
    war_ties = Choice(("bonus", "push", "repeat"))
    max_war_ties = StrictInteger(validate=validate.Range(min=1, max=10))
    decision_seconds = StrictInteger(validate=validate.Range(min=5, max=600))


class RulesSchema(ResponseSchema):
    decks = ma.fields.Integer()
    min_ante = ma.fields.Integer()
    max_ante = ma.fields.Integer()
    bet_increment = ma.fields.Integer()
    max_tie_bet = ma.fields.Integer()
    tie_pays = ma.fields.Integer(metadata={"description": "Tie bet pays tie_pays to 1"})
    war_tie_bonus = ma.fields.Boolean(
        metadata={"description": "A tie after going to war pays a bonus equal to the ante"}
    )
    surrender_allowed = ma.fields.Boolean()
    # Later rules appear only where they differ from their defaults.
    OPTIONAL: ClassVar[frozenset[str]] = frozenset(
        {"war_ties", "max_war_ties", "decision_seconds", "timeout_action", "max_hands"}
    )
    war_ties = ma.fields.String()
    max_war_ties = ma.fields.Integer()
    decision_seconds = ma.fields.Integer()
    timeout_action = ma.fields.String()
    max_hands = ma.fields.Integer()


class TableCreateSchema(RequestSchema):
    id = TableId(required=True)
    currency = Currency(required=True)
    rules = ma.fields.Nested(RulesInputSchema, load_default=dict)
    active = StrictBoolean(load_default=True)
    mode = Choice(
        ("private", "shared"),
        load_default="private",
        metadata={
            "description": "private: every bet deals its own round from the player's seeds; "
            "shared: one round on the table's clock for every bettor (docs/shared-tables.md)"
        },
    )
    shared = ma.fields.Nested(
        "SharedClockInputSchema",
        metadata={"description": "The clock of a shared table (mode shared only)"},
    )


class TableUpdateSchema(RequestSchema):
    BODY_RULES = (AtLeastOne(("rules", "active")),)

    rules = ma.fields.Nested(RulesInputSchema)
    active = StrictBoolean()


class RtpValueSchema(ResponseSchema):
    exact = ma.fields.String(metadata={"description": "Exact fraction p/q"})
    value = ma.fields.Float()


class RtpSchema(ResponseSchema):
    war = ma.fields.Nested(RtpValueSchema, metadata={"description": "Always go to war"})
    surrender = ma.fields.Nested(RtpValueSchema, metadata={"description": "Always surrender"})
    tie_bet = ma.fields.Nested(RtpValueSchema)


class TableSchema(ResponseSchema):
    id = ma.fields.String()
    currency = ma.fields.String()
    rules = ma.fields.Nested(RulesSchema)
    rtp = ma.fields.Nested(RtpSchema)
    active = ma.fields.Boolean()
    mode = Choice(("private", "shared"))
    shared = ma.fields.Nested(
        "SharedClockSchema",
        allow_none=True,
        metadata={"description": "A shared table's clock and chain commitment; null: private"},
    )
    created_at = ma.fields.DateTime()
    updated_at = ma.fields.DateTime()


class TablePageSchema(ResponseSchema):
    items = ma.fields.List(ma.fields.Nested(TableSchema))
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


# ---------------------------------------------------------------- rounds


class BetSchema(RequestSchema):
    table_id = TableId(required=True)
    ante = Amount(required=True)
    tie_bet = StrictInteger(
        load_default=0,
        validate=validate.Range(min=0, max=MAX_AMOUNT),
        metadata={"description": "0 (no tie bet) or integer minor units up to 10^12"},
    )
    client_seed = ClientSeed(
        metadata={
            "description": "Client entropy for the active pair, accepted only on its first bet "
            "while the player has not chosen its client seed (client_seed_chosen false); it "
            "becomes the pair's client seed. Otherwise 409 client_seed_fixed"
        }
    )


class DecisionSchema(RequestSchema):
    action = Choice(DECISIONS, required=True)


def Instant(description: str) -> ma.fields.AwareDateTime:
    """A moment in a query: ISO 8601, UTC when it gives no offset."""
    return ma.fields.AwareDateTime(default_timezone=UTC, metadata={"description": description})


class RoundsQuerySchema(PageQuerySchema):
    status = Choice(ROUND_STATUSES)
    player_id = UUIDString(metadata={"description": "Operators only: one player's rounds"})
    table_id = TableId()
    since = Instant("Only rounds created at or after this time")
    until = Instant("Only rounds created before this time")


BetsSchema = ResponseSchema.from_dict(
    {"ante": ma.fields.Integer(), "tie_bet": ma.fields.Integer(), "raise": ma.fields.Integer()},
    name="Bets",
)
PayoutsSchema = ResponseSchema.from_dict(
    {"ante": ma.fields.Integer(), "tie_bet": ma.fields.Integer(), "raise": ma.fields.Integer()},
    name="Payouts",
)
BET_OUTCOMES = tuple(label.value for label in BetOutcome)
_OUTCOME_HELP = " | ".join(BET_OUTCOMES)
OutcomesSchema = ResponseSchema.from_dict(
    {
        name: Choice(BET_OUTCOMES, metadata={"description": _OUTCOME_HELP})
        for name in ("ante", "tie_bet", "raise")
    },
    name="BetOutcomes",
)


class WarSchema(ResponseSchema):
    burns = ma.fields.List(ma.fields.String())
    player_card = ma.fields.String()
    dealer_card = ma.fields.String()


class RoundDecisionSchema(ResponseSchema):
    action = Choice(DECISIONS)
    decided_by = Choice(
        DECIDED_BY, metadata={"description": "system: decided for the player (resolve-stale)"}
    )


class FairnessSchema(ResponseSchema):
    server_seed_hash = ma.fields.String()
    client_seed = ma.fields.String()
    nonce = ma.fields.Integer()
    server_seed = ma.fields.String(
        allow_none=True, metadata={"description": "Null until revealed by a seed rotation"}
    )


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


class RoundSchema(ResponseSchema):
    id = Uuid()
    player_id = Uuid()
    table_id = ma.fields.String()
    status = Choice(ROUND_STATUSES)
    player_card = ma.fields.String()
    dealer_card = ma.fields.String()
    war = ma.fields.Nested(WarSchema, allow_none=True)
    decision = ma.fields.Nested(RoundDecisionSchema, allow_none=True)
    bets = ma.fields.Nested(BetsSchema)
    payouts = ma.fields.Nested(
        PayoutsSchema,
        metadata={"description": "Amount returned to the wallet per bet, stake included"},
    )
    outcomes = ma.fields.Nested(
        OutcomesSchema,
        metadata={
            "description": "Per bet: win (more than the stake back), push (the stake back), "
            "lose, surrender (half the ante back), pending (the ante while the tie awaits "
            "the decision), none (not placed). A war the player wins: ante push, raise win."
        },
    )
    net = ma.fields.Integer(metadata={"description": "The wallet's change from this round"})
    balance_after = ma.fields.Integer()
    currency = ma.fields.String()
    fairness = ma.fields.Nested(FairnessSchema)
    transaction_ids = ma.fields.List(ma.fields.Integer())
    created_at = ma.fields.DateTime()
    settled_at = ma.fields.DateTime(allow_none=True)
    rules = ma.fields.Nested(RulesSchema, metadata={"description": "Rules snapshot"})
    reality_check = ma.fields.Nested(
        RealityCheckSchema,
        allow_none=True,
        metadata={
            "description": "A reality check due now, in the player's bet, decision and "
            "recall answers until it acknowledges it; null in an operator's recall and in lists"
        },
    )


class RoundPageSchema(ResponseSchema):
    items = ma.fields.List(ma.fields.Nested(RoundSchema))
    next_cursor = ma.fields.String(allow_none=True)


# ---------------------------------------------------------------- health


class HealthSchema(ResponseSchema):
    status = ma.fields.String()


# ---------------------------------------------------------------- fast round bodies

_MONEY_KEYS = ("ante", "tie_bet", "raise")
_RULE_FIELDS = tuple(RulesSchema._declared_fields)


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def round_body(view: RoundView) -> dict[str, Any]:
    """``RoundSchema().dump(view)``, written out: the bet and decision responses are built
    hundreds of times a second, and marshmallow's generic walk over nested schemas cost a
    tenth of a bet's CPU. The schema stays the contract (OpenAPI, replays, lists); a test
    holds the two equal, key order included."""
    war = view.war
    decision = view.decision
    fairness = view.fairness
    rules = view.rules
    check = view.reality_check
    return {
        "id": str(view.id),
        "player_id": str(view.player_id),
        "table_id": str(view.table_id),
        "status": str(view.status),
        "player_card": str(view.player_card),
        "dealer_card": str(view.dealer_card),
        "war": None
        if war is None
        else {
            "burns": [str(card) for card in war["burns"]],
            "player_card": str(war["player_card"]),
            "dealer_card": str(war["dealer_card"]),
        },
        "decision": None
        if decision is None
        else {"action": str(decision["action"]), "decided_by": str(decision["decided_by"])},
        "bets": {key: int(view.bets[key]) for key in _MONEY_KEYS},
        "payouts": {key: int(view.payouts[key]) for key in _MONEY_KEYS},
        "outcomes": {key: str(view.outcomes[key]) for key in _MONEY_KEYS},
        "net": int(view.net),
        "balance_after": int(view.balance_after),
        "currency": str(view.currency),
        "fairness": {
            "server_seed_hash": str(fairness["server_seed_hash"]),
            "client_seed": str(fairness["client_seed"]),
            "nonce": int(fairness["nonce"]),
            "server_seed": None
            if fairness["server_seed"] is None
            else str(fairness["server_seed"]),
        },
        "transaction_ids": [int(tx_id) for tx_id in view.transaction_ids],
        "created_at": _iso(view.created_at),
        "settled_at": _iso(view.settled_at),
        "rules": {name: rules[name] for name in _RULE_FIELDS if name in rules},
        "reality_check": None
        if check is None
        else {
            "due_at": _iso(check["due_at"]),
            "session_started_at": _iso(check["session_started_at"]),
            "minutes_played": int(check["minutes_played"]),
            "interval_minutes": int(check["interval_minutes"]),
            "acknowledge": str(check["acknowledge"]),
            "message": reality_check_message(request_language(), check),
        },
    }


from casino.api import schemas_shared as _shared  # noqa: E402, F401  (names the nested schemas above)
