"""A round's recall (``RoundView``) from its stored record, in both forms at once.

A round in the one-hand shape is stored in its flat columns (``player_card``, ``war``...),
a round in the hands shape as ``TableRoundResult.to_dict()`` in ``hands`` (with its totals
in the flat columns). Every recall carries the one-hand fields (hand 0's) and the hands
shape, so a client of the first version and one of several hands both read every round,
and the verifier checks either (docs/fairness.md sections 6 and 14).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from casino.engine.cards import Card
from casino.engine.casino_war import (
    HAND_BET_NAMES,
    BetOutcome,
    HandStatus,
    Outcome,
    RoundStatus,
    bet_outcome,
    bet_outcomes,
)
from casino.service.views import RoundView
from casino.store.records import RoundRecord, RoundRow

SETTLED = RoundStatus.SETTLED.value
AWAITING = HandStatus.AWAITING_DECISION.value
_PENDING = BetOutcome.PENDING.value


def _rank(code: str) -> int:
    return int(Card.parse(code).rank)


def _one_hand_outcome(record: RoundRecord) -> tuple[int, str | None]:
    """(consecutive ties, outcome) of a round stored in the one-hand shape."""
    player, dealer = _rank(record.player_card), _rank(record.dealer_card)
    if player != dealer:
        return 0, (Outcome.WIN if player > dealer else Outcome.LOSS).value
    if record.ante == 0:
        return 1, Outcome.TIE.value
    if record.decision is None:
        return 1, None
    if record.decision == "surrender":
        return 1, Outcome.SURRENDER.value
    war = record.war
    if war is None:  # a war decided but not dealt is never stored
        return 1, None
    ours, theirs = _rank(war["player_card"]), _rank(war["dealer_card"])
    if ours == theirs:
        return 2, Outcome.WAR_TIE.value
    return 1, (Outcome.WAR_WIN if ours > theirs else Outcome.WAR_LOSS).value


def _one_hand(record: RoundRecord, decision: dict[str, str] | None) -> dict[str, Any]:
    bets = {"ante": record.ante, "tie_bet": record.tie_bet, "raise": record.raise_amount}
    paid = {
        "ante": record.ante_payout,
        "tie_bet": record.tie_bet_payout,
        "raise": record.raise_payout,
    }
    labels = bet_outcomes(bets, paid, settled=record.status == SETTLED)
    ties, outcome = _one_hand_outcome(record)
    return {
        "hand": 0,
        "card": record.player_card,
        "status": SETTLED if record.status == SETTLED else AWAITING,
        "decision": decision,
        "ties": ties,
        "outcome": outcome,
        "bets": {**bets, "war_tie_bet": 0},
        "payouts": {**paid, "war_tie_bet": 0},
        "outcomes": {
            **{name: label.value for name, label in labels.items()},
            "war_tie_bet": BetOutcome.NONE.value,
        },
        "net": int(record.net),
    }


def _one_hand_wars(record: RoundRecord) -> list[dict[str, Any]]:
    war = record.war
    if war is None:
        return []
    return [
        {
            "burns": list(war["burns"]),
            "cards": [{"hand": 0, "card": war["player_card"]}],
            "dealer_card": war["dealer_card"],
        }
    ]


def _totals_labels(hands: list[dict[str, Any]], bets: dict[str, int], paid: dict[str, int]):
    """Per bet, every hand's together: pending while any hand's is."""
    labels = {}
    for name in HAND_BET_NAMES:
        if any(hand["outcomes"][name] == _PENDING for hand in hands):
            labels[name] = _PENDING
        else:
            labels[name] = bet_outcome(bets[name], paid[name]).value
    return labels


def _hand0_war(hands: list[dict[str, Any]], wars: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Hand 0's first war in the one-hand form."""
    for war in wars:
        for item in war["cards"]:
            if item["hand"] == 0:
                return {
                    "burns": list(war["burns"]),
                    "player_card": item["card"],
                    "dealer_card": war["dealer_card"],
                }
    return None


def round_view(row: RoundRow, reality_check: dict[str, Any] | None = None) -> RoundView:
    """``reality_check``: the one due now (in the player's answers: bets, decisions and their
    own recall; None for an operator's read)."""
    record = row.round
    stored = record.hands
    if stored is None:
        decision: dict[str, str] | None = None
        if record.decision is not None:
            decision = {"action": record.decision, "decided_by": record.decided_by or "player"}
        hand = _one_hand(record, decision)
        hands, wars, dealing = [hand], _one_hand_wars(record), "classic"
        bets, payouts = hand["bets"], hand["payouts"]
        outcomes = hand["outcomes"]
        war = record.war
    else:
        hands, wars, dealing = list(stored["hands"]), list(stored["wars"]), stored["dealing"]
        bets, payouts = dict(stored["bets"]), dict(stored["payouts"])
        outcomes = _totals_labels(hands, bets, payouts)
        decision = hands[0]["decision"]
        war = _hand0_war(hands, wars)
    awaiting = [int(hand["hand"]) for hand in hands if hand["status"] == AWAITING]
    deadline: datetime | None = record.decision_deadline if awaiting else None
    return RoundView(
        id=record.id,
        player_id=record.player_id,
        table_id=record.table_id,
        status=record.status,
        player_card=record.player_card,
        dealer_card=record.dealer_card,
        war=war,
        decision=decision,
        bets=bets,
        payouts=payouts,
        net=int(record.net),
        balance_after=int(record.balance_after),
        currency=record.currency,
        fairness={
            "server_seed_hash": row.seed_hash,
            "client_seed": record.client_seed,
            "nonce": int(record.nonce),
            "server_seed": row.revealed,
        },
        transaction_ids=row.transaction_ids,
        created_at=record.created_at,
        settled_at=record.settled_at,
        rules=dict(record.rules),
        outcomes=outcomes,
        reality_check=reality_check,
        dealing=dealing,
        hands=hands,
        wars=wars,
        awaiting_hands=awaiting,
        decision_deadline=deadline,
    )
