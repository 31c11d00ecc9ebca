"""A bettor's stake in a shared round, their decision on a tie, and how it settles.

Every bettor's ante and tie bet ride on the round's common cards, and each tied bettor
decides for themself. Settlement is the private engine's own: a bettor is one ``Hand``
(``casino_war.hand``), settled on the round's cards exactly as a private one-hand round dealt
those cards would settle it (the tests hold the two to each other), in integer minor units.

Bets and decisions here are checked against the table's rules only; whether the round still
takes them (the betting window, the decision window) is the round's (``dealer``).

A second bet by the same bettor on the same round **adds to the first**: the sums must make
one valid bet under the table's limits, else the second bet is refused whole and the first
stands (``add_bet``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from casino.engine.casino_war import (
    DecidedBy,
    Decision,
    HandDecision,
    HandResult,
    HandStatus,
    TableRules,
)
from casino.engine.casino_war.hand import Hand
from casino.engine.errors import IllegalAction, InvalidBet
from casino.engine.shared.shoe import ShoeRound

BETTOR_MAX = 64


@dataclass(frozen=True)
class SharedBet:
    """One bettor's stake in a round (``ante`` 0 for a tie bet alone, where the table takes
    one) and, once made, their decision on a tie (with the war tie bet placed with a war)."""

    bettor: str
    ante: int
    tie_bet: int = 0
    decision: HandDecision | None = None

    @property
    def stake(self) -> int:
        """Staked before the deal: the raise and the war tie bet come with a war."""
        return self.ante + self.tie_bet

    def to_dict(self) -> dict[str, Any]:
        return {
            "bettor": self.bettor,
            "ante": self.ante,
            "tie_bet": self.tie_bet,
            "decision": None if self.decision is None else self.decision.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SharedBet:
        decision = data.get("decision")
        return cls(
            bettor=data["bettor"],
            ante=data["ante"],
            tie_bet=data.get("tie_bet", 0),
            decision=None if decision is None else HandDecision.from_dict(decision),
        )


def add_bet(
    rules: TableRules, existing: SharedBet | None, bettor: str, ante: int, tie_bet: int = 0
) -> SharedBet:
    """The bettor's stake after this bet: the first one, or the sum with ``existing``.

    Refused (``InvalidBet``, the codes of ``TableRules.validate_bet``; ``invalid_bet`` for a
    bet of nothing or a negative amount) when the sums are not one valid bet; nothing changes
    then."""
    if not isinstance(bettor, str) or not 1 <= len(bettor) <= BETTOR_MAX:
        raise InvalidBet(f"a bettor is named by 1 to {BETTOR_MAX} characters")
    if type(ante) is not int or type(tie_bet) is not int:
        raise InvalidBet("bets must be whole numbers of minor units", code="bet_not_integer")
    if ante < 0 or tie_bet < 0 or ante + tie_bet == 0:
        raise InvalidBet("a bet stakes a positive amount", code="invalid_bet")
    if existing is not None:
        if existing.bettor != bettor:
            raise InvalidBet("a bet adds only to the same bettor's bet", code="invalid_bet")
        if existing.decision is not None:
            raise IllegalAction("the round is past its bets", code="betting_closed")
        ante += existing.ante
        tie_bet += existing.tie_bet
    rules.validate_bet(ante, tie_bet)
    return SharedBet(bettor, ante, tie_bet)


def awaits_decision(dealt: ShoeRound, bet: SharedBet) -> bool:
    """Whether the bettor has a decision to make on this round: a tie, an ante, none yet."""
    return dealt.is_tie and bet.ante > 0 and bet.decision is None


def decide_bet(
    rules: TableRules,
    dealt: ShoeRound,
    bet: SharedBet,
    action: Decision | str,
    *,
    war_tie_bet: int = 0,
    decided_by: DecidedBy | str = DecidedBy.PLAYER,
) -> SharedBet:
    """The bet with the bettor's decision on the tie. Refused with ``IllegalAction``:
    ``round_not_awaiting_decision`` (no tie, no ante, or decided already: a decision is
    final), ``unknown_decision``, ``surrender_not_allowed``, ``illegal_action`` (a war tie bet
    with a surrender; a timeout other than the table's); or ``InvalidBet`` for the war tie bet
    (``TableRules.validate_war_tie_bet``)."""
    if not awaits_decision(dealt, bet):
        raise IllegalAction(
            "this bet has no decision to make: only an ante on a tied round asks for one, "
            "and only once",
            code="round_not_awaiting_decision",
        )
    try:
        choice = Decision(action)
    except ValueError:
        raise IllegalAction(f"unknown decision {action!r}", code="unknown_decision") from None
    by = DecidedBy(decided_by)
    if choice is Decision.SURRENDER:
        if not rules.surrender_allowed:
            raise IllegalAction("this table does not allow surrender", code="surrender_not_allowed")
        if war_tie_bet:
            raise IllegalAction(
                "a war tie bet is placed with the decision to go to war", code="illegal_action"
            )
    else:
        rules.validate_war_tie_bet(war_tie_bet)
    if by is DecidedBy.TIMEOUT and choice is not rules.timeout_action:
        raise IllegalAction(
            f"the decision clock only ever decides {rules.timeout_action.value}",
            code="illegal_action",
        )
    return SharedBet(bet.bettor, bet.ante, bet.tie_bet, HandDecision(choice, by, war_tie_bet))


def timed_out(rules: TableRules) -> HandDecision:
    """The decision the clock takes for a bettor who did not decide in time."""
    return HandDecision(rules.timeout_action, DecidedBy.TIMEOUT)


def settle_bet(rules: TableRules, dealt: ShoeRound, bet: SharedBet) -> HandResult:
    """The bettor's result on the round's cards, as a private one-hand round dealt these
    cards pays it (``HandResult``: bets, amounts returned, labels, net). A tied ante without a
    decision is decided by the clock (the table's timeout action), as when the decision
    window closes; call this once the round's decisions are over."""
    rules.validate_bet(bet.ante, bet.tie_bet)
    hand = Hand(0, rules, bet.ante, bet.tie_bet, dealt.player, dealt.dealer)
    if hand.status is HandStatus.AWAITING_DECISION:
        decision = bet.decision or timed_out(rules)
        if decision.action is Decision.WAR:
            hand.go_to_war(decision)
            for war in dealt.wars:
                if not hand.fight(war.player_card, war.dealer_card):
                    break
        else:
            hand.surrender(decision)
    elif bet.decision is not None:
        raise IllegalAction(
            "a decision on a bet that had none to make: the record and the cards disagree",
            code="round_not_awaiting_decision",
        )
    return hand.result()
