"""Schemas of player protection: limits and their history, exclusions, account status,
session and reality checks, statements, currencies, player lookup."""

from __future__ import annotations

from dataclasses import asdict
from datetime import UTC
from typing import Any

import marshmallow as ma
from marshmallow import validate

from casino.api.fields import MAX_AMOUNT, Currency, StrictInteger, Text, Uuid
from casino.api.language import request_language
from casino.api.localized import statement_summary, statement_title
from casino.api.schema_rules import NeededBy, RequiredBy
from casino.api.schemas import (
    Choice,
    PlayerSchema,
    RealityCheckSchema,
    RequestSchema,
    ResponseSchema,
)
from casino.service.accounts import ACCOUNT_ACTIONS, COOL_OFF_DAYS, SELF_EXCLUSION_MONTHS
from casino.service.limits import MAX_MINUTES
from casino.service.protection import (
    ACTIVE,
    CLOSED,
    COOL_OFF,
    LIMIT_KINDS,
    PERIODS,
    SELF_EXCLUSION,
    SUSPENDED,
    TIME_LIMITS,
)

ROLES = ("operator", "player")
STATUSES = (ACTIVE, SUSPENDED, CLOSED)
EXCLUSION_KINDS = (COOL_OFF, SELF_EXCLUSION)
LIMIT_NAMES = (*LIMIT_KINDS, *TIME_LIMITS)


def _amount() -> StrictInteger:
    return StrictInteger(
        allow_none=True,
        validate=validate.Range(min=1, max=MAX_AMOUNT),
        metadata={"description": "Minor units, 1 to 10^12; null removes the limit"},
    )


def _minutes(description: str) -> StrictInteger:
    return StrictInteger(
        allow_none=True,
        validate=validate.Range(min=1, max=MAX_MINUTES),
        metadata={"description": f"{description}, 1 to {MAX_MINUTES}; null removes it"},
    )


# ---------------------------------------------------------------- limits


class LimitAmountsSchema(RequestSchema):
    """Per period; a period left out keeps its limit."""

    day = _amount()
    week = _amount()
    month = _amount()


class LimitsInputSchema(RequestSchema):
    # Money limits are per currency.
    BODY_RULES = (NeededBy("currency", LIMIT_KINDS),)

    currency = Currency()
    deposit = ma.fields.Nested(LimitAmountsSchema)
    loss = ma.fields.Nested(LimitAmountsSchema)
    wager = ma.fields.Nested(LimitAmountsSchema)
    session_minutes = _minutes("Minutes of play in one session")
    reality_check_minutes = _minutes("Minutes between two reality checks")


class PendingLimitSchema(ResponseSchema):
    value = ma.fields.Integer(allow_none=True, metadata={"description": "null: a removal"})
    effective_at = ma.fields.DateTime()


class MoneyLimitSchema(ResponseSchema):
    currency = ma.fields.String()
    limit = Choice(LIMIT_KINDS)
    period = Choice(PERIODS, metadata={"description": "Calendar period in UTC"})
    amount = ma.fields.Integer(
        allow_none=True, metadata={"description": "In force now (null: removed, see pending)"}
    )
    used = ma.fields.Integer(
        metadata={"description": "Used this period (a loss limit's net loss: below 0 when ahead)"}
    )
    remaining = ma.fields.Integer(allow_none=True)
    period_start = ma.fields.DateTime()
    resets_at = ma.fields.DateTime(metadata={"description": "When the period's usage restarts"})
    pending = ma.fields.Nested(
        PendingLimitSchema,
        allow_none=True,
        metadata={"description": "A raise or removal waiting for its 24 hours"},
    )


class TimeLimitSchema(ResponseSchema):
    value = ma.fields.Integer(allow_none=True, metadata={"description": "Minutes, in force now"})
    pending = ma.fields.Nested(PendingLimitSchema, allow_none=True)


class LimitsSchema(ResponseSchema):
    player_id = Uuid()
    money = ma.fields.List(ma.fields.Nested(MoneyLimitSchema))
    session_minutes = ma.fields.Nested(TimeLimitSchema)
    reality_check_minutes = ma.fields.Nested(TimeLimitSchema)


class LimitChangeSchema(ResponseSchema):
    id = ma.fields.Integer(allow_none=True, metadata={"description": "null in the PUT answer"})
    currency = ma.fields.String(allow_none=True)
    limit = Choice(LIMIT_NAMES)
    period = ma.fields.String(allow_none=True)
    old_value = ma.fields.Integer(allow_none=True, metadata={"description": "In force before"})
    new_value = ma.fields.Integer(allow_none=True, metadata={"description": "Asked for"})
    requested_at = ma.fields.DateTime()
    effective_at = ma.fields.DateTime(
        metadata={"description": "At once for a lower limit, 24 hours later for a higher one"}
    )
    changed_by = Choice(ROLES)
    actor = ma.fields.String(metadata={"description": "The caller that asked"})


class LimitsUpdateSchema(ResponseSchema):
    limits = ma.fields.Nested(LimitsSchema)
    changes = ma.fields.List(ma.fields.Nested(LimitChangeSchema))


class LimitChangePageSchema(ResponseSchema):
    items = ma.fields.List(ma.fields.Nested(LimitChangeSchema))
    next_cursor = ma.fields.String(allow_none=True)


# ---------------------------------------------------------------- account


class ExclusionInputSchema(RequestSchema):
    # A cool-off lasts days; every other kind months.
    BODY_RULES = (
        RequiredBy(
            "kind", {kind: "days" if kind == COOL_OFF else "months" for kind in EXCLUSION_KINDS}
        ),
    )

    kind = Choice(EXCLUSION_KINDS, required=True)
    days = StrictInteger(
        validate=validate.Range(min=COOL_OFF_DAYS[0], max=COOL_OFF_DAYS[1]),
        metadata={"description": "cool_off: 1 to 42 days"},
    )
    months = StrictInteger(
        validate=validate.Range(min=SELF_EXCLUSION_MONTHS[0], max=SELF_EXCLUSION_MONTHS[1]),
        metadata={"description": "self_exclusion: 6 to 60 months"},
    )


class ReasonSchema(RequestSchema):
    reason = Text(500, required=True, metadata={"description": "Why (kept in the history)"})


class ExclusionSchema(ResponseSchema):
    kind = Choice(EXCLUSION_KINDS)
    started_at = ma.fields.DateTime()
    ends_at = ma.fields.DateTime()


class SessionSchema(ResponseSchema):
    started_at = ma.fields.DateTime()
    last_bet_at = ma.fields.DateTime()
    minutes_played = ma.fields.Integer()
    limit_minutes = ma.fields.Integer(allow_none=True)
    ends_at = ma.fields.DateTime(allow_none=True, metadata={"description": "By the limit"})


class ProtectionSchema(ResponseSchema):
    player_id = Uuid()
    status = Choice(STATUSES)
    status_reason = ma.fields.String(allow_none=True)
    exclusion = ma.fields.Nested(ExclusionSchema, allow_none=True)
    session = ma.fields.Nested(
        SessionSchema,
        allow_none=True,
        metadata={"description": "Kept for players with a time limit, while they play"},
    )
    reality_check = ma.fields.Nested(RealityCheckSchema, allow_none=True)


class AccountEventSchema(ResponseSchema):
    id = ma.fields.Integer()
    action = Choice(ACCOUNT_ACTIONS)
    reason = ma.fields.String(allow_none=True)
    old_status = Choice(STATUSES)
    new_status = Choice(STATUSES)
    ends_at = ma.fields.DateTime(allow_none=True, metadata={"description": "Exclusions"})
    created_at = ma.fields.DateTime()
    changed_by = Choice(ROLES)
    actor = ma.fields.String()


class AccountEventPageSchema(ResponseSchema):
    items = ma.fields.List(ma.fields.Nested(AccountEventSchema))
    next_cursor = ma.fields.String(allow_none=True)


# ---------------------------------------------------------------- statements


class StatementQuerySchema(RequestSchema):
    start = ma.fields.AwareDateTime(
        data_key="from",
        required=True,
        default_timezone=UTC,
        metadata={"description": "Start, included (ISO 8601; UTC when no offset)"},
    )
    end = ma.fields.AwareDateTime(
        data_key="to",
        required=True,
        default_timezone=UTC,
        metadata={"description": "End, excluded"},
    )


class StatementLineSchema(ResponseSchema):
    currency = ma.fields.String()
    opening_balance = ma.fields.Integer()
    closing_balance = ma.fields.Integer()
    deposits = ma.fields.Integer()
    withdrawals = ma.fields.Integer()
    wagered = ma.fields.Integer(metadata={"description": "Antes, tie bets and raises"})
    won = ma.fields.Integer(metadata={"description": "Paid back by rounds, stakes included"})
    net = ma.fields.Integer(metadata={"description": "won - wagered"})
    rounds = ma.fields.Integer(metadata={"description": "Rounds started"})
    summary = ma.fields.String(
        metadata={"description": "The line in words, amounts formatted (Accept-Language)"}
    )

    @ma.pre_dump
    def _with_summary(self, line: Any, **_: Any) -> dict[str, Any]:
        return {**asdict(line), "summary": statement_summary(request_language(), line)}


class StatementSchema(ResponseSchema):
    player_id = Uuid()
    start = ma.fields.DateTime(data_key="from")
    end = ma.fields.DateTime(data_key="to")
    title = ma.fields.String(
        metadata={"description": "The statement's span in words (Accept-Language; UTC)"}
    )
    currencies = ma.fields.List(ma.fields.Nested(StatementLineSchema))

    @ma.pre_dump
    def _with_title(self, view: Any, **_: Any) -> dict[str, Any]:
        title = statement_title(request_language(), view.start, view.end)
        return {**vars(view), "title": title}


# ---------------------------------------------------------------- players and currencies


class PlayerQuerySchema(RequestSchema):
    external_ref = Text(200, required=True, metadata={"description": "Your id for the player"})


class PlayerListSchema(ResponseSchema):
    items = ma.fields.List(ma.fields.Nested(PlayerSchema), metadata={"description": "0 or 1"})


class CurrencySchema(ResponseSchema):
    code = ma.fields.String(metadata={"description": "ISO 4217"})
    name = ma.fields.String()
    minor_units = ma.fields.Integer(metadata={"description": "Amounts are in 10^-minor_units"})
