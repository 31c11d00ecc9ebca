"""The one-hand Casino War round, as dealt since the first round: the classic procedure, at
most one war.

A round is dealt in full up front (seven cards in a fixed order, see ``deal_casino_war``) so
the war cards never depend on the player's decision. The round then moves
``dealt -> settled`` when the first two cards differ, or ``dealt -> awaiting_decision ->
settled`` on a tie, where the player surrenders or goes to war. A tie-only hand (ante 0, where
the table allows it) settles on its first two cards, tie or not.

A war the player wins (or ties) is settled as the rule is usually stated: the ante pushes and
the raise wins even money (plus, where the table pays it, the war-tie bonus, which rides on
the raise). ``bet_outcomes`` labels every bet of a round from its stakes and payouts with one
of ``BetOutcome``.

``TableRound`` (``table_round``) plays every table, this one included, and gives the same
cards and payouts for these rules; this class stays the fast path for the original rules and
refuses the rules it does not deal (several hands, repeated wars).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from casino.engine.cards import Card
from casino.engine.casino_war._frozen import trusted
from casino.engine.casino_war.bets import BetOutcome, Bets, bet_outcomes
from casino.engine.casino_war.deal import CasinoWarDeal, deal_casino_war
from casino.engine.casino_war.rule_values import Dealing, WarTies
from casino.engine.casino_war.rules import TableRules
from casino.engine.casino_war.states import Decision, Outcome, RoundStatus
from casino.engine.errors import IllegalAction, InvalidRules

#: An enum member read from a module constant: a class attribute read costs more.
_REPEAT = WarTies.REPEAT


@dataclass(frozen=True)
class WarCards:
    """The cards of a war: three burns, then the player's and the dealer's war cards."""

    burns: tuple[Card, ...]
    player_card: Card
    dealer_card: Card

    def to_dict(self) -> dict[str, Any]:
        return {
            "burns": [card.code for card in self.burns],
            "player_card": self.player_card.code,
            "dealer_card": self.dealer_card.code,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WarCards:
        return cls(
            burns=tuple(Card.parse(code) for code in data["burns"]),
            player_card=Card.parse(data["player_card"]),
            dealer_card=Card.parse(data["dealer_card"]),
        )


@dataclass(frozen=True)
class RoundResult:
    """A settled round: cards, decision, per-bet stakes and returns, and the net."""

    player_card: Card
    dealer_card: Card
    war: WarCards | None
    decision: Decision | None
    bets: Bets
    payouts: Bets
    net: int
    tie_bet_won: bool

    @property
    def outcome(self) -> Outcome:
        if self.decision is None:
            player, dealer = self.player_card.rank, self.dealer_card.rank
            if player == dealer:
                return Outcome.TIE  # a tie-only hand: no ante, no decision
            return Outcome.WIN if player > dealer else Outcome.LOSS
        if self.war is None:
            return Outcome.SURRENDER
        player, dealer = self.war.player_card.rank, self.war.dealer_card.rank
        if player > dealer:
            return Outcome.WAR_WIN
        return Outcome.WAR_TIE if player == dealer else Outcome.WAR_LOSS

    @property
    def bet_outcomes(self) -> dict[str, BetOutcome]:
        """Per bet: win, lose, push, surrender or none (a settled round has nothing pending)."""
        return bet_outcomes(self.bets.to_dict(), self.payouts.to_dict())

    def to_dict(self) -> dict[str, Any]:
        return {
            "player_card": self.player_card.code,
            "dealer_card": self.dealer_card.code,
            "war": None if self.war is None else self.war.to_dict(),
            "decision": None if self.decision is None else self.decision.value,
            "outcome": self.outcome.value,
            "bets": self.bets.to_dict(),
            "payouts": self.payouts.to_dict(),
            "outcomes": {name: label.value for name, label in self.bet_outcomes.items()},
            "net": self.net,
            "tie_bet_won": self.tie_bet_won,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RoundResult:
        """Inverse of ``to_dict`` (``outcome`` and ``outcomes`` are derived, so ignored)."""
        war = data.get("war")
        decision = data.get("decision")
        return cls(
            player_card=Card.parse(data["player_card"]),
            dealer_card=Card.parse(data["dealer_card"]),
            war=None if war is None else WarCards.from_dict(war),
            decision=None if decision is None else Decision(decision),
            bets=Bets.from_dict(data["bets"]),
            payouts=Bets.from_dict(data["payouts"]),
            net=data["net"],
            tie_bet_won=data["tie_bet_won"],
        )


class CasinoWarRound:
    """One round at one table. Build it with ``start``; on a tie, call ``decide`` (or
    ``surrender`` / ``go_to_war``); read ``result`` once ``status`` is settled.

    Each action comes as ``can_x()`` (a yes/no for the UI), ``verify_x()`` (raises
    ``IllegalAction`` saying why not) and ``x()`` (verifies, then acts).
    """

    __slots__ = (
        "_ante",
        "_ante_payout",
        "_raise",
        "_raise_payout",
        "_result",
        "_tie_bet",
        "deal",
        "decision",
        "rules",
        "status",
        "tie_bet_payout",
    )

    rules: TableRules
    deal: CasinoWarDeal
    status: RoundStatus
    decision: Decision | None
    tie_bet_payout: int
    _ante: int
    _tie_bet: int
    _raise: int
    _ante_payout: int
    _raise_payout: int
    _result: RoundResult | None

    @classmethod
    def start(
        cls, rules: TableRules, deal: CasinoWarDeal, ante: int, tie_bet: int = 0
    ) -> CasinoWarRound:
        """Place the bets on a dealt round. Settles at once unless the first two cards tie.

        The deal must come from a shoe of ``rules.decks`` decks; the round cannot check that.
        Rules this class does not deal (several hands, repeated wars) are refused: play them
        as a ``TableRound``.
        """
        # Plain fields, not properties: every round of the fast path asks.
        if rules.max_hands != 1 or rules.war_ties is _REPEAT:
            raise InvalidRules(
                "a table with several hands or repeated wars is played as a TableRound",
                rule="max_hands" if rules.dealing is not Dealing.CLASSIC else "war_ties",
            )
        rules.validate_bet(ante, tie_bet)
        self = cls.__new__(cls)
        self.rules = rules
        self.deal = deal
        self.decision = None
        self._ante = ante
        self._tie_bet = tie_bet
        self._raise = 0
        self._raise_payout = 0
        self._result = None
        player = deal.player.rank
        dealer = deal.dealer.rank
        if player == dealer:
            # The tie bet is settled on the first two cards, whatever the player does next.
            self.tie_bet_payout = tie_bet * (rules.tie_pays + 1)
            self._ante_payout = 0
            # A tie-only hand has nothing to decide: no ante, so no war.
            self.status = RoundStatus.AWAITING_DECISION if ante else RoundStatus.SETTLED
        else:
            self.tie_bet_payout = 0
            self._ante_payout = 2 * ante if player > dealer else 0
            self.status = RoundStatus.SETTLED
        return self

    @property
    def bets(self) -> Bets:
        """The stakes so far (the raise is 0 until the player goes to war)."""
        return Bets(self._ante, self._tie_bet, self._raise)

    @property
    def payouts(self) -> Bets:
        """What is settled so far, per bet (while awaiting the decision: the tie bet only)."""
        return Bets(self._ante_payout, self.tie_bet_payout, self._raise_payout)

    @property
    def bet_outcomes(self) -> dict[str, BetOutcome]:
        """Per bet: its ``BetOutcome`` now (the ante is ``pending`` until the decision)."""
        return bet_outcomes(
            self.bets.to_dict(),
            self.payouts.to_dict(),
            settled=self.status is RoundStatus.SETTLED,
        )

    def _verify_awaiting(self) -> None:
        if self.status is not RoundStatus.AWAITING_DECISION:
            raise IllegalAction(
                "the round is not waiting for a decision: only a tie on the first two cards "
                "asks for one, and only once",
                code="round_not_awaiting_decision",
            )

    def can_surrender(self) -> bool:
        return self.status is RoundStatus.AWAITING_DECISION and self.rules.surrender_allowed

    def verify_surrender(self) -> None:
        self._verify_awaiting()
        if not self.rules.surrender_allowed:
            raise IllegalAction("this table does not allow surrender", code="surrender_not_allowed")

    def surrender(self) -> None:
        """Give up half the ante; the raise is never placed."""
        self.verify_surrender()
        self.decision = Decision.SURRENDER
        self._ante_payout = self._ante // 2  # exact: the bet increment is even
        self.status = RoundStatus.SETTLED

    def can_go_to_war(self) -> bool:
        return self.status is RoundStatus.AWAITING_DECISION

    def verify_go_to_war(self) -> None:
        self._verify_awaiting()

    def go_to_war(self) -> None:
        """Raise an amount equal to the ante and play the war cards."""
        self.verify_go_to_war()
        ante = self._ante
        self.decision = Decision.WAR
        self._raise = ante
        deal = self.deal
        player = deal.war_player.rank
        dealer = deal.war_dealer.rank
        if player >= dealer:
            # The standard statement: the ante pushes, the raise wins even money; the bonus
            # (when offered) rides on the raise for a tied war.
            self._ante_payout = ante
            bonus = ante if player == dealer and self.rules.war_tie_bonus else 0
            self._raise_payout = 2 * ante + bonus
        else:
            self._ante_payout = 0
            self._raise_payout = 0
        self.status = RoundStatus.SETTLED

    def decide(self, decision: Decision | str) -> None:
        try:
            choice = Decision(decision)
        except ValueError:
            raise IllegalAction(f"unknown decision {decision!r}", code="unknown_decision") from None
        if choice is Decision.WAR:
            self.go_to_war()
        else:
            self.surrender()

    @property
    def result(self) -> RoundResult:
        """The frozen result; raises ``IllegalAction`` while a decision is pending."""
        result = self._result
        if result is None:
            if self.status is not RoundStatus.SETTLED:
                raise IllegalAction(
                    "the round is not settled: it waits for surrender or war",
                    code="round_not_settled",
                )
            deal = self.deal
            ante = self._ante
            tie_bet = self._tie_bet
            raise_ = self._raise
            ante_payout = self._ante_payout
            tie_payout = self.tie_bet_payout
            raise_payout = self._raise_payout
            result = trusted(
                RoundResult,
                player_card=deal.player,
                dealer_card=deal.dealer,
                war=(
                    trusted(
                        WarCards,
                        burns=deal.burns,
                        player_card=deal.war_player,
                        dealer_card=deal.war_dealer,
                    )
                    if self.decision is Decision.WAR
                    else None
                ),
                decision=self.decision,
                bets=trusted(Bets, ante=ante, tie_bet=tie_bet, raise_=raise_),
                payouts=trusted(Bets, ante=ante_payout, tie_bet=tie_payout, raise_=raise_payout),
                net=(ante_payout + tie_payout + raise_payout) - (ante + tie_bet + raise_),
                tie_bet_won=tie_payout > 0,
            )
            self._result = result
        return result


def replay_round(
    rules: TableRules | Mapping[str, Any],
    server_seed: bytes,
    client_seed: str,
    nonce: int,
    ante: int,
    tie_bet: int = 0,
    decision: Decision | str | None = None,
) -> CasinoWarRound:
    """A stored round played again from what it was stored with, to the state it is in.

    Re-deals the round from its seeds on a shoe of ``rules.decks`` decks, places the bets and,
    when ``decision`` is given, plays it. Returns the engine round: ``awaiting_decision`` for a
    tie with no decision yet, else ``settled`` with its ``result``. ``rules`` is the round's
    rules snapshot (a ``TableRules`` or its ``to_dict()`` form). Raises ``InvalidRules``,
    ``InvalidSeed`` or ``InvalidBet`` for stored values the engine refuses, and
    ``IllegalAction`` (``round_not_awaiting_decision``) for a decision on a deal that is not a
    tie: the stored round and its seeds disagree.
    """
    table = rules if isinstance(rules, TableRules) else TableRules.from_dict(rules)
    deal = deal_casino_war(server_seed, client_seed, nonce, table.decks)
    game = CasinoWarRound.start(table, deal, ante, tie_bet)
    if decision is not None:
        game.decide(decision)
    return game
