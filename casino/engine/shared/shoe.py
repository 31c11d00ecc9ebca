"""A shared table's shoe: shuffled once from its chain seed and the public value, burnt,
cut, and dealt round after round until the cut card comes out (docs/fairness.md, section 17).

* **The order.** The stream of sections 1-3 with the shoe's chain seed as the server seed,
  the chain's public value as the client seed and the shoe's index in the chain as the nonce;
  the ``decks`` packs shuffled in full by section 5's walk (N - 1 steps, none for the last
  position).
* **The cut card.** The next uniform integer of the same stream places it: ``cut = lo +
  uniform(hi - lo + 1)``, where ``lo`` is 75 % and ``hi`` 85 % of the shoe (``ceil(3N/4)``,
  ``floor(17N/20)``), ``hi`` lowered where needed so that a round begun before the cut card
  always finds its cards (``N - most + 1``, ``most`` the most cards a round can use), and
  ``lo`` to ``hi`` where it passes it. The cut card lies before position ``cut``.
* **The burn.** The first card is turned face up and burnt with as many more cards as its
  value (ace 1, two to nine their number, ten and faces 10): 2 to 11 cards, the custom of live
  shoe games (baccarat's), so nobody can tell where the rounds start before the shoe is dealt.
* **The rounds.** A round begins at the first card not dealt yet, provided it lies before the
  cut card: the player's card, then the dealer's; on a tie (same rank) a war, always, whoever
  goes to war: three burns, the player's war card, the dealer's war card; with repeated wars
  (``war_ties: repeat``) a tied war is dealt again, up to ``max_war_ties`` consecutive ties.
  So the cards of every round are fixed by the shoe alone: no decision, bet or absence of
  bettors moves a card from one round to another. A round begun before the cut card is
  finished past it; the next one starts a new shoe.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from casino.engine.cards import STANDARD_52, Card, Rank, shoe_size
from casino.engine.casino_war import BURNS_PER_WAR, TableRules, WarCards, WarTies
from casino.engine.errors import InvalidSeed
from casino.engine.fairness import DrawStream, validate_client_seed
from casino.engine.shared.chain import SEED_BYTES, check_index
from casino.engine.shared.refusals import StepReason, StepRefused

#: The cut card's range, as fractions of the shoe: ceil(N * 3/4) to floor(N * 17/20).
CUT_FROM = (3, 4)
CUT_TO = (17, 20)
#: The burn's face-up card counts as its baccarat value, tens and faces 10.
MAX_BURN = 11


def burn_count(shown: Card) -> int:
    """Cards burnt at the start of a shoe: the face-up card and as many more as its value."""
    rank = shown.rank
    value = 1 if rank is Rank.ACE else min(int(rank), 10)
    return 1 + value


def cut_range(decks: int, most_cards: int) -> tuple[int, int]:
    """The lowest and highest position the cut card may come before."""
    size = shoe_size(decks)
    low = -(-size * CUT_FROM[0] // CUT_FROM[1])
    high = min(size * CUT_TO[0] // CUT_TO[1], size - most_cards + 1)
    return min(low, high), high


@dataclass(frozen=True)
class ShoeRound:
    """The cards of one round of a shoe: ``number`` (1, 2, ... in the shoe), the position of
    its first card, the player's and dealer's cards and every war dealt (none without a
    tie)."""

    number: int
    start: int
    player: Card
    dealer: Card
    wars: tuple[WarCards, ...]

    @property
    def is_tie(self) -> bool:
        return self.player.rank == self.dealer.rank

    @property
    def ties(self) -> int:
        """Consecutive ties: 0 without a tie, else 1 and one more per tied war."""
        if not self.is_tie:
            return 0
        return 1 + sum(war.player_card.rank == war.dealer_card.rank for war in self.wars)

    @property
    def cards(self) -> tuple[Card, ...]:
        """Every card of the round in dealing order, the burns of its wars included."""
        out = [self.player, self.dealer]
        for war in self.wars:
            out += [*war.burns, war.player_card, war.dealer_card]
        return tuple(out)

    @property
    def end(self) -> int:
        """The position of the first card after the round."""
        return self.start + 2 + len(self.wars) * (BURNS_PER_WAR + 2)

    @property
    def winner(self) -> str:
        """``player``, ``dealer`` or ``tie`` on the first cards (suits never count)."""
        if self.is_tie:
            return "tie"
        return "player" if self.player.rank > self.dealer.rank else "dealer"

    def to_dict(self) -> dict[str, Any]:
        return {
            "round": self.number,
            "start": self.start,
            "player_card": self.player.code,
            "dealer_card": self.dealer.code,
            "wars": [war.to_dict() for war in self.wars],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ShoeRound:
        return cls(
            number=int(data["round"]),
            start=int(data["start"]),
            player=Card.parse(data["player_card"]),
            dealer=Card.parse(data["dealer_card"]),
            wars=tuple(WarCards.from_dict(war) for war in data["wars"]),
        )


@dataclass(frozen=True, eq=False)
class SharedShoe:
    """One shuffled shoe of a shared table. Build it with ``deal``."""

    index: int
    seed: bytes
    public_value: str
    decks: int
    war_ties: WarTies
    max_war_ties: int
    order: tuple[Card, ...]
    cut: int

    @classmethod
    def deal(cls, seed: bytes, public_value: str, index: int, rules: TableRules) -> SharedShoe:
        """The shoe of chain seed ``seed`` (shoe ``index`` of its chain) and the chain's
        public value, under a table's ``rules`` (its decks and how its wars repeat)."""
        if type(seed) is not bytes or len(seed) != SEED_BYTES:
            raise InvalidSeed(f"a shoe seed is {SEED_BYTES} raw bytes")
        validate_client_seed(public_value)
        check_index(index)
        size = shoe_size(rules.decks)
        stream = DrawStream(seed, public_value, index)
        pack = STANDARD_52.cards
        order = tuple(pack[p % 52] for p in stream.dealt_positions(size))
        low, high = cut_range(rules.decks, rules.most_cards(1))
        cut = low + stream.randbelow(high - low + 1)
        return cls(
            index=index,
            seed=seed,
            public_value=public_value,
            decks=rules.decks,
            war_ties=rules.war_tie_rule,
            max_war_ties=rules.max_war_ties,
            order=order,
            cut=cut,
        )

    @property
    def size(self) -> int:
        return len(self.order)

    @property
    def commitment(self) -> str:
        """SHA-256 of the seed: the previous link of the chain (the commitment itself for
        shoe 1), known before the shoe is dealt."""
        return hashlib.sha256(self.seed).hexdigest()

    @property
    def shown(self) -> Card:
        """The burn's face-up card."""
        return self.order[0]

    @property
    def burn(self) -> int:
        """Cards burnt before the first round."""
        return burn_count(self.order[0])

    @cached_property
    def rounds(self) -> tuple[ShoeRound, ...]:
        """Every round the shoe deals, in order, until the cut card."""
        out: list[ShoeRound] = []
        start = self.burn
        while start < self.cut:
            dealt = self._round_at(len(out) + 1, start)
            out.append(dealt)
            start = dealt.end
        return tuple(out)

    def round(self, number: int) -> ShoeRound:
        """Round ``number`` (1, 2, ...) of the shoe."""
        rounds = self.rounds
        if type(number) is not int or not 1 <= number <= len(rounds):
            raise StepRefused(
                f"shoe {self.index} deals rounds 1 to {len(rounds)}, not {number!r}",
                StepReason.NO_SUCH_ROUND,
            )
        return rounds[number - 1]

    def has_round(self, number: int) -> bool:
        return 1 <= number <= len(self.rounds)

    def _round_at(self, number: int, start: int) -> ShoeRound:
        order = self.order
        player, dealer = order[start], order[start + 1]
        position = start + 2
        wars: list[WarCards] = []
        if player.rank == dealer.rank:
            ties = 1
            repeat = self.war_ties is WarTies.REPEAT
            while True:
                burns = order[position : position + BURNS_PER_WAR]
                war_player = order[position + BURNS_PER_WAR]
                war_dealer = order[position + BURNS_PER_WAR + 1]
                position += BURNS_PER_WAR + 2
                wars.append(WarCards(burns, war_player, war_dealer))
                if war_player.rank != war_dealer.rank:
                    break
                ties += 1
                if not (repeat and ties < self.max_war_ties):
                    break
        return ShoeRound(number, start, player, dealer, tuple(wars))

    def public(self) -> dict[str, Any]:
        """What is shown when the shoe starts: its index, its commitment, the burn's face-up
        card and count, the cut card's place. The order and the seed stay secret."""
        return {
            "shoe": self.index,
            "commitment": self.commitment,
            "public_value": self.public_value,
            "decks": self.decks,
            "burn": {"shown": self.shown.code, "cards": self.burn},
            "cut": self.cut,
        }

    def revealed(self) -> dict[str, Any]:
        """Everything, once the shoe is over: the seed, the order, the burn, every round."""
        return {
            **self.public(),
            "seed": self.seed.hex(),
            "order": [card.code for card in self.order],
            "burnt": [card.code for card in self.order[: self.burn]],
            "rounds": [dealt.to_dict() for dealt in self.rounds],
        }


def codes(cards: Sequence[Card]) -> list[str]:
    return [card.code for card in cards]
