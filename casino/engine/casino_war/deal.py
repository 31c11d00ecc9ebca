"""The provably fair deal of a Casino War round.

``deal_casino_war`` deals a one-hand round the original way: seven cards up front (player,
dealer, three burns, war player, war dealer), so the war cards never depend on the decision.
``RoundShoe`` is the same shuffled shoe read on demand, card by card in dealing order, for
rounds that may need more cards (several hands, repeated wars): its first seven cards are the
seven of ``deal_casino_war``, since dealing k cards is the first k steps of one shuffle
(docs/fairness.md, section 5).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from casino.engine.cards import MAX_DECKS, MIN_DECKS, STANDARD_52, Card
from casino.engine.casino_war._frozen import trusted
from casino.engine.errors import InvalidRules, InvalidSeed
from casino.engine.fairness import (
    SERVER_SEED_BYTES,
    shoe_positions,
    validate_client_seed,
    validate_nonce,
)

#: Cards one classic round uses, in dealing order.
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


@dataclass(frozen=True)
class CasinoWarDeal:
    """All seven cards of a classic round, in dealing order."""

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


def _shoe(decks: int) -> tuple[Card, ...]:
    shoe = _SHOES.get(decks)
    if shoe is None:
        raise InvalidRules(
            f"decks must be {MIN_DECKS} to {MAX_DECKS}, not {decks}",
            code="decks_out_of_range",
            rule="decks",
        )
    return shoe


def _check_seeds(server_seed: bytes, client_seed: str, nonce: int) -> None:
    if type(server_seed) is not bytes or len(server_seed) != SERVER_SEED_BYTES:
        raise InvalidSeed(f"server seed must be {SERVER_SEED_BYTES} raw bytes")
    validate_client_seed(client_seed)
    validate_nonce(nonce)


def deal_casino_war(server_seed: bytes, client_seed: str, nonce: int, decks: int) -> CasinoWarDeal:
    """Deal one round: the first seven cards of a fresh ``decks``-deck shoe shuffled by the
    provably fair algorithm, taken as player, dealer, burn 1-3, war player, war dealer."""
    # Every round of the fast path comes here: the checks are inlined, not called.
    shoe = _SHOES.get(decks)
    if shoe is None:
        _shoe(decks)  # raises, naming the rule
    if type(server_seed) is not bytes or len(server_seed) != SERVER_SEED_BYTES:
        raise InvalidSeed(f"server seed must be {SERVER_SEED_BYTES} raw bytes")
    validate_client_seed(client_seed)
    validate_nonce(nonce)
    assert shoe is not None
    p = shoe_positions(server_seed, client_seed, nonce, len(shoe), CARDS_PER_ROUND)
    return trusted(
        CasinoWarDeal,
        player=shoe[p[0]],
        dealer=shoe[p[1]],
        burns=(shoe[p[2]], shoe[p[3]], shoe[p[4]]),
        war_player=shoe[p[5]],
        war_dealer=shoe[p[6]],
    )


class RoundShoe:
    """The cards of one round in dealing order: ``card(i)`` is the i-th card dealt (0-based),
    position i of the shoe shuffled from the seeds. Cards are drawn only as far as read, and
    a longer read re-runs the shuffle further from the start (the first cards never change).

    ``stacked`` makes a shoe of given cards, for tests and to replay a ``CasinoWarDeal``.
    """

    __slots__ = ("_cards", "_seeds", "_shoe")

    _cards: list[Card]
    _seeds: tuple[bytes, str, int] | None
    _shoe: tuple[Card, ...]

    def __init__(
        self, server_seed: bytes, client_seed: str, nonce: int, decks: int, ahead: int = 0
    ) -> None:
        """``ahead``: cards to draw at once (a round's first cards and one war, typically)."""
        self._shoe = _shoe(decks)
        _check_seeds(server_seed, client_seed, nonce)
        self._seeds = (server_seed, client_seed, nonce)
        self._cards = []
        if ahead:
            count = min(ahead, len(self._shoe))
            positions = shoe_positions(server_seed, client_seed, nonce, len(self._shoe), count)
            shoe = self._shoe
            self._cards = [shoe[p] for p in positions]

    @classmethod
    def stacked(cls, cards: Sequence[Card]) -> RoundShoe:
        self = cls.__new__(cls)
        self._cards = list(cards)
        self._seeds = None
        self._shoe = tuple(cards)
        return self

    @classmethod
    def from_codes(cls, codes: str | Sequence[str]) -> RoundShoe:
        """A stacked shoe from card codes, e.g. ``"KS QC QD 2C 3C 4C 9D 9S 2H"``."""
        items = codes.split() if isinstance(codes, str) else list(codes)
        return cls.stacked([Card.parse(code) for code in items])

    @classmethod
    def of_deal(cls, deal: CasinoWarDeal) -> RoundShoe:
        return cls.stacked(deal.cards)

    def card(self, index: int) -> Card:
        cards = self._cards
        if index >= len(cards):
            self._draw(index + 1)
            cards = self._cards
        return cards[index]

    def _draw(self, count: int) -> None:
        if self._seeds is None or count > len(self._shoe):
            raise ValueError(f"the shoe has no card {count} ({len(self._cards)} to deal)")
        server_seed, client_seed, nonce = self._seeds
        shoe = self._shoe
        # Re-walk from the first card: cheap next to a round's HMACs, and the shuffle is
        # specified from the front (a walk can stop early, never resume).
        want = max(count, min(len(self._cards) + 8, len(shoe)))
        positions = shoe_positions(server_seed, client_seed, nonce, len(shoe), want)
        self._cards = [shoe[p] for p in positions]
