"""Cards, rank orders and packs: plain data shared by every game on the engine.

Ranks compare by their integer value, which is the ace-high order of a standard pack with the
jokers above the ace. Games that need another order (P'yanitsa's six over ace) say so in their
own rules rather than here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum
from functools import cached_property


class Rank(IntEnum):
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14
    JOKER = 15

    @property
    def code(self) -> str:
        return _RANK_CODES[self]

    @classmethod
    def from_code(cls, code: str) -> Rank:
        try:
            return _RANKS_BY_CODE[code.upper()]
        except KeyError:
            raise ValueError(f"unknown rank code {code!r}") from None


_RANK_CODES: dict[Rank, str] = {
    **{Rank(v): str(v) for v in range(2, 11)},
    Rank.JACK: "J",
    Rank.QUEEN: "Q",
    Rank.KING: "K",
    Rank.ACE: "A",
    Rank.JOKER: "JK",
}
_RANKS_BY_CODE: dict[str, Rank] = {code: rank for rank, code in _RANK_CODES.items()}


class Suit(Enum):
    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def code(self) -> str:
        return self.value


#: Canonical suit order; it fixes the unshuffled order of a pack, which the fairness spec uses.
SUITS: tuple[Suit, ...] = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)


@dataclass(frozen=True, slots=True)
class Card:
    """One card. Jokers have no suit; ``index`` tells the two jokers of a pack apart."""

    rank: Rank
    suit: Suit | None
    index: int = 0

    def __post_init__(self) -> None:
        if (self.rank is Rank.JOKER) != (self.suit is None):
            raise ValueError("jokers, and only jokers, have no suit")

    @property
    def code(self) -> str:
        """Text form: rank code + suit letter (``AS``, ``10H``); jokers are ``JK1``, ``JK2``."""
        if self.suit is None:
            return f"JK{self.index + 1}"
        return f"{self.rank.code}{self.suit.code}"

    def __str__(self) -> str:
        return self.code

    @classmethod
    def parse(cls, code: str) -> Card:
        text = code.strip().upper()
        if text.startswith("JK") and text[2:] in {"1", "2"}:
            return cls(Rank.JOKER, None, int(text[2:]) - 1)
        if len(text) < 2:
            raise ValueError(f"not a card code: {code!r}")
        try:
            suit = Suit(text[-1])
        except ValueError:
            raise ValueError(f"unknown suit in card code {code!r}") from None
        return cls(Rank.from_code(text[:-1]), suit)


@dataclass(frozen=True)
class Pack:
    """A pack as data: which ranks it holds (low to high) and how many jokers."""

    name: str
    ranks: tuple[Rank, ...]
    jokers: int = 0

    @cached_property
    def cards(self) -> tuple[Card, ...]:
        """The pack in canonical order: suits C, D, H, S, each low rank to high, then jokers."""
        suited = tuple(Card(rank, suit) for suit in SUITS for rank in self.ranks)
        return suited + tuple(Card(Rank.JOKER, None, i) for i in range(self.jokers))

    @property
    def size(self) -> int:
        return len(self.ranks) * len(SUITS) + self.jokers


_STANDARD_RANKS = tuple(Rank(v) for v in range(2, 15))

#: The four packs the rule texts use.
STANDARD_52 = Pack("standard-52", _STANDARD_RANKS)
WITH_JOKERS_54 = Pack("jokers-54", _STANDARD_RANKS, jokers=2)
PIQUET_32 = Pack("piquet-32", tuple(Rank(v) for v in range(7, 15)))
RUSSIAN_36 = Pack("russian-36", tuple(Rank(v) for v in range(6, 15)))

PACKS: dict[str, Pack] = {p.name: p for p in (STANDARD_52, WITH_JOKERS_54, PIQUET_32, RUSSIAN_36)}

MIN_DECKS = 1
MAX_DECKS = 8


def shoe_size(decks: int, pack: Pack = STANDARD_52) -> int:
    if not MIN_DECKS <= decks <= MAX_DECKS:
        raise ValueError(f"a shoe holds {MIN_DECKS} to {MAX_DECKS} decks, not {decks}")
    return decks * pack.size


def shoe_card(position: int, pack: Pack = STANDARD_52) -> Card:
    """The card at ``position`` of an unshuffled shoe: decks one after another, each canonical."""
    return pack.cards[position % pack.size]
