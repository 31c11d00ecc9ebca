"""Round schemas: the bet, the decision, and a round's recall (every hand, every war).

A bet is one hand (``ante``, ``tie_bet``: the body since the first version) or several
(``hands: [{ante, tie_bet}, ...]``, up to the table's ``max_hands``); a decision is one hand's
(``action``, optionally ``war_tie_bet``) or several hands' at once (``hands: {"0": "war",
"2": "surrender"}``, optionally ``war_tie_bets: {"0": 100}``). A recall carries the round in
both forms: the one-hand fields clients of the first version read (``player_card``, ``war``,
``decision``: hand 0's) and ``hands`` / ``wars``, the shape docs/fairness.md section 14 and
the verifier (``casino verify``) read. docs/api-rounds.md gives examples.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import marshmallow as ma
from marshmallow import validate

from casino.api.fields import MAX_AMOUNT, StrictInteger, TableId, Uuid, UUIDString
from casino.api.language import request_language
from casino.api.localized import reality_check_message
from casino.api.schema_rules import AtLeastOne, NotBoth
from casino.api.schemas import (
    Choice,
    ClientSeed,
    Instant,
    PageQuerySchema,
    RealityCheckSchema,
    RequestSchema,
    ResponseSchema,
)
from casino.api.schemas_tables import RulesSchema, rules_body
from casino.engine.casino_war import (
    MAX_HANDS,
    BetOutcome,
    Dealing,
    Decision,
    HandStatus,
    Outcome,
)
from casino.service.views import DECIDED_BY, ROUND_STATUSES, RoundView

DECISIONS = tuple(decision.value for decision in Decision)
HAND_STATUSES = tuple(status.value for status in HandStatus)
HAND_OUTCOMES = tuple(outcome.value for outcome in Outcome)
DEALINGS = tuple(dealing.value for dealing in Dealing)
#: Hand numbers as a decision's keys: "0" to "4".
HAND_KEY = validate.Regexp(rf"^[0-{MAX_HANDS - 1}]$", error="A hand number, 0 to 4.")
_STAKE = validate.Range(min=0, max=MAX_AMOUNT)


def Stake(description: str, **kwargs: Any) -> StrictInteger:
    """0 or a positive amount of minor units (0: not placed; the table decides what it
    takes, so 422 comes with the table's code: ante_out_of_range...)."""
    return StrictInteger(validate=_STAKE, metadata={"description": description}, **kwargs)


# ---------------------------------------------------------------- the bet


class HandBetSchema(RequestSchema):
    ante = Stake(
        "Integer minor units; 0 only for a tie-only hand (table rule tie_only)", required=True
    )
    tie_bet = Stake("0 (no tie bet) or integer minor units", load_default=0)


class BetSchema(RequestSchema):
    """Either ``ante`` (and ``tie_bet``): one hand, or ``hands``: one to max_hands hands."""

    table_id = TableId(required=True)
    ante = Stake("One hand's ante (or give hands); 0 only for a tie-only hand")
    tie_bet = Stake("One hand's tie bet: 0 (none) or integer minor units up to 10^12")
    hands = ma.fields.List(
        ma.fields.Nested(HandBetSchema),
        validate=validate.Length(min=1, max=MAX_HANDS),
        metadata={
            "description": "The hands of the round, dealt in this order after the dealer's "
            "card (tables with max_hands > 1); instead of ante/tie_bet"
        },
    )
    client_seed = ClientSeed(
        metadata={
            "description": "Client entropy for the active pair, accepted only on its first bet "
            "while the player has not chosen its client seed (client_seed_chosen false); it "
            "becomes the pair's client seed. Otherwise 409 client_seed_fixed"
        }
    )

    BODY_RULES = (
        AtLeastOne(("ante", "hands")),
        NotBoth("ante", "hands"),
        NotBoth("tie_bet", "hands"),
    )

    @ma.post_load
    def _hands(self, data: dict[str, Any], **_: object) -> dict[str, Any]:
        """Both forms as ``hands``; ``ante``/``tie_bet`` stay for a one-hand body."""
        if "hands" not in data:
            data.setdefault("tie_bet", 0)
            data["hands"] = [{"ante": data["ante"], "tie_bet": data["tie_bet"]}]
        return data


# ---------------------------------------------------------------- the decision


class DecisionSchema(RequestSchema):
    """Either ``action`` (a round of one hand awaiting its decision; optionally
    ``war_tie_bet`` with war) or ``hands`` (any of the hands awaiting a decision; optionally
    ``war_tie_bets`` for hands going to war)."""

    action = Choice(DECISIONS)
    war_tie_bet = Stake("With war, at a table with the war tie bet: paid if the war ties")
    hands = ma.fields.Dict(
        keys=ma.fields.String(validate=HAND_KEY),
        values=Choice(DECISIONS),
        validate=validate.Length(min=1),
        metadata={
            "description": 'Hand number -> decision, e.g. {"0": "war", "2": "surrender"}',
            "minProperties": 1,
            # The keys are hand numbers: said as properties (OpenAPI 3.0 has no propertyNames).
            "properties": {
                str(n): {"type": "string", "enum": list(DECISIONS)} for n in range(MAX_HANDS)
            },
        },
    )
    war_tie_bets = ma.fields.Dict(
        keys=ma.fields.String(validate=HAND_KEY),
        values=StrictInteger(validate=_STAKE),
        metadata={
            "description": 'Hand number -> war tie bet, for hands going to war: {"0": 100}; '
            "each key must be one of hands' keys",
            "properties": {
                str(n): {"type": "integer", "minimum": 0, "maximum": MAX_AMOUNT}
                for n in range(MAX_HANDS)
            },
        },
    )

    BODY_RULES = (
        AtLeastOne(("action", "hands")),
        NotBoth("action", "hands"),
        NotBoth("war_tie_bet", "hands"),
        NotBoth("action", "war_tie_bets"),
    )

    @ma.validates_schema
    def _war_tie_bets_with_hands(self, data: dict[str, Any], **_: object) -> None:
        # Which keys of one map another's are: OpenAPI cannot say it (the description does).
        extra = set(data.get("war_tie_bets", {})) - set(data.get("hands", {}))
        if extra:
            raise ma.ValidationError("A war tie bet goes with a hand's decision.", "war_tie_bets")

    @ma.post_load
    def _by_hand(self, data: dict[str, Any], **_: object) -> dict[str, Any]:
        """``decisions``: {hand number: (action, war tie bet)}; a one-hand body is hand 0's
        (``one_hand`` true: the round must have a single hand awaiting)."""
        if "hands" in data:
            bets = data.get("war_tie_bets", {})
            data["decisions"] = {
                int(key): (action, bets.get(key, 0)) for key, action in data["hands"].items()
            }
            data["one_hand"] = False
        else:
            data["decisions"] = {0: (data["action"], data.get("war_tie_bet", 0))}
            data["one_hand"] = True
        return data


class RoundsQuerySchema(PageQuerySchema):
    status = Choice(ROUND_STATUSES)
    player_id = UUIDString(metadata={"description": "Operators only: one player's rounds"})
    table_id = TableId()
    since = Instant("Only rounds created at or after this time")
    until = Instant("Only rounds created before this time")


# ---------------------------------------------------------------- the recall

#: The bets of a round (and of each hand) in the order recall lists them.
MONEY_KEYS = ("ante", "tie_bet", "raise", "war_tie_bet")


def _amounts(name: str) -> type[ma.Schema]:
    return ResponseSchema.from_dict({key: ma.fields.Integer() for key in MONEY_KEYS}, name=name)


BetsSchema = _amounts("Bets")
PayoutsSchema = _amounts("Payouts")
BET_OUTCOMES = tuple(label.value for label in BetOutcome)
_OUTCOME_HELP = " | ".join(BET_OUTCOMES)
OutcomesSchema = ResponseSchema.from_dict(
    {name: Choice(BET_OUTCOMES, metadata={"description": _OUTCOME_HELP}) for name in MONEY_KEYS},
    name="BetOutcomes",
)


class WarSchema(ResponseSchema):
    """Hand 0's first war, in the one-hand form."""

    burns = ma.fields.List(ma.fields.String())
    player_card = ma.fields.String()
    dealer_card = ma.fields.String()


class RoundDecisionSchema(ResponseSchema):
    action = Choice(DECISIONS)
    decided_by = Choice(
        DECIDED_BY,
        metadata={
            "description": "player; system: decided for the player (resolve-stale); timeout: "
            "the table's decision clock ran out (timeout_action)"
        },
    )


class WarCardSchema(ResponseSchema):
    hand = ma.fields.Integer()
    card = ma.fields.String()


class WarDealSchema(ResponseSchema):
    """One war: three burns, a card to each hand at war in hand order, one dealer card."""

    burns = ma.fields.List(ma.fields.String())
    cards = ma.fields.List(ma.fields.Nested(WarCardSchema))
    dealer_card = ma.fields.String()


class HandSchema(ResponseSchema):
    hand = ma.fields.Integer(metadata={"description": "0 to max_hands - 1, in dealing order"})
    card = ma.fields.String(metadata={"description": "The hand's first card"})
    status = Choice(
        HAND_STATUSES,
        metadata={"description": "at_war: chose war, waiting for the other tied hands"},
    )
    decision = ma.fields.Nested(RoundDecisionSchema, allow_none=True)
    ties = ma.fields.Integer(
        metadata={"description": "Consecutive ties reached (the first deal's counts as 1)"}
    )
    outcome = Choice(HAND_OUTCOMES, allow_none=True, metadata={"description": "Null until settled"})
    bets = ma.fields.Nested(BetsSchema)
    payouts = ma.fields.Nested(PayoutsSchema)
    outcomes = ma.fields.Nested(OutcomesSchema)
    net = ma.fields.Integer()


class FairnessSchema(ResponseSchema):
    server_seed_hash = ma.fields.String()
    client_seed = ma.fields.String()
    nonce = ma.fields.Integer()
    server_seed = ma.fields.String(
        allow_none=True, metadata={"description": "Null until revealed by a seed rotation"}
    )


class RoundSchema(ResponseSchema):
    id = Uuid()
    player_id = Uuid()
    table_id = ma.fields.String()
    status = Choice(ROUND_STATUSES)
    player_card = ma.fields.String(metadata={"description": "Hand 0's first card"})
    dealer_card = ma.fields.String()
    war = ma.fields.Nested(WarSchema, allow_none=True)
    decision = ma.fields.Nested(RoundDecisionSchema, allow_none=True)  # hand 0's
    bets = ma.fields.Nested(BetsSchema, metadata={"description": "Every hand's together"})
    payouts = ma.fields.Nested(
        PayoutsSchema,
        metadata={"description": "Amount returned to the wallet per bet, stake included"},
    )
    outcomes = ma.fields.Nested(
        OutcomesSchema,
        metadata={
            "description": "Per bet, for a round of one hand: win (more than the stake back), "
            "push (the stake back), lose, surrender (half the ante back), pending (placed, not "
            "settled yet), none (not placed). A war the player wins: ante push, raise win. "
            "Each hand has its own in hands[]."
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
    dealing = Choice(
        DEALINGS,
        metadata={
            "description": "classic: the player's card then the dealer's (one-hand tables); "
            "table: the dealer's card then one per hand (docs/fairness.md section 13)"
        },
    )
    hands = ma.fields.List(ma.fields.Nested(HandSchema))
    wars = ma.fields.List(
        ma.fields.Nested(WarDealSchema), metadata={"description": "Every war dealt, in order"}
    )
    awaiting_hands = ma.fields.List(
        ma.fields.Integer(), metadata={"description": "The hands a decision is asked for"}
    )
    decision_deadline = ma.fields.DateTime(
        allow_none=True,
        metadata={
            "description": "While hands await a decision at a table with a decision clock: "
            "when the clock decides them (timeout_action, decided_by timeout); else null"
        },
    )
    reality_check = ma.fields.Nested(
        RealityCheckSchema,
        allow_none=True,
        metadata={
            "description": "A reality check due now, in the player's bet, decision and "
            "recall answers until it acknowledges it; null in an operator's recall and in lists"
        },
    )

    @ma.pre_dump
    def _api_rules(self, view: RoundView, **_: object) -> Any:
        return {**vars(view), "rules": rules_body(view.rules)}


class RoundPageSchema(ResponseSchema):
    items = ma.fields.List(ma.fields.Nested(RoundSchema))
    next_cursor = ma.fields.String(allow_none=True)


# ---------------------------------------------------------------- fast round bodies


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def _money(amounts: Mapping[str, int]) -> dict[str, int]:
    return {key: int(amounts.get(key, 0)) for key in MONEY_KEYS}


def _decision(decision: Mapping[str, Any] | None) -> dict[str, str] | None:
    if decision is None:
        return None
    return {"action": str(decision["action"]), "decided_by": str(decision["decided_by"])}


def _hand(hand: Mapping[str, Any]) -> dict[str, Any]:
    outcome = hand["outcome"]
    return {
        "hand": int(hand["hand"]),
        "card": str(hand["card"]),
        "status": str(hand["status"]),
        "decision": _decision(hand["decision"]),
        "ties": int(hand["ties"]),
        "outcome": None if outcome is None else str(outcome),
        "bets": _money(hand["bets"]),
        "payouts": _money(hand["payouts"]),
        "outcomes": {key: str(hand["outcomes"][key]) for key in MONEY_KEYS},
        "net": int(hand["net"]),
    }


def _war_deal(war: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "burns": [str(card) for card in war["burns"]],
        "cards": [{"hand": int(c["hand"]), "card": str(c["card"])} for c in war["cards"]],
        "dealer_card": str(war["dealer_card"]),
    }


def round_body(view: RoundView) -> dict[str, Any]:
    """``RoundSchema().dump(view)``, written out: the bet and decision responses are built
    hundreds of times a second, and marshmallow's generic walk over nested schemas cost a
    tenth of a bet's CPU. The schema stays the contract (OpenAPI, replays, lists); a test
    holds the two equal, key order included."""
    war = view.war
    fairness = view.fairness
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
        "decision": _decision(view.decision),
        "bets": _money(view.bets),
        "payouts": _money(view.payouts),
        "outcomes": {key: str(view.outcomes[key]) for key in MONEY_KEYS},
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
        "rules": rules_body(view.rules),
        "dealing": str(view.dealing),
        "hands": [_hand(hand) for hand in view.hands],
        "wars": [_war_deal(war) for war in view.wars],
        "awaiting_hands": [int(hand) for hand in view.awaiting_hands],
        "decision_deadline": _iso(view.decision_deadline),
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
