"""Casino War: table rules, the provably fair deal, and the round as a state machine.

A round is dealt in full up front (seven cards in a fixed order, see ``deal_casino_war``) so
the war cards never depend on the player's decision. The round then moves
``dealt -> settled`` when the first two cards differ, or ``dealt -> awaiting_decision ->
settled`` on a tie, where the player surrenders or goes to war.

Money is integer minor units. Every payout below is the amount returned to the wallet for a
bet, stake included (0 when the bet is lost), so ``net = sum(payouts) - sum(stakes)``.

A war the player wins (or ties) is settled as the rule is usually stated: the ante pushes and
the raise wins even money (plus, where the table pays it, the war-tie bonus, which rides on
the raise). ``bet_outcomes`` labels every bet of a round from its stakes and payouts with one
of ``BetOutcome``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any, TypeVar

from casino.engine.cards import MAX_DECKS, MIN_DECKS, STANDARD_52, Card
from casino.engine.errors import IllegalAction, InvalidBet, InvalidRules, InvalidSeed
from casino.engine.fairness import (
    SERVER_SEED_BYTES,
    shoe_positions,
    validate_client_seed,
    validate_nonce,
)

#: Tie-bet payouts a table may offer, as k in "pays k to 1".
ALLOWED_TIE_PAYS: tuple[int, ...] = (10, 11, 12)

#: Cards one round uses, in dealing order.
CARDS_PER_ROUND = 7
DEALING_ORDER: tuple[str, ...] = (
    "player",
    "dealer",
    "burn1",
    "burn2",
    "burn3",
    "war_player",
    "war_dealer",
)


def _is_int(value: object) -> bool:
    return type(value) is int


_T = TypeVar("_T")
_new_object = object.__new__


def _trusted(cls: type[_T], **values: Any) -> _T:
    """An instance of the frozen dataclass ``cls`` from complete, already valid field values.

    Settlement builds three frozen objects per round; setting their ``__dict__`` in one step
    skips the generated ``__init__``, which assigns field by field through
    ``object.__setattr__`` and was a fifth of the cost of a round. Equality, hashing and
    immutability are unchanged: they come from the class, not from ``__init__``.
    """
    obj = _new_object(cls)
    obj.__dict__.update(values)
    return obj


@dataclass(frozen=True)
class TableRules:
    """The rules of one Casino War table. Invalid combinations are refused at creation."""

    decks: int = 6
    tie_pays: int = 10
    war_tie_bonus: bool = False
    surrender_allowed: bool = True
    min_ante: int = 100
    max_ante: int = 500_000
    max_tie_bet: int = 100_000
    bet_increment: int = 100

    def __post_init__(self) -> None:
        for name in ("decks", "tie_pays", "min_ante", "max_ante", "max_tie_bet", "bet_increment"):
            if not _is_int(getattr(self, name)):
                raise InvalidRules(f"{name} must be an integer", code="rules_not_integer")
        for name in ("war_tie_bonus", "surrender_allowed"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidRules(f"{name} must be true or false", code="rules_not_boolean")
        if not MIN_DECKS <= self.decks <= MAX_DECKS:
            raise InvalidRules(
                f"decks must be {MIN_DECKS} to {MAX_DECKS}, not {self.decks}",
                code="decks_out_of_range",
            )
        if self.tie_pays not in ALLOWED_TIE_PAYS:
            raise InvalidRules(
                f"tie bet pays one of {ALLOWED_TIE_PAYS} to 1, not {self.tie_pays}",
                code="tie_pays_not_allowed",
            )
        inc = self.bet_increment
        # Even, so that half an ante (surrender) is always a whole number of minor units.
        if inc < 2 or inc % 2:
            raise InvalidRules(
                f"bet increment must be an even number >= 2, not {inc}",
                code="bet_increment_invalid",
            )
        if self.min_ante <= 0 or self.min_ante % inc:
            raise InvalidRules(
                f"minimum ante must be a positive multiple of the increment {inc}",
                code="min_ante_invalid",
            )
        if self.max_ante < self.min_ante or self.max_ante % inc:
            raise InvalidRules(
                f"maximum ante must be a multiple of {inc} and at least the minimum",
                code="max_ante_invalid",
            )
        if self.max_tie_bet < 0 or self.max_tie_bet % inc:
            raise InvalidRules(
                f"maximum tie bet must be 0 (no tie bet) or a positive multiple of {inc}",
                code="max_tie_bet_invalid",
            )

    @property
    def tie_bet_offered(self) -> bool:
        return self.max_tie_bet > 0

    def to_dict(self) -> dict[str, Any]:
        # Every bet snapshots its table's rules: asdict's recursive deep copy cost more than
        # the deal; the fields are all plain values.
        return {name: getattr(self, name) for name in _RULE_NAMES}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TableRules:
        """Rules from a mapping; missing keys take their defaults, unknown keys are refused."""
        unknown = sorted(set(data).difference(_RULE_NAMES))
        if unknown:
            raise InvalidRules(f"unknown table rule(s): {', '.join(unknown)}", code="unknown_rule")
        return cls(**dict(data))

    def validate_bet(self, ante: int, tie_bet: int = 0) -> None:
        """Refuse stakes the table does not take.

        Codes, checked in this order: ``bet_not_integer`` (either amount not an int),
        ``ante_out_of_range`` (outside [min_ante, max_ante]),
        ``ante_not_multiple_of_increment``, ``tie_bet_out_of_range`` (outside
        [0, max_tie_bet]; so any tie bet at a table without one),
        ``tie_bet_not_multiple_of_increment``. A tie bet of 0 means no tie bet.
        """
        if type(ante) is not int or type(tie_bet) is not int:
            raise InvalidBet("bets must be whole numbers of minor units", code="bet_not_integer")
        inc = self.bet_increment
        if not self.min_ante <= ante <= self.max_ante:
            raise InvalidBet(
                f"ante must be between {self.min_ante} and {self.max_ante}, not {ante}",
                code="ante_out_of_range",
            )
        if ante % inc:
            raise InvalidBet(
                f"ante must be a multiple of {inc}, not {ante}",
                code="ante_not_multiple_of_increment",
            )
        if not 0 <= tie_bet <= self.max_tie_bet:
            raise InvalidBet(
                f"tie bet must be between 0 and {self.max_tie_bet}, not {tie_bet}",
                code="tie_bet_out_of_range",
            )
        if tie_bet % inc:
            raise InvalidBet(
                f"tie bet must be a multiple of {inc}, not {tie_bet}",
                code="tie_bet_not_multiple_of_increment",
            )


_RULE_NAMES = tuple(f.name for f in fields(TableRules))


class Decision(StrEnum):
    SURRENDER = "surrender"
    WAR = "war"


class RoundStatus(StrEnum):
    AWAITING_DECISION = "awaiting_decision"
    SETTLED = "settled"


@dataclass(frozen=True)
class CasinoWarDeal:
    """All seven cards of a round, in dealing order."""

    player: Card
    dealer: Card
    burns: tuple[Card, Card, Card]
    war_player: Card
    war_dealer: Card

    @property
    def is_tie(self) -> bool:
        return self.player.rank == self.dealer.rank

    @property
    def cards(self) -> tuple[Card, ...]:
        """The seven cards in dealing order (see ``DEALING_ORDER``)."""
        return (self.player, self.dealer, *self.burns, self.war_player, self.war_dealer)

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(card.code for card in self.cards)

    @classmethod
    def from_cards(cls, cards: tuple[Card, ...] | list[Card]) -> CasinoWarDeal:
        if len(cards) != CARDS_PER_ROUND:
            raise ValueError(f"a Casino War deal has {CARDS_PER_ROUND} cards, not {len(cards)}")
        return cls(cards[0], cards[1], (cards[2], cards[3], cards[4]), cards[5], cards[6])

    @classmethod
    def from_codes(cls, codes: str | list[str] | tuple[str, ...]) -> CasinoWarDeal:
        """A stacked deal from card codes, e.g. ``"AS KH 2C 3C 4C 9D 9S"``."""
        items = codes.split() if isinstance(codes, str) else list(codes)
        return cls.from_cards([Card.parse(code) for code in items])


#: Card at each position of an unshuffled shoe, per deck count (decks one after another).
_SHOES: dict[int, tuple[Card, ...]] = {
    decks: STANDARD_52.cards * decks for decks in range(MIN_DECKS, MAX_DECKS + 1)
}


def deal_casino_war(server_seed: bytes, client_seed: str, nonce: int, decks: int) -> CasinoWarDeal:
    """Deal one round: the first seven cards of a fresh ``decks``-deck shoe shuffled by the
    provably fair algorithm, taken as player, dealer, burn 1-3, war player, war dealer."""
    shoe = _SHOES.get(decks)
    if shoe is None:
        raise InvalidRules(
            f"decks must be {MIN_DECKS} to {MAX_DECKS}, not {decks}", code="decks_out_of_range"
        )
    if type(server_seed) is not bytes or len(server_seed) != SERVER_SEED_BYTES:
        raise InvalidSeed(f"server seed must be {SERVER_SEED_BYTES} raw bytes")
    validate_client_seed(client_seed)
    validate_nonce(nonce)
    p = shoe_positions(server_seed, client_seed, nonce, len(shoe), CARDS_PER_ROUND)
    return _trusted(
        CasinoWarDeal,
        player=shoe[p[0]],
        dealer=shoe[p[1]],
        burns=(shoe[p[2]], shoe[p[3]], shoe[p[4]]),
        war_player=shoe[p[5]],
        war_dealer=shoe[p[6]],
    )


@dataclass(frozen=True)
class Bets:
    """One amount per bet of a round: stakes, or amounts returned."""

    ante: int
    tie_bet: int
    raise_: int

    @property
    def total(self) -> int:
        return self.ante + self.tie_bet + self.raise_

    def to_dict(self) -> dict[str, int]:
        return {"ante": self.ante, "tie_bet": self.tie_bet, "raise": self.raise_}

    @classmethod
    def from_dict(cls, data: Mapping[str, int]) -> Bets:
        return cls(ante=data["ante"], tie_bet=data["tie_bet"], raise_=data["raise"])


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


class Outcome(StrEnum):
    """How the ante side of a round ended (the tie bet is reported separately)."""

    WIN = "win"
    LOSS = "loss"
    SURRENDER = "surrender"
    WAR_WIN = "war_win"
    WAR_TIE = "war_tie"
    WAR_LOSS = "war_loss"


class BetOutcome(StrEnum):
    """How one bet of a round stands: the closed set recall shows per bet.

    ``win``: more than the stake came back; ``push``: exactly the stake; ``lose``: nothing;
    ``surrender``: half the ante came back (the only partial return); ``pending``: placed and
    not settled yet (the ante while a tie awaits the decision); ``none``: not placed (no tie
    bet, or no raise because the round did not go to war).
    """

    WIN = "win"
    LOSE = "lose"
    PUSH = "push"
    SURRENDER = "surrender"
    PENDING = "pending"
    NONE = "none"


#: The bets of a round, in the order recall lists them (the keys of ``Bets.to_dict``).
BET_NAMES: tuple[str, ...] = ("ante", "tie_bet", "raise")


def bet_outcome(stake: int, payout: int, *, settled: bool = True) -> BetOutcome:
    """The label of one bet from its stake and the amount returned for it (stake included)."""
    if stake <= 0:
        return BetOutcome.NONE
    if not settled:
        return BetOutcome.PENDING
    if payout > stake:
        return BetOutcome.WIN
    if payout == stake:
        return BetOutcome.PUSH
    if payout <= 0:
        return BetOutcome.LOSE
    return BetOutcome.SURRENDER


def bet_outcomes(
    bets: Mapping[str, int], payouts: Mapping[str, int], *, settled: bool = True
) -> dict[str, BetOutcome]:
    """Per bet (``ante``, ``tie_bet``, ``raise``): its ``BetOutcome``.

    ``bets`` and ``payouts`` are keyed like ``Bets.to_dict()``. ``settled`` is false while the
    round awaits the decision: the tie bet is settled on the first two cards all the same, the
    ante is pending and the raise not placed yet. A pure function of the amounts, so a stored
    round is labelled by what it actually paid.
    """
    return {
        name: bet_outcome(int(bets[name]), int(payouts[name]), settled=settled or name == "tie_bet")
        for name in BET_NAMES
    }


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
            return Outcome.WIN if self.player_card.rank > self.dealer_card.rank else Outcome.LOSS
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
        """
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
            self.status = RoundStatus.AWAITING_DECISION
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
            result = _trusted(
                RoundResult,
                player_card=deal.player,
                dealer_card=deal.dealer,
                war=(
                    _trusted(
                        WarCards,
                        burns=deal.burns,
                        player_card=deal.war_player,
                        dealer_card=deal.war_dealer,
                    )
                    if self.decision is Decision.WAR
                    else None
                ),
                decision=self.decision,
                bets=_trusted(Bets, ante=ante, tie_bet=tie_bet, raise_=raise_),
                payouts=_trusted(Bets, ante=ante_payout, tie_bet=tie_payout, raise_=raise_payout),
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
