"""Operators' table reports: handle, wins, GGR, hold and observed RTP against the theoretical
RTP of the rules played, per table and UTC day, with the 95 % band that says whether a
deviation is chance.

Definitions (amounts in minor units, per table, currency and day a round was settled):

* handle = ante + raise + tie bet + war tie bet (a round's totals over its hands); wins =
  everything returned to players, stakes included;
  GGR = handle - wins; hold = GGR / handle; observed RTP = wins / handle = 1 - hold.
* The theoretical RTP is E[wins] / E[handle] for the bets actually placed, from the exact
  distribution of a round under each round's own rules snapshot
  (``casino.engine.rtp_band``); it depends on how ties were decided, so the share of ties
  that went to war in the same period is taken as the players' strategy.
* The band is the theoretical RTP +/- 1.96 standard deviations of the observed RTP; a figure
  outside it is flagged. A fair table is flagged about one period in twenty per figure by
  chance; a flag that persists, or one far outside, is worth a look.
* Four slices are reported: all bets, the ante game alone (ante and raise), the tie bet
  alone and the war tie bet alone; with the ties' war / surrender shares. Only totals per
  round are used, never how a payout is split between ante and raise.
* Rounds are modelled under every rule of their snapshot that sets the odds (decks, tie
  pays, war ties bonus / push / repeat, max_war_ties, tie_ladder, war_tie_pays, whether the
  war tie bet is offered), from the exact odds of ``casino.engine.table_odds`` (what each
  table's ``rtp`` uses). A round of several hands is modelled by its totals: the expected
  figures are exact (returns are linear in the stakes); its band is wider than the hands'
  own (it takes them as one hand). The tie bets of hands without an ante (tie-only hands:
  with a ladder, paid the first step) are modelled apart, even beside hands with an ante.
  The war tie bet is placed with a war: its expected return is its exact RTP per unit
  placed times the stakes placed.

Rounds still awaiting a decision are not in the figures (they have not been settled); each
table reports how many of the period's rounds are still open.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from fractions import Fraction
from typing import Any

from casino.engine.casino_war import TableRules
from casino.engine.casino_war.rule_values import WarTies
from casino.engine.odds import theoretical_rtp
from casino.engine.rtp_band import Z_95
from casino.service.common import check_currency
from casino.service.errors import Invalid
from casino.service.report_figures import (
    BetFigures,
    OddsKey,
    PeriodFigures,
    exact,
    odds_key,
    period_figures,
)
from casino.store.reports import SettledGroup
from casino.store.uow import UnitOfWork

__all__ = ["BetFigures", "PeriodFigures", "period_figures", "report_json", "table_report"]

CONFIDENCE = 0.95


@dataclass(frozen=True)
class RulesOdds:
    """One set of odds-setting rules played at a table, with its exact RTPs per unit of the
    initial bet (``war``: always going to war; ``surrender``: always surrendering; the keys of
    ``casino.engine.odds.theoretical_rtp``)."""

    rules: TableRules
    rounds: int
    rtp: dict[str, Fraction]

    @property
    def decks(self) -> int:
        return self.rules.decks

    @property
    def tie_pays(self) -> int:
        return self.rules.tie_pays

    @property
    def war_tie_bonus(self) -> bool:
        return self.rules.war_tie_bonus


@dataclass(frozen=True)
class TableReport:
    table_id: str
    currency: str
    rules: list[RulesOdds]
    open_rounds: int
    total: PeriodFigures
    days: list[PeriodFigures]

    @property
    def flagged(self) -> bool:
        return self.total.flagged or any(day.flagged for day in self.days)


@dataclass(frozen=True)
class TablesReport:
    since: datetime | None
    until: datetime | None
    currency: str | None
    generated_at: datetime
    tables: list[TableReport] = field(default_factory=list)
    confidence: float = CONFIDENCE


# --- the use case ---------------------------------------------------------------------------


def table_report(
    uow: UnitOfWork,
    *,
    since: datetime | None = None,
    until: datetime | None = None,
    currency: str | None = None,
) -> TablesReport:
    """Figures of every table with rounds settled in [since, until) (UTC), per day."""
    since, until = _period(since, until)
    if currency is not None:
        check_currency(currency)
    groups = uow.reports.settled_groups(since=since, until=until, currency=currency)
    open_rounds = uow.reports.open_rounds_by_table(since=since, until=until, currency=currency)
    by_table: dict[tuple[str, str], list[SettledGroup]] = defaultdict(list)
    for group in groups:
        by_table[(group.table_id, group.currency)].append(group)
    for key in open_rounds:
        by_table.setdefault(key, [])
    tables = [
        _table(table_id, table_currency, by_table[(table_id, table_currency)], open_rounds)
        for table_id, table_currency in sorted(by_table)
    ]
    return TablesReport(
        since=since,
        until=until,
        currency=currency,
        generated_at=datetime.now(UTC),
        tables=tables,
    )


def open_rounds(uow: UnitOfWork) -> dict[tuple[str, str], int]:
    """Rounds awaiting a decision now, per operator and currency."""
    return uow.reports.open_rounds_by_currency()


def _period(
    since: datetime | None, until: datetime | None
) -> tuple[datetime | None, datetime | None]:
    since = None if since is None else _utc(since)
    until = None if until is None else _utc(until)
    if since is not None and until is not None and since >= until:
        raise Invalid("since must be before until", code="invalid_period")
    return since, until


def to_instant(text: str, *, end_of_day: bool = False) -> datetime:
    """A UTC instant from a date (``2026-11-30``) or a date-time (``2026-11-30T12:00:00Z``;
    without an offset it is UTC). ``end_of_day``: a bare date means the end of that day, so
    that a period ``until`` 2026-11-30 includes the 30th. ValueError when it is neither."""
    try:
        parsed = _utc(datetime.fromisoformat(text))
        if end_of_day and len(text) == len("2026-11-30"):
            parsed += timedelta(days=1)
    except OverflowError:  # year 1 or 9999 moved off the calendar by an offset or a day
        raise ValueError(text) from None
    return parsed


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _table(
    table_id: str,
    currency: str,
    groups: list[SettledGroup],
    open_rounds: dict[tuple[str, str], int],
) -> TableReport:
    by_day: dict[date, list[SettledGroup]] = defaultdict(list)
    for group in groups:
        by_day[group.day].append(group)
    rounds_per_rules: dict[OddsKey, int] = defaultdict(int)
    for group in groups:
        rounds_per_rules[odds_key(group)] += group.rounds
    rules = [
        RulesOdds(rules=key, rounds=count, rtp=theoretical_rtp(key))
        for key, count in sorted(rounds_per_rules.items(), key=lambda item: _order(item[0]))
    ]
    return TableReport(
        table_id=table_id,
        currency=currency,
        rules=rules,
        open_rounds=open_rounds.get((table_id, currency), 0),
        total=period_figures(None, groups),
        days=[period_figures(day, by_day[day]) for day in sorted(by_day)],
    )


def _order(rules: TableRules) -> tuple[Any, ...]:
    """The rules in a stable order: the original three first, as the report always had."""
    return (
        rules.decks,
        rules.tie_pays,
        rules.war_tie_bonus,
        rules.war_tie_rule.value,
        rules.max_war_ties,
        rules.tie_ladder or (),
        rules.war_tie_pays,
        rules.max_war_tie_bet,
    )


def odds_rules_json(rules: TableRules) -> dict[str, Any]:
    """The odds-setting rules of a report: decks, tie_pays and war_tie_bonus always, the
    issue 21 rules only where they differ from their defaults (older rules read as before)."""
    data: dict[str, Any] = {
        "decks": rules.decks,
        "tie_pays": rules.tie_pays,
        "war_tie_bonus": rules.war_tie_bonus,
    }
    if rules.war_tie_rule is WarTies.REPEAT:
        data["war_ties"] = WarTies.REPEAT.value
        data["max_war_ties"] = rules.max_war_ties
        if rules.tie_ladder is not None:
            data["tie_ladder"] = list(rules.tie_ladder)
    if rules.war_tie_bet_offered:
        data["war_tie_pays"] = rules.war_tie_pays
    return data


# --- figures --------------------------------------------------------------------------------


# --- JSON -----------------------------------------------------------------------------------


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def figures_json(figures: BetFigures) -> dict[str, Any]:
    return {
        "rounds": figures.rounds,
        "handle": figures.handle,
        "wins": figures.wins,
        "ggr": figures.ggr,
        "hold": figures.hold,
        "observed_rtp": figures.observed_rtp,
        "theoretical_rtp": figures.theoretical_rtp,
        "theoretical_rtp_exact": figures.theoretical_rtp_exact,
        "std_dev": figures.std_dev,
        "band_low": figures.band_low,
        "band_high": figures.band_high,
        "z_score": figures.z_score,
        "outside_band": figures.outside_band,
    }


def period_json(period: PeriodFigures) -> dict[str, Any]:
    d = period.decisions
    data: dict[str, Any] = {} if period.day is None else {"day": period.day.isoformat()}
    data.update(
        rounds=period.rounds,
        all_bets=figures_json(period.all_bets),
        ante_game=figures_json(period.ante_game),
        tie_bet=figures_json(period.tie_bet),
        war_tie_bet=figures_json(period.war_tie_bet),
        decisions={
            "ties": d.ties,
            "war": d.war,
            "surrender": d.surrender,
            "war_share": d.war_share,
            "surrender_share": d.surrender_share,
        },
        flagged=period.flagged,
    )
    return data


def report_json(report: TablesReport) -> dict[str, Any]:
    """The report as JSON-ready data: the API's body and ``casino report --json``."""
    return {
        "since": _iso(report.since),
        "until": _iso(report.until),
        "currency": report.currency,
        "confidence": report.confidence,
        "z": float(Z_95),
        "generated_at": _iso(report.generated_at),
        "tables": [
            {
                "table_id": table.table_id,
                "currency": table.currency,
                "rules": [
                    {
                        **odds_rules_json(r.rules),
                        "rounds": r.rounds,
                        "rtp": {
                            name: {"value": float(value), "exact": exact(value)}
                            for name, value in r.rtp.items()
                        },
                    }
                    for r in table.rules
                ],
                "open_rounds": table.open_rounds,
                "flagged": table.flagged,
                "total": period_json(table.total),
                "days": [period_json(day) for day in table.days],
            }
            for table in report.tables
        ],
    }
