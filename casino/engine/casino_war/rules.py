"""The rules of one Casino War table, as frozen data.

The first eight fields are the rules every table has had from the start; their dict form
(``to_dict``) is unchanged, so the rules snapshot stored with every round replays. The rules
added since (several hands, repeated wars and the tie ladder, the war tie bet, tie-only bets,
the decision clock) appear in the dict form only when they differ from their defaults: a table
with the defaults is the original table, byte for byte.

Which dealing procedure and which record shape a table's rounds use follow from the rules
alone (``dealing``, ``record_shape``; docs/fairness.md gives both), never from how a round
went. Checking the rules and the bets lives in ``rule_checks``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from datetime import timedelta
from typing import Any

from casino.engine.casino_war import rule_checks
from casino.engine.casino_war.bets import HandBet
from casino.engine.casino_war.rule_values import (
    BURNS_PER_WAR,
    DEFAULT_MAX_WAR_TIES,
    Dealing,
    RecordShape,
    WarTies,
)
from casino.engine.casino_war.states import Decision
from casino.engine.errors import InvalidRules


@dataclass(frozen=True)
class TableRules:
    """The rules of one Casino War table. Invalid combinations are refused at creation with
    ``InvalidRules`` naming the rule (``rule``)."""

    decks: int = 6
    tie_pays: int = 10
    war_tie_bonus: bool = False
    surrender_allowed: bool = True
    min_ante: int = 100
    max_ante: int = 500_000
    max_tie_bet: int = 100_000
    bet_increment: int = 100
    #: hands one round may play, 1 to 5
    max_hands: int = 1
    #: None: read from ``war_tie_bonus`` (bonus when true, else push); never None after
    #: creation (``war_tie_rule`` is the typed view)
    war_ties: WarTies | None = None
    #: with ``repeat``: the most consecutive ties a hand can reach, the first deal's counting
    max_war_ties: int = DEFAULT_MAX_WAR_TIES
    #: with ``repeat``: the tie bet pays ``tie_ladder[n - 1]`` to 1 for n consecutive ties
    tie_ladder: tuple[int, ...] | None = None
    war_tie_pays: int = 10
    #: 0: no war tie bet; else its maximum (it is placed with the decision to go to war)
    max_war_tie_bet: int = 0
    #: a hand may be a tie bet alone (ante 0)
    tie_only: bool = False
    #: None: no decision clock; else the seconds a tied hand waits for the player
    decision_seconds: int | None = None
    timeout_action: Decision = Decision.SURRENDER

    def __post_init__(self) -> None:
        for name, value in rule_checks.normalised(self).items():
            object.__setattr__(self, name, value)
        rule_checks.check_rules(self)

    # --- what the rules imply ---------------------------------------------------------------

    @property
    def war_tie_rule(self) -> WarTies:
        rule = self.war_ties
        assert rule is not None  # set by __post_init__
        return rule

    @property
    def tie_bet_offered(self) -> bool:
        return self.max_tie_bet > 0

    @property
    def war_tie_bet_offered(self) -> bool:
        return self.max_war_tie_bet > 0

    @property
    def repeats_wars(self) -> bool:
        return self.war_ties is WarTies.REPEAT

    @property
    def dealing(self) -> Dealing:
        return Dealing.CLASSIC if self.max_hands == 1 else Dealing.TABLE

    @property
    def record_shape(self) -> RecordShape:
        """``one_hand`` for a table whose rounds fit the shape stored before several hands
        existed: one hand, at most one war, no war tie bet."""
        if self.max_hands == 1 and not self.repeats_wars and not self.war_tie_bet_offered:
            return RecordShape.ONE_HAND
        return RecordShape.HANDS

    @property
    def most_wars(self) -> int:
        """The most wars one hand can fight in a round."""
        return self.max_war_ties - 1 if self.repeats_wars else 1

    def most_cards(self, hands: int | None = None) -> int:
        """The most cards a round of ``hands`` hands (default: ``max_hands``) can use."""
        count = self.max_hands if hands is None else hands
        return 1 + count + self.most_wars * (BURNS_PER_WAR + count + 1)

    @property
    def decision_timeout(self) -> timedelta | None:
        """How long a tied hand waits for its decision; None without a decision clock."""
        seconds = self.decision_seconds
        return None if seconds is None else timedelta(seconds=seconds)

    def tie_bet_return(self, ties: int) -> int:
        """What one unit of tie bet returns, stake included, after ``ties`` consecutive ties
        (0 when the first two cards differ). With a ladder, the step reached; else tie_pays."""
        if ties <= 0:
            return 0
        ladder = self.tie_ladder
        if ladder is None:
            return self.tie_pays + 1
        return ladder[min(ties, len(ladder)) - 1] + 1

    # --- bets ------------------------------------------------------------------------------

    #: Refuse stakes the table does not take, for one hand: ``validate_bet(ante, tie_bet=0)``.
    #: Codes, checked in this order: ``bet_not_integer`` (either amount not an int),
    #: ``ante_out_of_range`` (outside [min_ante, max_ante]; an ante of 0 is a tie-only bet,
    #: taken only where ``tie_only``), ``invalid_bet`` (a tie-only bet without a tie bet),
    #: ``ante_not_multiple_of_increment``, ``tie_bet_out_of_range`` (outside
    #: [0, max_tie_bet]; so any tie bet at a table without one),
    #: ``tie_bet_not_multiple_of_increment``. A tie bet of 0 means no tie bet. (The check
    #: itself, not a method calling it: every bet of the fast path is checked.)
    validate_bet = rule_checks.check_bet

    def validate_hands(self, bets: Sequence[HandBet]) -> None:
        """Refuse a round's bets: ``invalid_bet`` for a count of hands other than 1 to
        ``max_hands``, then each hand as ``validate_bet``."""
        if not 1 <= len(bets) <= self.max_hands:
            rule_checks.refuse_hand_count(self, len(bets))
        for bet in bets:
            rule_checks.check_bet(self, bet.ante, bet.tie_bet)

    def validate_war_tie_bet(self, amount: int) -> None:
        """Refuse a war tie bet: ``bet_not_integer``, else ``invalid_bet`` (not offered, out of
        [0, max_war_tie_bet], not a multiple of the increment: the detail says which); 0 is
        none."""
        rule_checks.check_war_tie_bet(self, amount)

    # --- dict form -------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The eight original rules always, in their original order; each later rule only
        when it differs from its default (``war_ties`` only for ``repeat``: bonus and push
        are ``war_tie_bonus``)."""
        # Every bet snapshots its table's rules: asdict's recursive deep copy cost more than
        # the deal; the fields are all plain values.
        data = {name: getattr(self, name) for name in ORIGINAL_RULES}
        if (
            self.max_hands != 1
            or self.war_ties is WarTies.REPEAT
            or self.max_war_tie_bet
            or self.tie_only
            or self.decision_seconds is not None
        ):
            data.update(self._later_rules())
        return data

    def _later_rules(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        if self.max_hands != 1:
            data["max_hands"] = self.max_hands
        if self.war_ties is WarTies.REPEAT:
            data["war_ties"] = WarTies.REPEAT.value
            if self.max_war_ties != DEFAULT_MAX_WAR_TIES:
                data["max_war_ties"] = self.max_war_ties
            if self.tie_ladder is not None:
                data["tie_ladder"] = list(self.tie_ladder)
        if self.max_war_tie_bet:
            if self.war_tie_pays != DEFAULTS["war_tie_pays"]:
                data["war_tie_pays"] = self.war_tie_pays
            data["max_war_tie_bet"] = self.max_war_tie_bet
        if self.tie_only:
            data["tie_only"] = True
        if self.decision_seconds is not None:
            data["decision_seconds"] = self.decision_seconds
            if self.timeout_action is not Decision.SURRENDER:
                data["timeout_action"] = self.timeout_action.value
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TableRules:
        """Rules from a mapping; missing keys take their defaults, unknown keys are refused."""
        unknown = sorted(set(data).difference(RULE_NAMES))
        if unknown:
            raise InvalidRules(
                f"unknown table rule(s): {', '.join(unknown)}",
                code="unknown_rule",
                rule=unknown[0],
            )
        return cls(**dict(data))

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> TableRules:
        """``from_dict``, built once per distinct content: every bet and decision reads its
        table's (or round's) rules as a mapping, and building them (their checks) cost a
        seventh of a bet. Keyed by the content itself, values with their types (``True`` is
        not ``1``), so a changed table is a new key and never served stale; the rules are
        frozen, so sharing one instance is safe."""
        key: tuple[Any, ...] = (tuple(data.items()), tuple(map(type, data.values())))
        try:
            return _rules_of(key, data)  # C-level key: the common rules are plain values
        except TypeError:  # unhashable: a list (the tie ladder), or a value no table has
            pass
        try:
            key = tuple((name, _frozen(value)) for name, value in data.items())
            hash(key)
        except TypeError:  # a mapping: refused by from_dict, or built uncached
            return cls.from_dict(data)
        return _rules_of(key, data)


def _frozen(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return (list, tuple(_frozen(item) for item in value))
    return (type(value), value)


def _rules_of(key: tuple[Any, ...], data: Mapping[str, Any]) -> TableRules:
    rules = _BUILT.get(key)
    if rules is None:
        rules = TableRules.from_dict(data)
        if len(_BUILT) >= _MOST_BUILT:
            _BUILT.clear()  # bounded: a deployment has a few tables, a miss only costs a build
        _BUILT[key] = rules
    return rules


_MOST_BUILT = 256
#: Rules built by ``TableRules.of``, by their content (dict operations are atomic under the
#: GIL: the worker threads of one process share it safely).
_BUILT: dict[tuple[Any, ...], TableRules] = {}


def from_shown(data: Mapping[str, Any]) -> dict[str, Any]:
    """Rules as the API shows them (a table, a round's ``rules``) in the dict form's names:
    the war tie bet ``{"enabled", "pays", "max"}`` becomes ``max_war_tie_bet`` (0 when off)
    and ``war_tie_pays``; a dict form passes unchanged."""
    rules = dict(data)
    spelled = rules.pop("war_tie_bet", None)
    if isinstance(spelled, Mapping):
        enabled = spelled.get("enabled") is True
        rules["max_war_tie_bet"] = spelled.get("max", 0) if enabled else 0
        rules["war_tie_pays"] = spelled.get("pays", DEFAULTS["war_tie_pays"])
    elif spelled is not None:
        rules["war_tie_bet"] = spelled  # refused by from_dict, naming it
    return rules


RULE_NAMES: tuple[str, ...] = tuple(f.name for f in fields(TableRules))
#: The rules of the first version: always in the dict form, in this order.
ORIGINAL_RULES: tuple[str, ...] = RULE_NAMES[:8]
DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(TableRules)}
