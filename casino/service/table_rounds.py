"""Rounds in the hands shape: several hands, repeated wars, the war tie bet (issue 21).

The table's rules choose the shape (``TableRules.record_shape``); a round in this shape is
played by the engine's ``TableRound`` and stored as its ``TableRoundResult.to_dict()`` in
``rounds.hands``, with the totals of every hand in the flat columns (``ante`` is every
hand's ante...), so limits, reports and the ledger see the round's total stake.

Money: each request is one transaction (``table_round_legs``): the stakes it places leave
the wallet; what stays unsettled (an ante awaiting its decision, a raise and a war tie bet
waiting for the other hands, a ladder tie bet until its hand's last war) is held in play;
what settles goes to the house, which pays back what the settled bets return. The audit
checks exactly that (casino.ledger.audit_rounds).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from casino.engine.casino_war import (
    HAND_BET_NAMES,
    BetOutcome,
    DecidedBy,
    Decision,
    HandBet,
    HandBets,
    HandDecision,
    HandResult,
    HandStatus,
    RoundInputs,
    TableRound,
    TableRoundResult,
    TableRules,
    replay_table_round,
)
from casino.engine.errors import IllegalAction
from casino.ledger.accounts import SystemAccounts
from casino.ledger.legs import Leg
from casino.ledger.settlement import table_round_legs

_PENDING = BetOutcome.PENDING
_AWAITING = HandStatus.AWAITING_DECISION


def held(result: TableRoundResult) -> int:
    """What of the round's stakes is not settled yet (held in play)."""
    total = 0
    for hand in result.hands:
        labels = hand.outcomes
        stakes = hand.bets.to_dict()
        total += sum(stakes[name] for name in HAND_BET_NAMES if labels[name] is _PENDING)
    return total


@dataclass(frozen=True)
class Movement:
    """What one request of a round moves: new stakes, the change of what is held in play,
    and what the bets settled by it return."""

    staked: int
    held_change: int
    returned: int

    def legs(self, accounts: SystemAccounts, wallet: str) -> list[Leg]:
        return table_round_legs(accounts, wallet, self.staked, self.held_change, self.returned)


def movement(before: TableRoundResult | None, after: TableRoundResult) -> Movement:
    if before is None:
        return Movement(after.bets.total, held(after), after.payouts.total)
    return Movement(
        after.bets.total - before.bets.total,
        held(after) - held(before),
        after.payouts.total - before.payouts.total,
    )


def columns(result: TableRoundResult) -> dict[str, Any]:
    """The round's flat columns: every hand's bets and payouts together, hand 0's card and
    decision, and the round itself in the hands shape."""
    bets: HandBets = result.bets
    paid: HandBets = result.payouts
    first = result.hands[0]
    decision = first.decision
    return {
        "status": result.status.value,
        "ante": bets.ante,
        "tie_bet": bets.tie_bet,
        "raise_amount": bets.raise_,
        "war_tie_bet": bets.war_tie_bet,
        "player_card": first.card.code,
        "dealer_card": result.dealer_card.code,
        "war": None,
        "decision": None if decision is None else decision.action.value,
        "decided_by": None if decision is None else decision.decided_by.value,
        "ante_payout": paid.ante,
        "tie_bet_payout": paid.tie_bet,
        "raise_payout": paid.raise_,
        "war_tie_bet_payout": paid.war_tie_bet,
        "net": result.net,
        "hands": result.to_dict(),
    }


def stored_inputs(hands: Mapping[str, Any]) -> RoundInputs:
    """What a stored round is rebuilt from: each hand's bets and recorded decision."""
    results = [HandResult.from_dict(hand) for hand in hands["hands"]]
    return RoundInputs(
        tuple(HandBet(hand.bets.ante, hand.bets.tie_bet) for hand in results),
        tuple(hand.decision for hand in results),
    )


def replay(
    rules: TableRules, server_seed: bytes, client_seed: str, nonce: int, hands: Mapping[str, Any]
) -> TableRound:
    return replay_table_round(rules, server_seed, client_seed, nonce, stored_inputs(hands))


def choices(
    decisions: Mapping[int, tuple[str, int]], decided_by: str
) -> dict[int, HandDecision | str]:
    """The request's decisions as the engine takes them (``unknown_decision`` for an action
    that is none)."""
    out: dict[int, HandDecision | str] = {}
    for hand, (action, war_tie_bet) in decisions.items():
        try:
            choice = Decision(action)
        except ValueError:
            raise IllegalAction(f"unknown decision {action!r}", code="unknown_decision") from None
        out[hand] = HandDecision(choice, DecidedBy(decided_by), war_tie_bet)
    return out


def deadline(rules: TableRules, result: TableRoundResult, now: datetime) -> datetime | None:
    """When the decision clock decides the hands awaiting a decision now; None without a
    clock or without such a hand."""
    timeout = rules.decision_timeout
    if timeout is None or all(hand.status is not _AWAITING for hand in result.hands):
        return None
    return now + timeout
