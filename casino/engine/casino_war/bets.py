"""The bets of a Casino War round: stakes and amounts returned per bet, and their labels.

Money is integer minor units. A payout is the amount returned to the wallet for a bet, stake
included (0 when the bet is lost), so ``net = sum(payouts) - sum(stakes)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

#: The bets of a one-hand round, in the order recall lists them (the keys of ``Bets.to_dict``).
BET_NAMES: tuple[str, ...] = ("ante", "tie_bet", "raise")
#: The bets of one hand in the hands shape (the keys of ``HandBets.to_dict``).
HAND_BET_NAMES: tuple[str, ...] = ("ante", "tie_bet", "raise", "war_tie_bet")


@dataclass(frozen=True)
class Bets:
    """One amount per bet of a one-hand round: stakes, or amounts returned."""

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
class HandBets:
    """One amount per bet of a hand (or a round's totals): stakes, or amounts returned."""

    ante: int = 0
    tie_bet: int = 0
    raise_: int = 0
    war_tie_bet: int = 0

    @property
    def total(self) -> int:
        return self.ante + self.tie_bet + self.raise_ + self.war_tie_bet

    def __add__(self, other: HandBets) -> HandBets:
        return HandBets(
            self.ante + other.ante,
            self.tie_bet + other.tie_bet,
            self.raise_ + other.raise_,
            self.war_tie_bet + other.war_tie_bet,
        )

    def __sub__(self, other: HandBets) -> HandBets:
        """What changed between two readings (e.g. what a decision staked and settled)."""
        return HandBets(
            self.ante - other.ante,
            self.tie_bet - other.tie_bet,
            self.raise_ - other.raise_,
            self.war_tie_bet - other.war_tie_bet,
        )

    def to_dict(self) -> dict[str, int]:
        return {
            "ante": self.ante,
            "tie_bet": self.tie_bet,
            "raise": self.raise_,
            "war_tie_bet": self.war_tie_bet,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, int]) -> HandBets:
        return cls(data["ante"], data["tie_bet"], data["raise"], data.get("war_tie_bet", 0))


@dataclass(frozen=True)
class HandBet:
    """What a hand stakes when the round is dealt: an ante (0 for a tie-only bet, where the
    table allows it) and a tie bet (0 for none). The raise and the war tie bet come later,
    with the decision to go to war."""

    ante: int
    tie_bet: int = 0

    def to_dict(self) -> dict[str, int]:
        return {"ante": self.ante, "tie_bet": self.tie_bet}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HandBet:
        return cls(ante=data["ante"], tie_bet=data.get("tie_bet", 0))


class BetOutcome(StrEnum):
    """How one bet of a round stands: the closed set recall shows per bet.

    ``win``: more than the stake came back; ``push``: exactly the stake; ``lose``: nothing;
    ``surrender``: half the ante came back (the only partial return); ``pending``: placed and
    not settled yet (the ante while a tie awaits the decision, a ladder tie bet until the
    hand's wars end); ``none``: not placed (no tie bet, or no raise because the round did not
    go to war).
    """

    WIN = "win"
    LOSE = "lose"
    PUSH = "push"
    SURRENDER = "surrender"
    PENDING = "pending"
    NONE = "none"


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
