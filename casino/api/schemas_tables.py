"""Table schemas: the rules a table is created and changed with, and how a table reads.

The API spells two rules differently from the engine's ``TableRules`` (the engine's names are
what rounds store as their rules snapshot): ``war_tie_bet`` is one object ``{enabled, pays,
max}`` (the engine's ``max_war_tie_bet``, 0 when off, and ``war_tie_pays``), and ``war_ties``
is always there (the engine leaves it out of its dict form unless it is ``repeat``).
docs/api-rounds.md gives the bodies with examples.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import marshmallow as ma
from marshmallow import validate

from casino.api.fields import MAX_AMOUNT, Currency, StrictBoolean, StrictInteger, TableId
from casino.api.schema_rules import AtLeastOne, SwitchedOn
from casino.api.schemas import Choice, RequestSchema, ResponseSchema
from casino.engine.cards import MAX_DECKS, MIN_DECKS
from casino.engine.casino_war import (
    ALLOWED_TIE_PAYS,
    MAX_DECISION_SECONDS,
    MAX_HANDS,
    MAX_LADDER_PAYS,
    MAX_WAR_TIES,
    MIN_DECISION_SECONDS,
    MIN_WAR_TIES,
    Decision,
    TableRules,
    WarTies,
)

_RULE_LIMIT = validate.Range(min=0, max=MAX_AMOUNT)
WAR_TIES = tuple(rule.value for rule in WarTies)
#: The clock can only surrender for the player: no autoplay for money.
TIMEOUT_ACTIONS = (Decision.SURRENDER.value,)


class WarTieBetInputSchema(RequestSchema):
    """The war tie bet: a second tie bet, placed with the decision to go to war, paid if the
    (first) war's cards tie. Enabled, it needs ``max``; disabled, it takes no ``max`` and
    ``pays`` stays 10."""

    enabled = StrictBoolean(required=True)
    pays = StrictInteger(
        validate=validate.OneOf(ALLOWED_TIE_PAYS),
        metadata={"description": "Pays k to 1; default 10"},
    )
    max = StrictInteger(
        validate=validate.Range(min=1, max=MAX_AMOUNT),
        metadata={"description": "The largest war tie bet; required when enabled"},
    )

    BODY_RULES = (
        SwitchedOn("enabled", needs=("max",), fixed={"pays": ALLOWED_TIE_PAYS[0]}, in_spec=False),
    )


class RulesInputSchema(RequestSchema):
    """Table rules; omitted ones take the engine's defaults (create) or stay (update).
    Loaded into the engine's names (``TableRules``)."""

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
    war_tie_bonus = StrictBoolean(
        metadata={"description": "Same as war_ties bonus (true) or push (false)"}
    )
    surrender_allowed = StrictBoolean()
    max_hands = StrictInteger(
        validate=validate.Range(min=1, max=MAX_HANDS),
        metadata={"description": f"Hands one round may play, 1 to {MAX_HANDS}; default 1"},
    )
    war_ties = Choice(
        WAR_TIES,
        metadata={
            "description": "What a tied war does: push (paid as a won war), bonus (the same "
            "plus a bonus equal to the ante), repeat (fought again up to max_war_ties)"
        },
    )
    max_war_ties = StrictInteger(
        validate=validate.Range(min=MIN_WAR_TIES, max=MAX_WAR_TIES),
        metadata={
            "description": "With repeat: the most consecutive ties, the first deal's counting "
            "as the first (default 4); a war tying at the cap is paid as a won war"
        },
    )
    tie_ladder = ma.fields.List(
        StrictInteger(validate=validate.Range(min=1, max=MAX_LADDER_PAYS)),
        allow_none=True,
        metadata={
            "description": "With repeat: the tie bet pays tie_ladder[n-1] to 1 for n "
            "consecutive ties (max_war_ties steps, the first equal to tie_pays); null: no ladder"
        },
    )
    war_tie_bet = ma.fields.Nested(WarTieBetInputSchema)
    tie_only = StrictBoolean(metadata={"description": "A hand may be a tie bet alone (ante 0)"})
    decision_seconds = StrictInteger(
        allow_none=True,
        validate=validate.Range(min=MIN_DECISION_SECONDS, max=MAX_DECISION_SECONDS),
        metadata={
            "description": "The decision clock: seconds a tied hand waits for the player, "
            "then timeout_action; null (default): no clock"
        },
    )
    timeout_action = Choice(TIMEOUT_ACTIONS)

    @ma.post_load
    def _engine_names(self, data: dict[str, Any], **_: object) -> dict[str, Any]:
        return engine_rules(data)


def engine_rules(data: Mapping[str, Any]) -> dict[str, Any]:
    """API rule names -> ``TableRules`` names (``war_tie_bet``; ``war_ties`` also sets
    ``war_tie_bonus`` unless the body gives it)."""
    rules = dict(data)
    war_tie_bet = rules.pop("war_tie_bet", None)
    if war_tie_bet is not None:
        enabled = war_tie_bet["enabled"]
        rules["max_war_tie_bet"] = war_tie_bet["max"] if enabled else 0
        rules["war_tie_pays"] = war_tie_bet.get("pays", ALLOWED_TIE_PAYS[0])
    war_ties = rules.get("war_ties")
    if war_ties is not None and "war_tie_bonus" not in rules:
        rules["war_tie_bonus"] = war_ties == WarTies.BONUS.value
    return rules


class WarTieBetSchema(ResponseSchema):
    enabled = ma.fields.Boolean()
    pays = ma.fields.Integer(metadata={"description": "Pays k to 1"})
    max = ma.fields.Integer(metadata={"description": "0 when not enabled"})


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
    max_hands = ma.fields.Integer()
    war_ties = Choice(WAR_TIES)
    max_war_ties = ma.fields.Integer(metadata={"description": "Meaningful with repeat"})
    tie_ladder = ma.fields.List(ma.fields.Integer(), allow_none=True)
    war_tie_bet = ma.fields.Nested(WarTieBetSchema)
    tie_only = ma.fields.Boolean()
    decision_seconds = ma.fields.Integer(allow_none=True)
    timeout_action = Choice(TIMEOUT_ACTIONS)


def rules_body(snapshot: Mapping[str, Any]) -> dict[str, Any]:
    """Every rule, in the API's names, from the engine's dict form (a table's rules or a
    round's snapshot: the rules added since read as their defaults in an older one)."""
    key = tuple(
        (name, tuple(value) if isinstance(value, list) else value)
        for name, value in snapshot.items()
    )
    return dict(_rules_body(key))


@lru_cache(maxsize=1024)
def _rules_body(key: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    rules = TableRules.from_dict(dict(key))
    return {
        "decks": rules.decks,
        "min_ante": rules.min_ante,
        "max_ante": rules.max_ante,
        "bet_increment": rules.bet_increment,
        "max_tie_bet": rules.max_tie_bet,
        "tie_pays": rules.tie_pays,
        "war_tie_bonus": rules.war_tie_bonus,
        "surrender_allowed": rules.surrender_allowed,
        "max_hands": rules.max_hands,
        "war_ties": rules.war_tie_rule.value,
        "max_war_ties": rules.max_war_ties,
        "tie_ladder": None if rules.tie_ladder is None else list(rules.tie_ladder),
        "war_tie_bet": {
            "enabled": rules.war_tie_bet_offered,
            "pays": rules.war_tie_pays,
            "max": rules.max_war_tie_bet,
        },
        "tie_only": rules.tie_only,
        "decision_seconds": rules.decision_seconds,
        "timeout_action": rules.timeout_action.value,
    }


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


class TableBetExactSchema(ResponseSchema):
    rtp = ma.fields.String()
    house_edge = ma.fields.String()
    rtp_per_total = ma.fields.String()
    house_edge_per_total = ma.fields.String()
    expected_stake = ma.fields.String()
    variance = ma.fields.String()


class TableBetFiguresSchema(ResponseSchema):
    """One bet's exact figures (casino.engine.table_odds.BetFigures)."""

    description = ma.fields.String()
    rtp = ma.fields.Float(metadata={"description": "Returned per unit of the initial bet"})
    house_edge = ma.fields.Float(metadata={"description": "Per unit of the initial bet"})
    rtp_per_total = ma.fields.Float(
        metadata={"description": "Returned per unit of the total wagered (raise included)"}
    )
    house_edge_per_total = ma.fields.Float(
        metadata={"description": "Per unit of the total wagered (element of risk)"}
    )
    expected_stake = ma.fields.Float(
        metadata={"description": "Wagered per unit of the initial bet (1 + P(war) for the ante)"}
    )
    variance = ma.fields.Float()
    std_dev = ma.fields.Float()
    exact = ma.fields.Nested(TableBetExactSchema, metadata={"description": "Fractions p/q"})


class TableRoundExactSchema(ResponseSchema):
    mean = ma.fields.String()
    variance = ma.fields.String()
    hand_variance = ma.fields.String()
    covariance = ma.fields.String()


class TableRoundFiguresSchema(ResponseSchema):
    """A round of ``hands`` hands (max_hands), ante 1 each, the best decision: its net's mean
    and variance (the hands share the dealer's cards: covariance)."""

    hands = ma.fields.Integer()
    mean = ma.fields.Float()
    variance = ma.fields.Float()
    hand_variance = ma.fields.Float()
    covariance = ma.fields.Float()
    std_dev = ma.fields.Float()
    exact = ma.fields.Nested(TableRoundExactSchema)


class RtpSchema(ResponseSchema):
    """The exact theoretical RTP of the table's bets, per initial bet (``war``,
    ``surrender``, ``tie_bet`` as always), every bet's figures in both conventions, and a
    round of max_hands hands (``round``: null where wars repeat more than 4 times in a row,
    too long to compute in a request; ``casino odds --hands N`` gives it)."""

    OPTIONAL = frozenset({"tie_bet_alone", "war_tie_bet"})

    war = ma.fields.Nested(RtpValueSchema, metadata={"description": "Always go to war"})
    surrender = ma.fields.Nested(RtpValueSchema, metadata={"description": "Always surrender"})
    tie_bet = ma.fields.Nested(RtpValueSchema)
    tie_bet_alone = ma.fields.Nested(
        RtpValueSchema, metadata={"description": "With a ladder: a tie bet stopping at one tie"}
    )
    war_tie_bet = ma.fields.Nested(
        RtpValueSchema, metadata={"description": "Where offered: per unit placed"}
    )
    bets = ma.fields.Dict(
        keys=ma.fields.String(),
        values=ma.fields.Nested(TableBetFiguresSchema),
        metadata={
            "description": "ante_war, ante_surrender, ante_best, tie_bet, and tie_bet_alone / "
            "war_tie_bet where offered"
        },
    )
    # null where wars repeat more than 4 times in a row (too long to compute in a request:
    # ``casino odds --hands N`` gives it)
    round = ma.fields.Nested(TableRoundFiguresSchema, allow_none=True)


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

    @ma.pre_dump
    def _api_rules(self, view: Any, **_: object) -> Any:
        return {**vars(view), "rules": rules_body(view.rules)}


class TablePageSchema(ResponseSchema):
    items = ma.fields.List(ma.fields.Nested(TableSchema))
    next_cursor = ma.fields.String(allow_none=True)


from casino.api import schemas_shared as _shared  # noqa: E402, F401  (names the nested schemas above)
