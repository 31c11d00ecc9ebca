"""A Casino War round of one to ``max_hands`` hands, under any table rules.

Dealing (``TableRules.dealing``; docs/fairness.md, section 13): ``classic`` (one-hand
tables) deals the player's card then the dealer's; ``table`` (tables of several hands) deals
the dealer's card then one card per hand in hand order. Each hand is settled at once unless
its card ties the dealer's (and it has an ante): it then awaits its own decision, surrender
or war. When no hand awaits a decision any more, the hands at war fight one war together,
as at a land table: three burns, one card to each hand at war in hand order, then one dealer
card for all of them. With repeated wars, the hands whose war tied fight the next war the same
way. The round is settled when every hand is.

Each action comes as ``can_x()`` (a yes/no for the UI), ``verify_x()`` (raises saying why
not) and ``x()`` (verifies, then acts): ``decide`` (one hand), ``decide_many`` (several at
once, all or nothing) and ``time_out`` (every waiting hand, by the table's decision clock).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from casino.engine.cards import Card
from casino.engine.casino_war._frozen import trusted
from casino.engine.casino_war.bets import HandBet, HandBets
from casino.engine.casino_war.deal import RoundShoe
from casino.engine.casino_war.hand import Hand
from casino.engine.casino_war.results import (
    HandDecision,
    RoundInputs,
    TableRoundResult,
    WarDeal,
)
from casino.engine.casino_war.rule_values import BURNS_PER_WAR
from casino.engine.casino_war.rules import TableRules
from casino.engine.casino_war.states import DecidedBy, Decision, HandStatus, RoundStatus
from casino.engine.errors import IllegalAction

# Enum members read from module constants: a class attribute read costs more.
_AWAITING = HandStatus.AWAITING_DECISION
_AT_WAR = HandStatus.AT_WAR
_SETTLED = HandStatus.SETTLED
_ROUND_AWAITING = RoundStatus.AWAITING_DECISION
_ROUND_SETTLED = RoundStatus.SETTLED
Choice = Decision | str | HandDecision


class TableRound:
    """One round at one table. Build it with ``start`` (or ``deal``); decide the tied hands;
    read ``result`` once ``status`` is settled (``snapshot()`` any time)."""

    __slots__ = ("_next_card", "dealer_card", "hands", "rules", "shoe", "status", "wars")

    rules: TableRules
    shoe: RoundShoe
    dealer_card: Card
    hands: tuple[Hand, ...]
    wars: list[WarDeal]
    status: RoundStatus
    _next_card: int

    @classmethod
    def start(cls, rules: TableRules, shoe: RoundShoe, bets: Sequence[HandBet]) -> TableRound:
        """Place the bets and deal the first cards; settles at once unless a hand ties.

        The shoe must be of ``rules.decks`` decks; the round cannot check that.
        """
        rules.validate_hands(bets)
        self = cls.__new__(cls)
        self.rules = rules
        self.shoe = shoe
        self.wars = []
        count = len(bets)
        if rules.max_hands == 1:  # the classic procedure (TableRules.dealing)
            cards = [shoe.card(0)]
            dealer = shoe.card(1)
        else:
            dealer = shoe.card(0)
            cards = [shoe.card(1 + i) for i in range(count)]
        self.dealer_card = dealer
        self._next_card = 1 + count
        hands = tuple(
            [Hand(i, rules, bets[i].ante, bets[i].tie_bet, cards[i], dealer) for i in range(count)]
        )
        self.hands = hands
        for hand in hands:
            if hand.status is not _SETTLED:
                self.status = _ROUND_AWAITING
                break
        else:
            self.status = _ROUND_SETTLED
        return self

    @classmethod
    def deal(
        cls,
        rules: TableRules,
        server_seed: bytes,
        client_seed: str,
        nonce: int,
        bets: Sequence[HandBet],
    ) -> TableRound:
        """``start`` on the provably fair shoe of these seeds."""
        count = len(bets)
        ahead = 1 + count + BURNS_PER_WAR + count + 1  # the first cards and one war
        return cls.start(
            rules, RoundShoe(server_seed, client_seed, nonce, rules.decks, ahead), bets
        )

    # --- where the round stands ------------------------------------------------------------

    @property
    def awaiting(self) -> tuple[int, ...]:
        """The hands waiting for a decision, in hand order."""
        return tuple(hand.index for hand in self.hands if hand.status is _AWAITING)

    @property
    def bets(self) -> HandBets:
        """Everything staked so far, all hands together."""
        total = HandBets()
        for hand in self.hands:
            total = total + HandBets(hand.ante, hand.tie_bet, hand.raise_, hand.war_tie_bet)
        return total

    @property
    def payouts(self) -> HandBets:
        """Everything settled so far, all hands together (a pending bet counts 0)."""
        total = HandBets()
        for hand in self.hands:
            total = total + HandBets(
                hand.ante_payout, hand.tie_payout, hand.raise_payout, hand.war_tie_payout
            )
        return total

    @property
    def inputs(self) -> RoundInputs:
        """What the round is rebuilt from with its rules and seeds (``replay_table_round``)."""
        return RoundInputs(
            tuple(HandBet(hand.ante, hand.tie_bet) for hand in self.hands),
            tuple(hand.decision for hand in self.hands),
        )

    def snapshot(self) -> TableRoundResult:
        rules = self.rules
        return trusted(
            TableRoundResult,
            shape=rules.record_shape,
            dealing=rules.dealing,
            status=self.status,
            dealer_card=self.dealer_card,
            hands=tuple([hand.result() for hand in self.hands]),
            wars=tuple(self.wars),
        )

    @property
    def result(self) -> TableRoundResult:
        """The settled round; raises ``IllegalAction`` while a decision is pending."""
        if self.status is not _ROUND_SETTLED:
            raise IllegalAction(
                "the round is not settled: it waits for surrender or war",
                code="round_not_settled",
            )
        return self.snapshot()

    def to_dict(self) -> dict[str, object]:
        return self.snapshot().to_dict()

    # --- decisions ---------------------------------------------------------------------------

    def verify_decide(
        self,
        hand: int,
        decision: Choice,
        *,
        decided_by: DecidedBy | str = DecidedBy.PLAYER,
        war_tie_bet: int = 0,
    ) -> HandDecision:
        """The decision as it would be recorded, or the reason it cannot be made:
        ``IllegalAction`` with ``round_not_awaiting_decision`` (no hand, or not this hand,
        waits for a decision), ``unknown_decision``, ``surrender_not_allowed``, or
        ``illegal_action`` (no such hand, a war tie bet with a surrender, a timeout without
        the table's clock: the detail says which); or ``InvalidBet`` for the war tie bet
        (``TableRules.validate_war_tie_bet``)."""
        if self.status is not RoundStatus.AWAITING_DECISION:
            raise IllegalAction(
                "the round is not waiting for a decision: only a hand whose first card ties "
                "the dealer's asks for one, and only once",
                code="round_not_awaiting_decision",
            )
        choice = _decision(decision, decided_by, war_tie_bet)
        target = self._hand(hand)
        if target.status is not _AWAITING:
            raise IllegalAction(
                f"hand {hand} is not waiting for a decision", code="round_not_awaiting_decision"
            )
        rules = self.rules
        if choice.action is Decision.SURRENDER:
            if not rules.surrender_allowed:
                raise IllegalAction(
                    "this table does not allow surrender", code="surrender_not_allowed"
                )
            if choice.war_tie_bet:
                raise IllegalAction(
                    "a war tie bet is placed with the decision to go to war",
                    code="illegal_action",
                )
        else:
            rules.validate_war_tie_bet(choice.war_tie_bet)
        if choice.decided_by is DecidedBy.TIMEOUT and (
            rules.decision_seconds is None or choice.action is not rules.timeout_action
        ):
            raise IllegalAction(
                f"only the table's decision clock decides by timeout, and only "
                f"{rules.timeout_action.value}",
                code="illegal_action",
            )
        return choice

    def can_decide(self, hand: int, decision: Decision | str) -> bool:
        if self.status is not RoundStatus.AWAITING_DECISION:
            return False
        if type(hand) is not int or not 0 <= hand < len(self.hands):
            return False
        try:
            choice = Decision(decision)
        except ValueError:
            return False
        return self.hands[hand].can_decide(choice)

    def decide(
        self,
        hand: int,
        decision: Choice,
        *,
        decided_by: DecidedBy | str = DecidedBy.PLAYER,
        war_tie_bet: int = 0,
    ) -> None:
        """Decide one tied hand; once no hand waits any more, the war is dealt."""
        choice = self.verify_decide(hand, decision, decided_by=decided_by, war_tie_bet=war_tie_bet)
        self._apply(hand, choice)
        self._after_decisions()

    def verify_decide_many(
        self,
        decisions: Mapping[int, Choice],
        *,
        decided_by: DecidedBy | str = DecidedBy.PLAYER,
    ) -> dict[int, HandDecision]:
        """Every decision checked (``verify_decide``); a ``HandDecision`` value carries its
        own ``decided_by`` and war tie bet."""
        if not decisions:
            raise IllegalAction("decide at least one hand", code="illegal_action")
        checked: dict[int, HandDecision] = {}
        for hand in sorted(decisions, key=lambda h: (type(h) is not int, h)):
            value = decisions[hand]
            if isinstance(value, HandDecision):
                checked[hand] = self.verify_decide(
                    hand, value.action, decided_by=value.decided_by, war_tie_bet=value.war_tie_bet
                )
            else:
                checked[hand] = self.verify_decide(hand, value, decided_by=decided_by)
        return checked

    def decide_many(
        self,
        decisions: Mapping[int, Choice],
        *,
        decided_by: DecidedBy | str = DecidedBy.PLAYER,
    ) -> None:
        """Decide several tied hands at once: all of them, or none if one cannot be."""
        for hand, choice in self.verify_decide_many(decisions, decided_by=decided_by).items():
            self._apply(hand, choice)
        self._after_decisions()

    def can_time_out(self) -> bool:
        return self.rules.decision_seconds is not None and bool(self.awaiting)

    def verify_time_out(self) -> dict[int, HandDecision]:
        rules = self.rules
        if rules.decision_seconds is None:
            raise IllegalAction("this table has no decision clock", code="illegal_action")
        waiting = self.awaiting
        if not waiting:
            raise IllegalAction(
                "no hand is waiting for a decision", code="round_not_awaiting_decision"
            )
        action = rules.timeout_action
        return self.verify_decide_many(
            {hand: action for hand in waiting}, decided_by=DecidedBy.TIMEOUT
        )

    def time_out(self) -> None:
        """The decision clock ran out: every waiting hand takes the table's timeout action
        (surrender), recorded as decided by ``timeout``. When it ran out is the caller's to
        judge (``TableRules.decision_timeout``)."""
        for hand, choice in self.verify_time_out().items():
            self._apply(hand, choice)
        self._after_decisions()

    # --- inside --------------------------------------------------------------------------------

    def _hand(self, index: int) -> Hand:
        if type(index) is not int or not 0 <= index < len(self.hands):
            raise IllegalAction(
                f"the round has hands 0 to {len(self.hands) - 1}, not {index!r}",
                code="illegal_action",
            )
        return self.hands[index]

    def _apply(self, index: int, choice: HandDecision) -> None:
        hand = self.hands[index]
        if choice.action is Decision.WAR:
            hand.go_to_war(choice)
        else:
            hand.surrender(choice)

    def _after_decisions(self) -> None:
        hands = self.hands
        if any(hand.status is _AWAITING for hand in hands):
            return
        at_war = [hand for hand in hands if hand.status is _AT_WAR]
        while at_war:
            at_war = self._fight(at_war)
        self._update_status()

    def _fight(self, at_war: list[Hand]) -> list[Hand]:
        """Deal one war to the hands at war; the hands whose war is fought again."""
        shoe = self.shoe
        position = self._next_card
        burns = tuple(shoe.card(position + k) for k in range(BURNS_PER_WAR))
        position += BURNS_PER_WAR
        cards = []
        for hand in at_war:
            cards.append((hand.index, shoe.card(position)))
            position += 1
        dealer = shoe.card(position)
        self._next_card = position + 1
        self.wars.append(WarDeal(burns=burns, cards=tuple(cards), dealer_card=dealer))
        return [
            hand for hand, (_, card) in zip(at_war, cards, strict=True) if hand.fight(card, dealer)
        ]

    def _update_status(self) -> None:
        waiting = any(hand.status is not HandStatus.SETTLED for hand in self.hands)
        self.status = RoundStatus.AWAITING_DECISION if waiting else RoundStatus.SETTLED


def _decision(decision: Choice, decided_by: DecidedBy | str, war_tie_bet: int) -> HandDecision:
    if isinstance(decision, HandDecision):
        return decision
    try:
        action = Decision(decision)
    except ValueError:
        raise IllegalAction(f"unknown decision {decision!r}", code="unknown_decision") from None
    return HandDecision(action, DecidedBy(decided_by), war_tie_bet)


def replay_table_round(
    rules: TableRules | Mapping[str, object],
    server_seed: bytes,
    client_seed: str,
    nonce: int,
    inputs: RoundInputs | Mapping[str, object],
) -> TableRound:
    """A stored round played again from what it was stored with, to the state it is in.

    Re-deals the round from its seeds on a shoe of ``rules.decks`` decks, places each hand's
    bets and applies every recorded decision (at once: the cards never depend on the order
    in which hands were decided, since the war waits for the last of them). Raises
    ``InvalidRules``, ``InvalidSeed``, ``InvalidBet`` or ``IllegalAction`` for stored values
    the engine refuses (a decision on a hand that did not tie: the record and its seeds
    disagree).
    """
    table = rules if isinstance(rules, TableRules) else TableRules.from_dict(rules)
    stored = inputs if isinstance(inputs, RoundInputs) else RoundInputs.from_dict(inputs)
    game = TableRound.deal(table, server_seed, client_seed, nonce, stored.bets)
    decisions = {i: choice for i, choice in enumerate(stored.decisions) if choice is not None}
    if decisions:
        game.decide_many(decisions)
    return game
