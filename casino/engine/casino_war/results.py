"""What a Casino War round records: its decisions, its wars, each hand's bets and returns,
and the round's totals, with their dict forms.

Two shapes (``RecordShape``, chosen by the table's rules):

* ``one_hand``: the shape of every round stored before several hands existed,
  ``RoundResult.to_dict()`` (``player_card``, ``dealer_card``, ``war``, ``decision``,
  ``outcome``, ``bets``, ``payouts``, ``outcomes``, ``net``, ``tie_bet_won``);
* ``hands``: ``dealing``, ``dealer_card``, ``hands`` (one entry per hand: its card, status,
  decision, consecutive ties, outcome, bets, payouts, labels and net), ``wars`` (every war
  dealt: its burns, the card of each hand at war, the dealer's card) and the round's totals
  ``bets``, ``payouts``, ``net``.

docs/fairness.md (section 14) gives both with examples.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from casino.engine.cards import Card
from casino.engine.casino_war.bets import (
    HAND_BET_NAMES,
    BetOutcome,
    HandBet,
    HandBets,
    bet_outcome,
    bet_outcomes,
)
from casino.engine.casino_war.rule_values import Dealing, RecordShape
from casino.engine.casino_war.states import DecidedBy, Decision, HandStatus, Outcome, RoundStatus


@dataclass(frozen=True)
class HandDecision:
    """A tied hand's decision: surrender or war, who made it, and the war tie bet placed
    with it (war only)."""

    action: Decision
    decided_by: DecidedBy = DecidedBy.PLAYER
    war_tie_bet: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action.value,
            "decided_by": self.decided_by.value,
            "war_tie_bet": self.war_tie_bet,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HandDecision:
        return cls(
            Decision(data["action"]),
            DecidedBy(data.get("decided_by", DecidedBy.PLAYER.value)),
            data.get("war_tie_bet", 0),
        )


@dataclass(frozen=True)
class RoundInputs:
    """Everything a stored round is rebuilt from besides its rules and seeds: each hand's
    bets and, once made, its decision (``replay_table_round``)."""

    bets: tuple[HandBet, ...]
    decisions: tuple[HandDecision | None, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "hands": [
                {**bet.to_dict(), "decision": None if choice is None else choice.to_dict()}
                for bet, choice in zip(self.bets, self.decisions, strict=True)
            ]
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RoundInputs:
        hands = data["hands"]
        return cls(
            tuple(HandBet.from_dict(hand) for hand in hands),
            tuple(
                None if hand.get("decision") is None else HandDecision.from_dict(hand["decision"])
                for hand in hands
            ),
        )


@dataclass(frozen=True)
class WarDeal:
    """One war: its three burns, a card to each hand at war (hand index, card) in hand order,
    then the one dealer card for all of them."""

    burns: tuple[Card, ...]
    cards: tuple[tuple[int, Card], ...]
    dealer_card: Card

    def card_of(self, hand: int) -> Card | None:
        return next((card for index, card in self.cards if index == hand), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "burns": [card.code for card in self.burns],
            "cards": [{"hand": index, "card": card.code} for index, card in self.cards],
            "dealer_card": self.dealer_card.code,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WarDeal:
        return cls(
            burns=tuple(Card.parse(code) for code in data["burns"]),
            cards=tuple((int(item["hand"]), Card.parse(item["card"])) for item in data["cards"]),
            dealer_card=Card.parse(data["dealer_card"]),
        )


@dataclass(frozen=True)
class HandResult:
    """One hand as it stands. ``ties``: consecutive ties reached (0 when its first card
    differs from the dealer's; the first deal's tie is the first). ``pending``: the bets
    placed and not settled yet. ``outcome`` is None until the hand is settled."""

    hand: int
    card: Card
    status: HandStatus
    decision: HandDecision | None
    ties: int
    outcome: Outcome | None
    bets: HandBets
    payouts: HandBets
    pending: frozenset[str] = frozenset()

    @property
    def net(self) -> int:
        return self.payouts.total - self.bets.total

    @property
    def outcomes(self) -> dict[str, BetOutcome]:
        stakes, paid = self.bets.to_dict(), self.payouts.to_dict()
        return {
            name: bet_outcome(stakes[name], paid[name], settled=name not in self.pending)
            for name in HAND_BET_NAMES
        }

    def to_dict(self) -> dict[str, Any]:
        decision = self.decision
        return {
            "hand": self.hand,
            "card": self.card.code,
            "status": self.status.value,
            "decision": None
            if decision is None
            else {"action": decision.action.value, "decided_by": decision.decided_by.value},
            "ties": self.ties,
            "outcome": None if self.outcome is None else self.outcome.value,
            "bets": self.bets.to_dict(),
            "payouts": self.payouts.to_dict(),
            "outcomes": {name: label.value for name, label in self.outcomes.items()},
            "net": self.net,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HandResult:
        """Inverse of ``to_dict`` (``net`` is derived; the labels only say what is pending)."""
        bets = HandBets.from_dict(data["bets"])
        decision = data.get("decision")
        outcome = data.get("outcome")
        return cls(
            hand=int(data["hand"]),
            card=Card.parse(data["card"]),
            status=HandStatus(data["status"]),
            decision=None
            if decision is None
            else HandDecision(
                Decision(decision["action"]),
                DecidedBy(decision.get("decided_by", DecidedBy.PLAYER.value)),
                bets.war_tie_bet,
            ),
            ties=int(data["ties"]),
            outcome=None if outcome is None else Outcome(outcome),
            bets=bets,
            payouts=HandBets.from_dict(data["payouts"]),
            pending=frozenset(
                name
                for name, label in data.get("outcomes", {}).items()
                if label == BetOutcome.PENDING.value
            ),
        )


def _total(parts: Sequence[HandBets]) -> HandBets:
    total = HandBets()
    for part in parts:
        total = total + part
    return total


@dataclass(frozen=True)
class TableRoundResult:
    """A round as it stands (``status``), settled or waiting for decisions: the dealer's
    card, every hand, every war, and the totals. ``shape`` says which dict form it has."""

    shape: RecordShape
    dealing: Dealing
    status: RoundStatus
    dealer_card: Card
    hands: tuple[HandResult, ...]
    wars: tuple[WarDeal, ...]

    @property
    def bets(self) -> HandBets:
        return _total([hand.bets for hand in self.hands])

    @property
    def payouts(self) -> HandBets:
        return _total([hand.payouts for hand in self.hands])

    @property
    def net(self) -> int:
        return sum(hand.net for hand in self.hands)

    @property
    def stake(self) -> int:
        """Everything staked on the round so far, every bet of every hand."""
        return self.bets.total

    def to_dict(self) -> dict[str, Any]:
        if self.shape is RecordShape.ONE_HAND:
            return self.one_hand_dict()
        return {
            "dealing": self.dealing.value,
            "dealer_card": self.dealer_card.code,
            "hands": [hand.to_dict() for hand in self.hands],
            "wars": [war.to_dict() for war in self.wars],
            "bets": self.bets.to_dict(),
            "payouts": self.payouts.to_dict(),
            "net": self.net,
        }

    def one_hand_dict(self) -> dict[str, Any]:
        """The one-hand shape (``RoundResult.to_dict()`` once settled); only for a round of
        one hand with at most one war and no war tie bet."""
        (hand,) = self.hands
        if len(self.wars) > 1 or hand.bets.war_tie_bet:
            raise ValueError("the one-hand shape holds one war and no war tie bet")
        war = None
        if self.wars:
            (dealt,) = self.wars
            war = {
                "burns": [card.code for card in dealt.burns],
                "player_card": dealt.cards[0][1].code,
                "dealer_card": dealt.dealer_card.code,
            }
        stakes = {"ante": hand.bets.ante, "tie_bet": hand.bets.tie_bet, "raise": hand.bets.raise_}
        paid = {
            "ante": hand.payouts.ante,
            "tie_bet": hand.payouts.tie_bet,
            "raise": hand.payouts.raise_,
        }
        settled = self.status is RoundStatus.SETTLED
        return {
            "player_card": hand.card.code,
            "dealer_card": self.dealer_card.code,
            "war": war,
            "decision": None if hand.decision is None else hand.decision.action.value,
            "outcome": None if hand.outcome is None else hand.outcome.value,
            "bets": stakes,
            "payouts": paid,
            "outcomes": {
                name: label.value
                for name, label in bet_outcomes(stakes, paid, settled=settled).items()
            },
            "net": hand.net,
            "tie_bet_won": paid["tie_bet"] > 0,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TableRoundResult:
        """Inverse of ``to_dict`` for the hands shape (the totals are derived). A one-hand
        dict is read with ``RoundResult.from_dict``."""
        if "hands" not in data:
            raise ValueError("not the hands shape: read a one-hand round with RoundResult")
        hands = tuple(HandResult.from_dict(hand) for hand in data["hands"])
        settled = all(hand.status is HandStatus.SETTLED for hand in hands)
        return cls(
            shape=RecordShape.HANDS,
            dealing=Dealing(data["dealing"]),
            status=RoundStatus.SETTLED if settled else RoundStatus.AWAITING_DECISION,
            dealer_card=Card.parse(data["dealer_card"]),
            hands=hands,
            wars=tuple(WarDeal.from_dict(war) for war in data["wars"]),
        )
