"""The rules of a War game as data: one frozen value that every variant is a setting of.

Nothing here plays a card. ``WarRules`` only says what the table agreed on and refuses
combinations that cannot be played, with a message that names the clash. The presets in
``presets.py`` are named ``WarRules`` values; the game model in ``game.py`` reads them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from enum import Enum, StrEnum
from typing import Any

from casino.engine.cards import PACKS, Pack, Rank
from casino.engine.errors import InvalidRules

MIN_SEATS = 2
MAX_SEATS = 4
HAND_OF_THREE = 3
#: ``war_down`` value meaning "as many cards as the tied rank is worth" (Război).
BY_RANK = "rank"
WAR_DOWN_COUNTS = (0, 1, 2, 3)
BATTLE_LIMITS = (50, 100, 250, 500)
ROUND_COUNTS = (1, 3, 5)
ACE_VALUES = (1, 11)


class RepeatTie(StrEnum):
    """What a tie between the face-up cards of a war leads to."""

    WAR = "war"  # another war of the same size (the tied rank again decides it in Război)
    FACE_UP = "face-up"  # Greek seed: one more card face up at a time, no face-down cards


class ReturnOrder(StrEnum):
    """Order in which won cards go under the stock (or onto the capture pile)."""

    SHUFFLED = "shuffled"
    FIXED = "fixed"  # seat order: seat 0's cards as played, then seat 1's, ... whoever won
    WINNER_FIRST = "winner-first"  # the winner's cards first, then the others' in seat order


class ShortStack(StrEnum):
    """What a player short of cards for a war does; the seeds disagree."""

    LOSE = "lose"
    LAST_UP = "last-up"
    ALL_BUT_LAST = "all-but-last"
    MATCH_FEWEST = "match-fewest"  # Război: everyone plays as many as the shortest stock


class WarJoins(StrEnum):
    """Who fights a war when three or four play."""

    ALL = "all"
    TIED = "tied"


class WonCards(StrEnum):
    """Where a battle's winner puts the cards it won."""

    STOCK = "stock"  # under its own stock
    PILE = "pile"  # a face-up capture pile, turned into a new stock when the stock runs out
    ASIDE = "aside"  # set aside for good and counted at the end (Tod und Leben)


class Ending(StrEnum):
    ALL_CARDS = "all-cards"  # last player holding cards wins
    THREE_WARS = "three-wars"  # Greek seed: first to win three wars
    ONE_PASS = "one-pass"  # Tod und Leben: every card is played once, most cards won wins
    HOLDER_LOSES = "holder-loses"  # P'yanitsa: the player left holding all the cards loses
    FIRST_OUT_LOSES = "first-out-loses"  # P'yanitsa: the first player out of cards loses


class JokerDeal(StrEnum):
    RANDOM = "random"
    SPLIT = "split"  # jokers set aside, then one buried in each player's stock


_ENUM_FIELDS: dict[str, type[Enum]] = {
    "joker_deal": JokerDeal,
    "repeat_tie": RepeatTie,
    "return_order": ReturnOrder,
    "short_stack": ShortStack,
    "war_joins": WarJoins,
    "won_cards": WonCards,
    "ending": Ending,
}


@dataclass(frozen=True, slots=True)
class WarRules:
    """Every setting of a War game. Defaults are classic two-player War with three cards down."""

    seats: int = 2
    pack: str = "standard-52"
    joker_deal: JokerDeal = JokerDeal.RANDOM
    war_down: int | str = 3
    ace_value: int = 11
    repeat_tie: RepeatTie = RepeatTie.WAR
    return_order: ReturnOrder = ReturnOrder.SHUFFLED
    short_stack: ShortStack = ShortStack.LAST_UP
    war_joins: WarJoins = WarJoins.ALL
    won_cards: WonCards = WonCards.STOCK
    stealing: bool = False
    protect_own_pile: bool = False
    hand_size: int = 0
    low_beats_ace: bool = False
    ending: Ending = Ending.ALL_CARDS
    battle_limit: int | None = None
    rounds: int = 1

    def __post_init__(self) -> None:
        for name, enum in _ENUM_FIELDS.items():
            value = getattr(self, name)
            if not isinstance(value, enum):
                object.__setattr__(self, name, _enum_value(name, enum, value))
        _check_values(self)
        _check_combinations(self)

    # --- derived facts the game reads ------------------------------------------------------

    @property
    def pack_spec(self) -> Pack:
        return PACKS[self.pack]

    @property
    def cards_per_seat(self) -> int:
        """Stocks are dealt equal; the odd cards left over stay out of play."""
        if self.joker_deal is JokerDeal.SPLIT:
            return (self.pack_spec.size - self.pack_spec.jokers) // self.seats + 1
        return self.pack_spec.size // self.seats

    @property
    def has_decisions(self) -> bool:
        """Whether any seat ever chooses anything (otherwise a game plays itself)."""
        return self.stealing or self.hand_size > 0

    @property
    def can_cycle(self) -> bool:
        """A fixed return order with no battle limit can repeat a position forever."""
        return (
            self.return_order is not ReturnOrder.SHUFFLED
            and self.battle_limit is None
            and self.won_cards is not WonCards.ASIDE
        )

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for name in _ENUM_FIELDS:
            data[name] = getattr(self, name).value
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WarRules:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InvalidRules(f"unknown rule setting(s): {', '.join(unknown)}")
        return cls(**data)


def _enum_value(name: str, enum: type[Enum], value: object) -> Enum:
    try:
        return enum(value)
    except ValueError:
        allowed = ", ".join(repr(m.value) for m in enum)
        raise InvalidRules(f"{name} must be one of {allowed}, not {value!r}") from None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_values(r: WarRules) -> None:
    if not _is_int(r.seats) or not MIN_SEATS <= r.seats <= MAX_SEATS:
        raise InvalidRules(f"seats must be {MIN_SEATS} to {MAX_SEATS}, not {r.seats!r}")
    if r.pack not in PACKS:
        raise InvalidRules(f"pack must be one of {', '.join(sorted(PACKS))}, not {r.pack!r}")
    if r.war_down != BY_RANK and (not _is_int(r.war_down) or r.war_down not in WAR_DOWN_COUNTS):
        raise InvalidRules(
            f"war_down must be 0, 1, 2, 3 or {BY_RANK!r} (Război), not {r.war_down!r}"
        )
    if not _is_int(r.ace_value) or r.ace_value not in ACE_VALUES:
        raise InvalidRules(f"ace_value must be 1 or 11, not {r.ace_value!r}")
    for name in ("stealing", "protect_own_pile", "low_beats_ace"):
        if not isinstance(getattr(r, name), bool):
            raise InvalidRules(f"{name} must be true or false, not {getattr(r, name)!r}")
    if not _is_int(r.hand_size) or r.hand_size not in (0, HAND_OF_THREE):
        raise InvalidRules(f"hand_size must be 0 or {HAND_OF_THREE}, not {r.hand_size!r}")
    if r.battle_limit is not None and (
        not _is_int(r.battle_limit) or r.battle_limit not in BATTLE_LIMITS
    ):
        limits = ", ".join(map(str, BATTLE_LIMITS))
        raise InvalidRules(f"battle_limit must be null or one of {limits}, not {r.battle_limit!r}")
    if not _is_int(r.rounds) or r.rounds not in ROUND_COUNTS:
        raise InvalidRules(f"rounds must be one of 1, 3, 5, not {r.rounds!r}")


def _check_combinations(r: WarRules) -> None:
    """Refuse settings that contradict each other; each message names both sides."""
    jokers = r.pack_spec.jokers > 0
    if r.joker_deal is JokerDeal.SPLIT and not jokers:
        raise InvalidRules("joker_deal 'split' needs a pack with jokers (pack 'jokers-54')")
    if r.joker_deal is JokerDeal.SPLIT and r.seats != MIN_SEATS:
        raise InvalidRules(
            "joker_deal 'split' buries one joker in each of two stocks: seats must be 2"
        )
    if r.war_down == BY_RANK and jokers:
        raise InvalidRules(
            "war_down 'rank' (Război) gives no card count for a joker: use a pack without jokers"
        )
    if r.low_beats_ace and jokers:
        raise InvalidRules(
            "low_beats_ace is undefined with jokers above the ace: use a pack without jokers"
        )
    if r.stealing and r.won_cards is not WonCards.PILE:
        raise InvalidRules("stealing takes capture piles: won_cards must be 'pile'")
    if r.stealing and r.short_stack is not ShortStack.LOSE:
        raise InvalidRules(
            "in Steal War a player who runs out during a war loses: short_stack must be 'lose'"
        )
    if r.protect_own_pile and not r.stealing:
        raise InvalidRules("protect_own_pile only means something with stealing on")
    if r.hand_size:
        if r.seats != MIN_SEATS:
            raise InvalidRules("a hand of three is a two-player game: seats must be 2")
        if r.won_cards is not WonCards.STOCK:
            raise InvalidRules("a hand of three refills from the stock: won_cards must be 'stock'")
        if r.war_down == BY_RANK:
            raise InvalidRules(
                "a hand of three puts a fixed number of cards down: war_down cannot be 'rank'"
            )
        if r.short_stack not in (ShortStack.LOSE, ShortStack.ALL_BUT_LAST):
            raise InvalidRules(
                "with a hand of three the deciding card always comes from the hand: "
                "short_stack must be 'lose' or 'all-but-last'"
            )
    if (r.ending is Ending.ONE_PASS) != (r.won_cards is WonCards.ASIDE):
        raise InvalidRules(
            "ending 'one-pass' and won_cards 'aside' go together: tricks won are set aside "
            "and counted once the stocks are played out"
        )
    if r.ending is Ending.ONE_PASS and r.battle_limit is not None:
        raise InvalidRules(
            "ending 'one-pass' ends when the stocks are played out: battle_limit must be null"
        )
    if r.rounds != 1 and r.ending is not Ending.ONE_PASS:
        raise InvalidRules("rounds only apply to ending 'one-pass' (a match of Tod und Leben)")


def war_value(rank: int, ace_value: int) -> int:
    """Cards each player puts into a Război war: the rank's value, face cards 10."""
    if rank == Rank.ACE:
        return ace_value
    return min(rank, 10)
