"""Checking table rules and the bets a table takes.

Every refusal names the rule at fault (``InvalidRules.rule``). The original rules keep their
original codes; the rules added with several hands and repeated wars are refused with the
generic ``invalid_rules`` (or ``rules_not_integer`` / ``rules_not_boolean`` for a value of
the wrong type), the rule name saying which. The bets only these rules allow (several hands,
tie-only bets, the war tie bet) are refused with the generic ``invalid_bet`` and a detail
saying why: a code of their own comes with the API that takes them (and the game client's
words for it).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any, NoReturn, Protocol

from casino.engine.cards import MAX_DECKS, MIN_DECKS
from casino.engine.casino_war.rule_values import (
    ALLOWED_TIE_PAYS,
    DEFAULT_MAX_WAR_TIES,
    MAX_DECISION_SECONDS,
    MAX_HANDS,
    MAX_LADDER_PAYS,
    MAX_WAR_TIES,
    MIN_DECISION_SECONDS,
    MIN_WAR_TIES,
    WarTies,
)
from casino.engine.casino_war.states import Decision
from casino.engine.errors import InvalidBet, InvalidRules

_INTEGER_RULES = (
    "decks",
    "tie_pays",
    "min_ante",
    "max_ante",
    "max_tie_bet",
    "bet_increment",
    "max_hands",
    "max_war_ties",
    "war_tie_pays",
    "max_war_tie_bet",
)
_BOOLEAN_RULES = ("war_tie_bonus", "surrender_allowed", "tie_only")


class Rules(Protocol):
    """The fields of ``TableRules`` the checks read."""

    @property
    def decks(self) -> int: ...
    @property
    def tie_pays(self) -> int: ...
    @property
    def war_tie_bonus(self) -> bool: ...
    @property
    def surrender_allowed(self) -> bool: ...
    @property
    def min_ante(self) -> int: ...
    @property
    def max_ante(self) -> int: ...
    @property
    def max_tie_bet(self) -> int: ...
    @property
    def bet_increment(self) -> int: ...
    @property
    def max_hands(self) -> int: ...
    @property
    def war_ties(self) -> WarTies | None: ...
    @property
    def max_war_ties(self) -> int: ...
    @property
    def tie_ladder(self) -> tuple[int, ...] | None: ...
    @property
    def war_tie_pays(self) -> int: ...
    @property
    def max_war_tie_bet(self) -> int: ...
    @property
    def tie_only(self) -> bool: ...
    @property
    def decision_seconds(self) -> int | None: ...
    @property
    def timeout_action(self) -> Decision: ...
    def most_cards(self, hands: int | None = None) -> int: ...


def _is_int(value: object) -> bool:
    return type(value) is int


def _refuse(rule: str, detail: str, code: str = "invalid_rules") -> NoReturn:
    raise InvalidRules(detail, code=code, rule=rule)


# --- the rules --------------------------------------------------------------------------------


def normalised(rules: Rules) -> Mapping[str, Any]:
    """The fields to set on new rules so that every spelling of a rule is one value: text
    choices become enums, a ladder list a tuple, and ``war_ties`` and ``war_tie_bonus`` say
    the same (a contradiction between them is refused)."""
    changes: dict[str, Any] = {}
    war_ties = rules.war_ties
    if war_ties is not None and not isinstance(war_ties, WarTies):
        try:
            war_ties = WarTies(war_ties)
        except ValueError:
            _refuse("war_ties", f"war_ties must be one of {[w.value for w in WarTies]}")
    bonus = rules.war_tie_bonus
    if not isinstance(bonus, bool):
        _refuse("war_tie_bonus", "war_tie_bonus must be true or false", "rules_not_boolean")
    if war_ties is None:
        war_ties = WarTies.BONUS if bonus else WarTies.PUSH
    elif bonus and war_ties is not WarTies.BONUS:
        _refuse("war_ties", f"war_ties {war_ties.value} contradicts war_tie_bonus: true")
    changes["war_ties"] = war_ties
    changes["war_tie_bonus"] = war_ties is WarTies.BONUS
    ladder = rules.tie_ladder
    if ladder is not None:
        if not isinstance(ladder, list | tuple) or not all(_is_int(k) for k in ladder):
            _refuse("tie_ladder", "tie_ladder must be a list of whole numbers (k in k to 1)")
        changes["tie_ladder"] = tuple(ladder)
    action = rules.timeout_action
    if not isinstance(action, Decision):
        try:
            action = Decision(action)
        except ValueError:
            _refuse("timeout_action", f"timeout_action must be {Decision.SURRENDER.value}")
        changes["timeout_action"] = action
    return changes


def check_rules(rules: Rules) -> None:
    """Refuse rules the engine cannot deal or pay; see docs/fairness.md for what each means."""
    for name in _INTEGER_RULES:
        if not _is_int(getattr(rules, name)):
            _refuse(name, f"{name} must be an integer", "rules_not_integer")
    for name in _BOOLEAN_RULES:
        if not isinstance(getattr(rules, name), bool):
            _refuse(name, f"{name} must be true or false", "rules_not_boolean")
    _check_original_rules(rules)
    _check_hands_and_wars(rules)
    _check_side_bets(rules)
    _check_clock(rules)
    size = 52 * rules.decks
    if rules.most_cards() > size:
        rule = "max_war_ties" if rules.war_ties is WarTies.REPEAT else "max_hands"
        _refuse(
            rule,
            f"a round of {rules.max_hands} hands may need {rules.most_cards()} cards, more "
            f"than the {size} of a {rules.decks}-deck shoe: fewer hands or war ties, or more "
            "decks",
        )


def _check_original_rules(rules: Rules) -> None:
    if not MIN_DECKS <= rules.decks <= MAX_DECKS:
        _refuse(
            "decks",
            f"decks must be {MIN_DECKS} to {MAX_DECKS}, not {rules.decks}",
            "decks_out_of_range",
        )
    if rules.tie_pays not in ALLOWED_TIE_PAYS:
        _refuse(
            "tie_pays",
            f"tie bet pays one of {ALLOWED_TIE_PAYS} to 1, not {rules.tie_pays}",
            "tie_pays_not_allowed",
        )
    inc = rules.bet_increment
    # Even, so that half an ante (surrender) is always a whole number of minor units.
    if inc < 2 or inc % 2:
        _refuse(
            "bet_increment",
            f"bet increment must be an even number >= 2, not {inc}",
            "bet_increment_invalid",
        )
    if rules.min_ante <= 0 or rules.min_ante % inc:
        _refuse(
            "min_ante",
            f"minimum ante must be a positive multiple of the increment {inc}",
            "min_ante_invalid",
        )
    if rules.max_ante < rules.min_ante or rules.max_ante % inc:
        _refuse(
            "max_ante",
            f"maximum ante must be a multiple of {inc} and at least the minimum",
            "max_ante_invalid",
        )
    if rules.max_tie_bet < 0 or rules.max_tie_bet % inc:
        _refuse(
            "max_tie_bet",
            f"maximum tie bet must be 0 (no tie bet) or a positive multiple of {inc}",
            "max_tie_bet_invalid",
        )


def _check_hands_and_wars(rules: Rules) -> None:
    if not 1 <= rules.max_hands <= MAX_HANDS:
        _refuse("max_hands", f"max_hands must be 1 to {MAX_HANDS}, not {rules.max_hands}")
    repeat = rules.war_ties is WarTies.REPEAT
    if repeat and not MIN_WAR_TIES <= rules.max_war_ties <= MAX_WAR_TIES:
        _refuse(
            "max_war_ties",
            f"max_war_ties must be {MIN_WAR_TIES} to {MAX_WAR_TIES} (the first deal's tie "
            f"counts as the first), not {rules.max_war_ties}",
        )
    if not repeat and rules.max_war_ties != DEFAULT_MAX_WAR_TIES:
        _refuse("max_war_ties", "max_war_ties is a rule of war_ties repeat only")
    ladder = rules.tie_ladder
    if ladder is None:
        return
    if not repeat:
        _refuse("tie_ladder", "a tie ladder needs war_ties repeat: only repeated wars tie again")
    if rules.max_tie_bet <= 0:
        _refuse("tie_ladder", "a tie ladder needs a tie bet (max_tie_bet > 0)")
    if len(ladder) != rules.max_war_ties:
        _refuse(
            "tie_ladder",
            f"the tie ladder has one pay per number of consecutive ties, 1 to max_war_ties: "
            f"{rules.max_war_ties} steps, not {len(ladder)}",
        )
    if ladder[0] != rules.tie_pays:
        _refuse(
            "tie_ladder",
            f"the ladder's first step is the tie bet's pay, tie_pays ({rules.tie_pays} to 1)",
        )
    if any(not 1 <= k <= MAX_LADDER_PAYS for k in ladder) or any(
        a > b for a, b in itertools.pairwise(ladder)
    ):
        _refuse(
            "tie_ladder",
            f"the ladder's steps must be 1 to {MAX_LADDER_PAYS} to 1 and never fall",
        )


def _check_side_bets(rules: Rules) -> None:
    inc = rules.bet_increment
    if rules.max_war_tie_bet < 0 or rules.max_war_tie_bet % inc:
        _refuse(
            "max_war_tie_bet",
            f"maximum war tie bet must be 0 (no war tie bet) or a positive multiple of {inc}",
        )
    if rules.war_tie_pays not in ALLOWED_TIE_PAYS:
        _refuse(
            "war_tie_pays",
            f"the war tie bet pays one of {ALLOWED_TIE_PAYS} to 1, not {rules.war_tie_pays}",
        )
    if rules.max_war_tie_bet == 0 and rules.war_tie_pays != ALLOWED_TIE_PAYS[0]:
        _refuse("war_tie_pays", "war_tie_pays is a rule of a table with a war tie bet")
    if rules.tie_only and rules.max_tie_bet <= 0:
        _refuse("tie_only", "tie-only bets need a tie bet (max_tie_bet > 0)")


def _check_clock(rules: Rules) -> None:
    seconds = rules.decision_seconds
    if seconds is None:
        if rules.timeout_action is not Decision.SURRENDER:
            _refuse("timeout_action", "timeout_action is a rule of a table with a decision clock")
        return
    if not _is_int(seconds) or not MIN_DECISION_SECONDS <= seconds <= MAX_DECISION_SECONDS:
        _refuse(
            "decision_seconds",
            f"decision_seconds must be null (no clock) or {MIN_DECISION_SECONDS} to "
            f"{MAX_DECISION_SECONDS}",
        )
    # A clock that went to war for the player would stake the raise without the player:
    # no autoplay for money, so the timeout can only surrender.
    if rules.timeout_action is not Decision.SURRENDER:
        _refuse("timeout_action", "the decision clock can only surrender for the player")
    if not rules.surrender_allowed:
        _refuse(
            "decision_seconds",
            "a decision clock surrenders for the player: it needs surrender_allowed",
        )


# --- the bets ---------------------------------------------------------------------------------


def check_bet(rules: Rules, ante: int, tie_bet: int = 0) -> None:
    """One hand's stakes (``TableRules.validate_bet``; its comment lists the codes)."""
    if type(ante) is not int or type(tie_bet) is not int:
        raise InvalidBet("bets must be whole numbers of minor units", code="bet_not_integer")
    inc = rules.bet_increment
    if ante == 0 and rules.tie_only:
        if tie_bet <= 0:
            raise InvalidBet(
                "a hand without an ante is a tie bet alone: it needs a tie bet",
                code="invalid_bet",
            )
    elif not rules.min_ante <= ante <= rules.max_ante:
        raise InvalidBet(
            f"ante must be between {rules.min_ante} and {rules.max_ante}, not {ante}",
            code="ante_out_of_range",
        )
    if ante % inc:
        raise InvalidBet(
            f"ante must be a multiple of {inc}, not {ante}",
            code="ante_not_multiple_of_increment",
        )
    if not 0 <= tie_bet <= rules.max_tie_bet:
        raise InvalidBet(
            f"tie bet must be between 0 and {rules.max_tie_bet}, not {tie_bet}",
            code="tie_bet_out_of_range",
        )
    if tie_bet % inc:
        raise InvalidBet(
            f"tie bet must be a multiple of {inc}, not {tie_bet}",
            code="tie_bet_not_multiple_of_increment",
        )


def refuse_hand_count(rules: Rules, count: int) -> NoReturn:
    raise InvalidBet(
        f"a round at this table plays 1 to {rules.max_hands} hand(s), not {count}",
        code="invalid_bet",
    )


def check_war_tie_bet(rules: Rules, amount: int) -> None:
    if type(amount) is not int:
        raise InvalidBet("bets must be whole numbers of minor units", code="bet_not_integer")
    if amount and rules.max_war_tie_bet <= 0:
        raise InvalidBet("this table has no war tie bet", code="invalid_bet")
    if not 0 <= amount <= rules.max_war_tie_bet:
        raise InvalidBet(
            f"war tie bet must be between 0 and {rules.max_war_tie_bet}, not {amount}",
            code="invalid_bet",
        )
    if amount % rules.bet_increment:
        raise InvalidBet(
            f"war tie bet must be a multiple of {rules.bet_increment}, not {amount}",
            code="invalid_bet",
        )
