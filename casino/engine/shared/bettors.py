"""What a shared round takes from its bettors while it runs, and what it pays them: bets
while the betting window is open, decisions while the decision window is, results once the
cards are all out. Pure checks against the stored ``RoundState`` and the clock; the bets
themselves are stored per bettor (``SharedBet``) by the service.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from casino.engine.casino_war import HandResult
from casino.engine.errors import IllegalAction
from casino.engine.shared.bets import SharedBet, add_bet, decide_bet, settle_bet
from casino.engine.shared.rules import SharedRules
from casino.engine.shared.shoe import SharedShoe
from casino.engine.shared.state import FINAL_CARDS, Phase, RoundState, check_clock
from casino.engine.shared.steps import round_of


def accept_bet(
    rules: SharedRules,
    state: RoundState,
    now: datetime,
    existing: SharedBet | None,
    bettor: str,
    ante: int,
    tie_bet: int = 0,
) -> SharedBet:
    """A bet on the round while its betting window is open (``existing``: the bettor's bet
    on it so far, which this one adds to). ``IllegalAction`` ``betting_closed`` once the
    window is over, whether or not the dealer has closed it yet; else ``add_bet``'s checks."""
    check_clock(now)
    if state.phase is not Phase.BETTING or now >= state.closes_at:
        raise IllegalAction(
            f"bets on round {state.round} of shoe {state.shoe} are closed",
            code="betting_closed",
        )
    return add_bet(rules.table, existing, bettor, ante, tie_bet)


def accept_decision(
    rules: SharedRules,
    state: RoundState,
    shoe: SharedShoe,
    now: datetime,
    bet: SharedBet,
    action: str,
    *,
    war_tie_bet: int = 0,
) -> SharedBet:
    """A tied bettor's decision, within the decision window: ``IllegalAction``
    ``round_not_awaiting_decision`` outside it (as for a private round that no longer waits;
    the clock surrenders for the bettor), else ``decide_bet``'s checks."""
    check_clock(now)
    if state.phase is not Phase.DECISIONS or state.deadline is None or now >= state.deadline:
        raise IllegalAction(
            f"round {state.round} of shoe {state.shoe} takes no decision now",
            code="round_not_awaiting_decision",
        )
    dealt = round_of(state, shoe)
    return decide_bet(rules.table, dealt, bet, action, war_tie_bet=war_tie_bet)


def settle_bettor(
    rules: SharedRules, state: RoundState, shoe: SharedShoe, bet: SharedBet
) -> HandResult:
    """A bettor's result, once the round's cards are all out (``dealt`` or ``war``; also
    ``settled``, to show it again)."""
    if state.phase not in FINAL_CARDS and state.phase is not Phase.SETTLED:
        raise IllegalAction(
            f"round {state.round} of shoe {state.shoe} is {state.phase.value}: its bets "
            "settle once the cards are all out",
            code="round_not_settled",
        )
    return settle_bet(rules.table, round_of(state, shoe), bet)


def settle_bettors(
    rules: SharedRules, state: RoundState, shoe: SharedShoe, bets: Iterable[SharedBet]
) -> list[HandResult]:
    return [settle_bettor(rules, state, shoe, bet) for bet in bets]
