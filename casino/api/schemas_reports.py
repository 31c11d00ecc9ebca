"""Query and response schemas of the operators' reports (``/api/v1/reports``).

The body is ``casino.service.reports.report_json``; these schemas document it and pass it
through. Amounts are integer minor units; RTP, hold and the band are fractions of 1.
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma

from casino.api.fields import Currency, Pattern
from casino.api.schemas import RequestSchema, ResponseSchema
from casino.service.reports import to_instant

# A date, or a date-time with optional seconds, fraction and offset (ISO 8601 / RFC 3339).
INSTANT_PATTERN = (
    r"^\d{4}-\d{2}-\d{2}"
    r"(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:[Zz]|[+-]\d{2}:\d{2})?)?$"
)


def _valid_instant(text: str) -> None:
    try:
        to_instant(text, end_of_day=True)
    except ValueError:
        raise ma.ValidationError("Not a valid date or date-time.") from None


def Instant(**kwargs: Any) -> ma.fields.String:
    # The pattern is the shape; the formats say the date must exist (no month 24).
    formats = [{"format": "date"}, {"format": "date-time"}]
    metadata = {"anyOf": formats, **kwargs.pop("metadata", {})}
    return ma.fields.String(
        validate=[Pattern(INSTANT_PATTERN), _valid_instant], metadata=metadata, **kwargs
    )


class TableReportQuerySchema(RequestSchema):
    since = Instant(
        metadata={
            "description": "Rounds settled at or after this instant (a date: its start, UTC)",
            "example": "2026-11-01",
        }
    )
    until = Instant(
        metadata={
            "description": "Rounds settled before this instant (a date: that day included)",
            "example": "2026-11-30",
        },
    )
    currency = Currency()

    @ma.post_load
    def _instants(self, data: dict[str, Any], **_: Any) -> dict[str, Any]:
        if "since" in data:
            data["since"] = to_instant(data["since"])
        if "until" in data:
            data["until"] = to_instant(data["until"], end_of_day=True)
        return data


class BetFiguresSchema(ResponseSchema):
    rounds = ma.fields.Integer(metadata={"description": "Rounds with a stake in this slice"})
    handle = ma.fields.Integer(metadata={"description": "Staked, minor units"})
    wins = ma.fields.Integer(metadata={"description": "Returned to players, stakes included"})
    ggr = ma.fields.Integer(metadata={"description": "Gross gaming revenue: handle - wins"})
    hold = ma.fields.Float(allow_none=True, metadata={"description": "GGR / handle"})
    observed_rtp = ma.fields.Float(allow_none=True, metadata={"description": "wins / handle"})
    theoretical_rtp = ma.fields.Float(
        allow_none=True, metadata={"description": "E[wins] / E[handle] for the bets placed"}
    )
    theoretical_rtp_exact = ma.fields.String(allow_none=True)
    std_dev = ma.fields.Float(
        allow_none=True, metadata={"description": "Standard deviation of the observed RTP"}
    )
    band_low = ma.fields.Float(allow_none=True)
    band_high = ma.fields.Float(allow_none=True)
    z_score = ma.fields.Float(allow_none=True)
    outside_band = ma.fields.Boolean()


class DecisionSharesSchema(ResponseSchema):
    ties = ma.fields.Integer(
        metadata={
            "description": "Hands that tied the dealer's card and were decided (a round of "
            "several hands counts each of its tied hands)"
        }
    )
    war = ma.fields.Integer(metadata={"description": "Of those, the hands sent to war"})
    surrender = ma.fields.Integer(metadata={"description": "Of those, the hands surrendered"})
    war_share = ma.fields.Float(allow_none=True)
    surrender_share = ma.fields.Float(allow_none=True)


class PeriodFiguresSchema(ResponseSchema):
    rounds = ma.fields.Integer()
    all_bets = ma.fields.Nested(BetFiguresSchema)
    ante_game = ma.fields.Nested(BetFiguresSchema, metadata={"description": "Ante and raise"})
    tie_bet = ma.fields.Nested(BetFiguresSchema)
    war_tie_bet = ma.fields.Nested(
        BetFiguresSchema, metadata={"description": "The war tie bets, placed with a war"}
    )
    decisions = ma.fields.Nested(DecisionSharesSchema)
    flagged = ma.fields.Boolean(metadata={"description": "Some figure is outside its band"})


class DayFiguresSchema(PeriodFiguresSchema):
    day = ma.fields.String(
        metadata={"description": "UTC day the rounds were settled", "format": "date"}
    )

    class Meta:
        ordered = True


class RtpFigureSchema(ResponseSchema):
    value = ma.fields.Float()
    exact = ma.fields.String()


class RulesRtpSchema(ResponseSchema):
    war = ma.fields.Nested(RtpFigureSchema)
    surrender = ma.fields.Nested(RtpFigureSchema)
    tie_bet = ma.fields.Nested(RtpFigureSchema)
    tie_bet_alone = ma.fields.Nested(
        RtpFigureSchema, metadata={"description": "A ladder tie bet stopping at the first tie"}
    )
    war_tie_bet = ma.fields.Nested(
        RtpFigureSchema, metadata={"description": "Per unit of war tie bet placed"}
    )


class RulesOddsSchema(ResponseSchema):
    decks = ma.fields.Integer()
    tie_pays = ma.fields.Integer()
    war_tie_bonus = ma.fields.Boolean()
    war_ties = ma.fields.String(
        metadata={"description": "Present for repeated wars only (repeat)", "enum": ["repeat"]}
    )
    max_war_ties = ma.fields.Integer(metadata={"description": "With repeated wars"})
    tie_ladder = ma.fields.List(
        ma.fields.Integer(), metadata={"description": "The tie bet's ladder, where it has one"}
    )
    war_tie_pays = ma.fields.Integer(
        metadata={"description": "Where the war tie bet is offered: it pays k to 1"}
    )
    rounds = ma.fields.Integer()
    rtp = ma.fields.Nested(
        RulesRtpSchema, metadata={"description": "Exact RTP per unit of the initial bet"}
    )


class TableReportSchema(ResponseSchema):
    table_id = ma.fields.String()
    currency = ma.fields.String()
    rules = ma.fields.List(ma.fields.Nested(RulesOddsSchema))
    open_rounds = ma.fields.Integer(
        metadata={"description": "Rounds of the period still awaiting a decision"}
    )
    flagged = ma.fields.Boolean()
    total = ma.fields.Nested(PeriodFiguresSchema)
    days = ma.fields.List(ma.fields.Nested(DayFiguresSchema))


class TablesReportSchema(ResponseSchema):
    since = ma.fields.String(allow_none=True)
    until = ma.fields.String(allow_none=True)
    currency = ma.fields.String(allow_none=True)
    confidence = ma.fields.Float()
    z = ma.fields.Float()
    generated_at = ma.fields.String()
    tables = ma.fields.List(ma.fields.Nested(TableReportSchema))
