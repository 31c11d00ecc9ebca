"""One hand of a Casino War round: its bets, its cards and how each bet settles.

A hand moves ``settled`` at once when its first card differs from the dealer's (or it is a
tie-only bet), else ``awaiting_decision -> settled`` (surrender) or ``awaiting_decision ->
at_war -> settled`` (war; with repeated wars, a tied war leaves it ``at_war`` for the next).
The round (``table_round``) deals the cards and asks the hand to settle them.

Payouts are amounts returned for a bet, stake included:

* ante: 2x on a higher first card, 0 on a lower; a surrender returns half; at war the ante
  pushes (1x) when the hand's war card is at least the dealer's, else 0;
* raise (= ante, placed with the war): 2x on a won or tied war (plus a bonus equal to the
  ante on a tie where ``war_ties`` is ``bonus``), else 0;
* tie bet: ``TableRules.tie_bet_return(ties)`` x, settled on the first two cards, except with a
  ladder, where it waits for the hand's last war (a surrendered or tie-only hand stops at the
  first step);
* war tie bet (placed with the war): ``war_tie_pays + 1`` x when the hand's first war ties.
"""

from __future__ import annotations

from casino.engine.cards import Card
from casino.engine.casino_war._frozen import trusted
from casino.engine.casino_war.bets import HandBets
from casino.engine.casino_war.results import HandDecision, HandResult
from casino.engine.casino_war.rule_values import WarTies
from casino.engine.casino_war.rules import TableRules
from casino.engine.casino_war.states import Decision, HandStatus, Outcome

_AWAITING = HandStatus.AWAITING_DECISION
_AT_WAR = HandStatus.AT_WAR
_SETTLED = HandStatus.SETTLED
_NOTHING_PENDING: frozenset[str] = frozenset()


class Hand:
    """The live state of one hand; ``result()`` is its frozen view."""

    __slots__ = (
        "ante",
        "ante_payout",
        "card",
        "decision",
        "index",
        "outcome",
        "raise_",
        "raise_payout",
        "rules",
        "status",
        "tie_bet",
        "tie_payout",
        "tie_settled",
        "ties",
        "war_tie_bet",
        "war_tie_payout",
        "wars_fought",
    )

    index: int
    rules: TableRules
    card: Card
    ante: int
    tie_bet: int
    raise_: int
    war_tie_bet: int
    ante_payout: int
    tie_payout: int
    raise_payout: int
    war_tie_payout: int
    tie_settled: bool
    ties: int
    wars_fought: int
    status: HandStatus
    decision: HandDecision | None
    outcome: Outcome | None

    def __init__(
        self, index: int, rules: TableRules, ante: int, tie_bet: int, card: Card, dealer: Card
    ) -> None:
        self.index = index
        self.rules = rules
        self.card = card
        self.ante = ante
        self.tie_bet = tie_bet
        self.raise_ = self.war_tie_bet = 0
        self.ante_payout = self.tie_payout = self.raise_payout = self.war_tie_payout = 0
        self.wars_fought = 0
        self.decision = None
        player, dealer_rank = card.rank, dealer.rank
        if player != dealer_rank:
            self.ties = 0
            self.tie_settled = True
            self.ante_payout = 2 * ante if player > dealer_rank else 0
            self.outcome = Outcome.WIN if player > dealer_rank else Outcome.LOSS
            self.status = _SETTLED
            return
        self.ties = 1
        if not ante:
            # A tie-only hand: the tie bet is paid and the hand is over (no ante, no war).
            self._settle_tie_bet()
            self.outcome = Outcome.TIE
            self.status = _SETTLED
            return
        self.outcome = None
        self.status = _AWAITING
        self.tie_settled = False
        if rules.tie_ladder is None:
            # Without a ladder the tie bet is settled on the first two cards, whatever next.
            self._settle_tie_bet()

    def _settle_tie_bet(self) -> None:
        self.tie_payout = self.tie_bet * self.rules.tie_bet_return(self.ties)
        self.tie_settled = True

    def surrender(self, decision: HandDecision) -> None:
        self.decision = decision
        self.ante_payout = self.ante // 2  # exact: the bet increment is even
        if not self.tie_settled:
            self._settle_tie_bet()
        self.outcome = Outcome.SURRENDER
        self.status = _SETTLED

    def go_to_war(self, decision: HandDecision) -> None:
        """Raise an amount equal to the ante (and place the war tie bet); the war itself is
        dealt by the round once no hand awaits a decision."""
        self.decision = decision
        self.raise_ = self.ante
        self.war_tie_bet = decision.war_tie_bet
        self.status = _AT_WAR

    def fight(self, card: Card, dealer: Card) -> bool:
        """Settle this hand's card of a war against the dealer's; True when the war tied and
        is fought again (repeated wars, below the cap)."""
        rules = self.rules
        player, dealer_rank = card.rank, dealer.rank
        self.wars_fought += 1
        if self.wars_fought == 1 and self.war_tie_bet:
            tied = player == dealer_rank
            self.war_tie_payout = self.war_tie_bet * (rules.war_tie_pays + 1) if tied else 0
        ante = self.ante
        if player < dealer_rank:
            self.ante_payout = self.raise_payout = 0
            self._finish(Outcome.WAR_LOSS)
            return False
        if player > dealer_rank:
            self.ante_payout, self.raise_payout = ante, 2 * ante
            self._finish(Outcome.WAR_WIN)
            return False
        self.ties += 1
        war_ties = rules.war_ties
        if war_ties is WarTies.REPEAT and self.ties < rules.max_war_ties:
            return True
        # A tied war is paid as a won war (at the cap of repeated ties too); the bonus, where
        # the table pays it, rides on the raise.
        bonus = ante if war_ties is WarTies.BONUS else 0
        self.ante_payout, self.raise_payout = ante, 2 * ante + bonus
        self._finish(Outcome.WAR_TIE)
        return False

    def _finish(self, outcome: Outcome) -> None:
        if not self.tie_settled:
            self._settle_tie_bet()
        self.outcome = outcome
        self.status = _SETTLED

    def can_decide(self, decision: Decision) -> bool:
        if self.status is not _AWAITING:
            return False
        return decision is Decision.WAR or self.rules.surrender_allowed

    def result(self) -> HandResult:
        # Placed and not settled yet (a bet not placed is never pending: its label is none).
        pending: set[str] = set()
        if self.status is not _SETTLED:
            pending.add("ante")
            if self.raise_:
                pending.add("raise")
            if self.war_tie_bet and self.wars_fought == 0:
                pending.add("war_tie_bet")
        if not self.tie_settled and self.tie_bet:
            pending.add("tie_bet")
        return trusted(
            HandResult,
            hand=self.index,
            card=self.card,
            status=self.status,
            decision=self.decision,
            ties=self.ties,
            outcome=self.outcome,
            bets=trusted(
                HandBets,
                ante=self.ante,
                tie_bet=self.tie_bet,
                raise_=self.raise_,
                war_tie_bet=self.war_tie_bet,
            ),
            payouts=trusted(
                HandBets,
                ante=self.ante_payout,
                tie_bet=self.tie_payout,
                raise_=self.raise_payout,
                war_tie_bet=self.war_tie_payout,
            ),
            pending=frozenset(pending) if pending else _NOTHING_PENDING,
        )
