"""Reads for operators' reports and metrics: settled rounds summed per table, day and bets.

An operator's reports count its own rounds only. A round is counted on the UTC day it was
settled (a tie decided after midnight counts on the day of its decision, its tie bet
included): its figures are complete only then. Rounds are summed in SQL per table, currency,
day, the rules that set the odds (decks, tie payout, tie bonus and, from issue 21, repeated
wars, their cap, the tie ladder, the war tie bet and its payout) and the bets (ante, tie bet,
war tie bet: a round's totals over its hands), so the report gets the exact sums of squares
of the bets that its statistical band needs without one row per round, and with no integer
overflow in the database (the squares are formed in Python).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import Date, case, cast, func, select
from sqlalchemy.orm import Session

from casino.engine.casino_war.rule_values import MAX_HANDS
from casino.store.models import AWAITING_DECISION, SETTLED, Round
from casino.store.repository import Repository


@dataclass(frozen=True)
class SettledGroup:
    """Settled rounds of one table, currency, UTC day, odds-setting rules and bets."""

    table_id: str
    currency: str
    day: date
    #: None where a rules snapshot lacks the key (the rule's default applies)
    decks: int | None
    tie_pays: int | None
    war_tie_bonus: bool | None
    #: a round's totals over its hands
    ante: int
    tie_bet: int
    rounds: int
    #: sum of the raises (rounds that went to war)
    raised: int
    #: returned for the ante and the raise, stakes included
    ante_paid: int
    #: returned for the tie bet, stake included
    tie_bet_paid: int
    #: hands whose card tied the dealer's, each then decided (a round of several hands
    #: counts each of its tied hands; a one-hand round, its one decision)
    ties: int
    #: of those, the hands that went to war
    wars: int
    #: the issue 21 rules that set the odds (None where the snapshot lacks the key: an older
    #: round, or the rule's default)
    war_ties: str | None = None
    max_war_ties: int | None = None
    tie_ladder: tuple[int, ...] | None = None
    war_tie_pays: int | None = None
    max_war_tie_bet: int | None = None
    #: the round's war tie bets (every hand's), and what they returned, stakes included
    war_tie_bet: int = 0
    war_tie_bet_paid: int = 0
    #: of ``tie_bet``, the tie bets of hands without an ante (tie-only hands)
    tie_only_bet: int = 0

    def rules_snapshot(self) -> dict[str, Any]:
        """The odds-setting rules of the group as a rules snapshot (the keys it had)."""
        values: dict[str, Any] = {
            "decks": self.decks,
            "tie_pays": self.tie_pays,
            "war_tie_bonus": self.war_tie_bonus,
            "war_ties": self.war_ties,
            "max_war_ties": self.max_war_ties,
            "tie_ladder": self.tie_ladder,
            "war_tie_pays": self.war_tie_pays,
            "max_war_tie_bet": self.max_war_tie_bet,
        }
        return {key: value for key, value in values.items() if value is not None}


def _day(session: Session) -> Any:
    if session.get_bind().dialect.name == "postgresql":
        return cast(func.timezone("UTC", Round.settled_at), Date)
    # SQLite keeps UTC date-times as ISO text: the date is its first ten characters.
    return func.date(Round.settled_at)


def _as_date(value: date | str) -> date:
    return value if isinstance(value, date) else date.fromisoformat(value)


def _ladder(value: str | None) -> tuple[int, ...] | None:
    # The ladder is a JSON list, read as its JSON text (each dialect spaces it its own way).
    return None if value is None else tuple(int(step) for step in json.loads(value))


def _tie_only_bets() -> Any:
    """A round's tie bets on hands without an ante, from its hands shape (0 for a round in
    the one-hand shape): a sum over the hands' places, there being at most ``MAX_HANDS``.
    Only tables with ``tie_only`` take such hands: the others' rounds are not parsed."""
    total: Any = 0
    for index in range(MAX_HANDS):
        bets = ("hands", index, "bets")
        ante = Round.hands[(*bets, "ante")].as_integer()
        tie_bet = Round.hands[(*bets, "tie_bet")].as_integer()
        total = total + case((ante == 0, func.coalesce(tie_bet, 0)), else_=0)
    return case((Round.rules["tie_only"].as_boolean().is_(True), total), else_=0)


def _hand_decisions() -> tuple[Any, Any]:
    """(tied hands, hands sent to war) of a round. The flat ``decision`` column is hand 0's
    (the one hand of a round in the one-hand shape); the other hands' decisions are read from
    the hands shape, a sum over their places (at most ``MAX_HANDS``): a path a round lacks
    reads as NULL and counts nothing. Only the rounds of tables of several hands are parsed
    (their rules snapshot names ``max_hands``)."""
    more_ties: Any = 0
    more_wars: Any = 0
    for index in range(1, MAX_HANDS):
        action = Round.hands[("hands", index, "decision", "action")].as_string()
        more_ties = more_ties + case((action.is_not(None), 1), else_=0)
        more_wars = more_wars + case((action == "war", 1), else_=0)
    several = Round.rules["max_hands"].as_integer() > 1
    ties = case((Round.decision.is_not(None), 1), else_=0) + case((several, more_ties), else_=0)
    wars = case((Round.decision == "war", 1), else_=0) + case((several, more_wars), else_=0)
    return ties, wars


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


class ReportStore(Repository):
    """What the operators' reports read: settled rounds grouped for exact figures."""

    def settled_groups(
        self,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        currency: str | None = None,
    ) -> list[SettledGroup]:
        """Rounds settled in [since, until), optionally in one currency, summed per group."""
        session = self.session
        day = _day(session).label("day")
        decks = Round.rules["decks"].as_integer().label("decks")
        tie_pays = Round.rules["tie_pays"].as_integer().label("tie_pays")
        bonus = Round.rules["war_tie_bonus"].as_boolean().label("war_tie_bonus")
        rules = Round.rules
        keys = (
            Round.table_id,
            Round.currency,
            day,
            decks,
            tie_pays,
            bonus,
            Round.ante,
            Round.tie_bet,
            rules["war_ties"].as_string().label("war_ties"),
            rules["max_war_ties"].as_integer().label("max_war_ties"),
            rules["tie_ladder"].as_string().label("tie_ladder"),
            rules["war_tie_pays"].as_integer().label("war_tie_pays"),
            rules["max_war_tie_bet"].as_integer().label("max_war_tie_bet"),
            Round.war_tie_bet,
            _tie_only_bets().label("tie_only_bet"),
        )
        tied_hands, war_hands = _hand_decisions()
        query = (
            select(
                *keys,
                func.count(),
                func.coalesce(func.sum(Round.raise_amount), 0),
                func.coalesce(func.sum(Round.ante_payout + Round.raise_payout), 0),
                func.coalesce(func.sum(Round.tie_bet_payout), 0),
                func.coalesce(func.sum(tied_hands), 0),
                func.coalesce(func.sum(war_hands), 0),
                func.coalesce(func.sum(Round.war_tie_bet_payout), 0),
            )
            .where(Round.status == SETTLED, self.owned(Round.operator_id))
            .group_by(*keys)
            .order_by(Round.table_id, Round.currency, day)
        )
        if since is not None:
            query = query.where(Round.settled_at >= since)
        if until is not None:
            query = query.where(Round.settled_at < until)
        if currency is not None:
            query = query.where(Round.currency == currency)
        return [
            SettledGroup(
                table_id=str(row[0]),
                currency=str(row[1]),
                day=_as_date(row[2]),
                decks=None if row[3] is None else int(row[3]),
                tie_pays=None if row[4] is None else int(row[4]),
                war_tie_bonus=None if row[5] is None else bool(row[5]),
                ante=int(row[6]),
                tie_bet=int(row[7]),
                war_ties=None if row[8] is None else str(row[8]),
                max_war_ties=_int(row[9]),
                tie_ladder=_ladder(row[10]),
                war_tie_pays=_int(row[11]),
                max_war_tie_bet=_int(row[12]),
                war_tie_bet=int(row[13]),
                rounds=int(row[15]),
                raised=int(row[16]),
                ante_paid=int(row[17]),
                tie_bet_paid=int(row[18]),
                ties=int(row[19]),
                wars=int(row[20]),
                tie_only_bet=int(row[14]),
                war_tie_bet_paid=int(row[21]),
            )
            for row in session.execute(query)
        ]

    def open_rounds_by_table(
        self,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        currency: str | None = None,
    ) -> dict[tuple[str, str], int]:
        """Rounds started in [since, until) still awaiting a decision, per (table, currency)."""
        session = self.session
        query = (
            select(Round.table_id, Round.currency, func.count())
            .where(Round.status == AWAITING_DECISION, self.owned(Round.operator_id))
            .group_by(Round.table_id, Round.currency)
        )
        if since is not None:
            query = query.where(Round.created_at >= since)
        if until is not None:
            query = query.where(Round.created_at < until)
        if currency is not None:
            query = query.where(Round.currency == currency)
        return {(str(t), str(c)): int(n) for t, c, n in session.execute(query)}

    def open_rounds_by_currency(self) -> dict[tuple[str, str], int]:
        """Rounds awaiting a decision now, per operator and currency (the partial index on
        open rounds has them all, so this stays cheap however many rounds were settled)."""
        session = self.session
        query = (
            select(Round.operator_id, Round.currency, func.count())
            .where(Round.status == AWAITING_DECISION, self.owned(Round.operator_id))
            .group_by(Round.operator_id, Round.currency)
        )
        return {(str(o), str(c)): int(count) for o, c, count in session.execute(query)}
