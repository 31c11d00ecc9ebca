"""The War log, typed: one frozen ``BattleEntry`` per battle, with its wars and steals.

A battle is recorded while it is played (a game can pause in the middle of one, and a view
then shows it as ``table``), so each record has a small mutable builder that the game fills
in and freezes when the battle ends. ``to_dict`` gives the JSON the API and the CLI show:
the same members as ever, with face-down cards shown as counts until the game is over
(``reveal``). Cards are codes (``"QH"``), seats are ints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from casino.engine.war.results import GameResult


@dataclass(frozen=True, slots=True)
class WarRound:
    """One round of a war: each seat's face-down cards and new face-up card (``None`` for a
    seat that did not play in it) and the seats whose last face-up card stood."""

    down: tuple[tuple[str, ...] | None, ...]
    up: tuple[str | None, ...]
    standing: tuple[int, ...] = ()

    def to_dict(self, reveal: bool = True) -> dict[str, Any]:
        down: list[Any] = [
            None if cards is None else (list(cards) if reveal else len(cards))
            for cards in self.down
        ]
        return {"down": down, "up": list(self.up), "standing": list(self.standing)}


@dataclass(frozen=True, slots=True)
class Steal:
    """Steal War: ``seat`` played ``card`` onto the piles of ``victims`` and took them
    (``cards`` in all, its own card included), in war round ``war_round`` (0: the battle)."""

    seat: int
    card: str
    victims: tuple[int, ...]
    cards: int
    war_round: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "card": self.card,
            "from": list(self.victims),
            "cards": self.cards,
            "war_round": self.war_round,
        }


@dataclass(frozen=True, slots=True)
class Cycle:
    """The position after this battle was first seen after battle ``since_battle``."""

    since_battle: int
    length: int

    def to_dict(self) -> dict[str, int]:
        return {"since_battle": self.since_battle, "length": self.length}


@dataclass(frozen=True, slots=True)
class RoundOver:
    """Tod und Leben: round ``round`` of a match is over; cards won per seat and its winner."""

    round: int
    won: tuple[int, ...]
    winners: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"round": self.round, "won": list(self.won), "winners": list(self.winners)}


@dataclass(frozen=True)
class BattleEntry:
    """Everything one battle did. Optional members are ``None`` where the rules or the battle
    have none of them (no steals outside Steal War, no pair outside the hand of three...).

    ``turned``: each seat's first face-up card (``None``: out of cards); ``winner``/``won``:
    who took the cards and how many (``None``/0 for a void war); ``eliminated``: seats out of
    cards in this battle; ``void``: the seats of a war nobody could finish, each taking back
    its own cards; ``top``: Steal War, the won card laid on top of the pile; ``pair_to``: hand
    of three, the seat given the two cards that began the war; ``stocks``/``piles``/``aside``/
    ``hands``: per seat, card counts after the battle (``None`` while it is being played);
    ``result``: the game's result when the battle ended it; ``cycle``: when it ended in a
    repeated position.
    """

    battle: int
    turned: tuple[str | None, ...] = ()
    wars: tuple[WarRound, ...] = ()
    winner: int | None = None
    won: int = 0
    eliminated: tuple[int, ...] = ()
    stocks: tuple[int, ...] | None = None
    round: int | None = None
    steals: tuple[Steal, ...] | None = None
    void: tuple[int, ...] | None = None
    top: str | None = None
    pair_to: int | None = None
    piles: tuple[int, ...] | None = None
    aside: tuple[int, ...] | None = None
    hands: tuple[int, ...] | None = None
    result: GameResult | None = None
    round_over: RoundOver | None = None
    cycle: Cycle | None = None

    def to_dict(self, reveal: bool = True) -> dict[str, Any]:
        """The JSON form; ``reveal`` false shows face-down cards as counts only."""
        data: dict[str, Any] = {
            "battle": self.battle,
            "turned": list(self.turned),
            "wars": [war.to_dict(reveal) for war in self.wars],
            "winner": self.winner,
            "won": self.won,
            "eliminated": list(self.eliminated),
        }
        if self.round is not None:
            data["round"] = self.round
        if self.steals is not None:
            data["steals"] = [steal.to_dict() for steal in self.steals]
        if self.void is not None:
            data["void"] = list(self.void)
        if self.top is not None:
            data["top"] = self.top
        if self.pair_to is not None:
            data["pair_to"] = self.pair_to
        for name in ("stocks", "piles", "aside", "hands"):
            counts = getattr(self, name)
            if counts is not None:
                data[name] = list(counts)
        if self.result is not None:
            data["result"] = self.result.to_dict()
        if self.round_over is not None:
            data["round_over"] = self.round_over.to_dict()
        if self.cycle is not None:
            data["cycle"] = self.cycle.to_dict()
        return data


# --- builders: a battle being played ---------------------------------------------------------


@dataclass(slots=True)
class WarRoundBuilder:
    down: list[tuple[str, ...] | None]
    up: list[str | None]
    standing: list[int] = field(default_factory=list)

    def freeze(self) -> WarRound:
        return WarRound(tuple(self.down), tuple(self.up), tuple(self.standing))


class EntryBuilder:
    """A battle in progress; ``freeze`` makes its ``BattleEntry``. ``steals`` is ``None``
    outside Steal War, ``round`` outside a match of several rounds.

    The game model writes one per battle, so it is kept cheap: members not set yet read the
    class defaults below, and ``freeze`` hands what was set to the entry in one step."""

    round: int | None = None
    steals: list[Steal] | None = None
    turned: list[str | None] | tuple[()] = ()
    wars: list[WarRoundBuilder] | tuple[()] = ()
    winner: int | None = None
    won: int = 0
    eliminated: list[int] | tuple[()] = ()
    void: tuple[int, ...] | None = None
    top: str | None = None
    pair_to: int | None = None
    stocks: tuple[int, ...] | None = None
    piles: tuple[int, ...] | None = None
    aside: tuple[int, ...] | None = None
    hands: tuple[int, ...] | None = None
    result: GameResult | None = None
    round_over: RoundOver | None = None
    cycle: Cycle | None = None

    def __init__(
        self, battle: int, round: int | None = None, steals: list[Steal] | None = None
    ) -> None:
        self.battle = battle
        if round is not None:
            self.round = round
        if steals is not None:
            self.steals = steals

    def war_round(self, seats: int) -> WarRoundBuilder:
        """A new round of the war, appended."""
        built = WarRoundBuilder([None] * seats, [None] * seats)
        if isinstance(self.wars, list):
            self.wars.append(built)
        else:
            self.wars = [built]
        return built

    def eliminate(self, seat: int) -> None:
        if isinstance(self.eliminated, list):
            self.eliminated.append(seat)
        else:
            self.eliminated = [seat]

    def freeze(self) -> BattleEntry:
        # BattleEntry's fields are this builder's members with the same names and defaults:
        # what was set goes over as the entry's own values, the rest stays the class default.
        values = self.__dict__.copy()
        if "turned" in values:
            values["turned"] = tuple(self.turned)
        if "wars" in values:
            values["wars"] = tuple(war.freeze() for war in self.wars)
        if "eliminated" in values:
            values["eliminated"] = tuple(self.eliminated)
        if self.steals is not None:
            values["steals"] = tuple(self.steals)
        entry = _new_object(BattleEntry)
        _set_attribute(entry, "__dict__", values)  # frozen: no field-by-field __setattr__
        return entry


_new_object = object.__new__
_set_attribute = object.__setattr__
