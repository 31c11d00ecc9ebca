"""The values Casino War table rules may take: bounds, and the closed sets of choices."""

from __future__ import annotations

from enum import StrEnum

#: Tie-bet payouts a table may offer, as k in "pays k to 1" (the war tie bet's too).
ALLOWED_TIE_PAYS: tuple[int, ...] = (10, 11, 12)
MAX_HANDS = 5
#: ``max_war_ties`` counts the first deal's tie as the first: 2 allows one repeated war.
MIN_WAR_TIES = 2
MAX_WAR_TIES = 8
DEFAULT_MAX_WAR_TIES = 4
#: The largest step of a tie ladder, k in "pays k to 1".
MAX_LADDER_PAYS = 1000
MIN_DECISION_SECONDS = 5
MAX_DECISION_SECONDS = 600
BURNS_PER_WAR = 3


class WarTies(StrEnum):
    """What a tied war does.

    ``push``: the tied war is paid as a won war (the ante pushes, the raise wins even money):
    the rule without a bonus, the default. ``bonus``: the same plus a bonus equal to the ante
    on the raise (``war_tie_bonus``). ``repeat``: the war is fought again (three more burns,
    new cards, no new bets) until it is decided or ``max_war_ties`` consecutive ties are
    reached; a tie at the cap is paid as a won war.
    """

    PUSH = "push"
    BONUS = "bonus"
    REPEAT = "repeat"


class Dealing(StrEnum):
    """The dealing procedure. ``classic``: the player's card, then the dealer's (one hand,
    the order since the first round was dealt). ``table``: the dealer's card, then one card
    per hand in hand order. Both deal each war the same way: three burns, one card to each
    hand at war in hand order, then one dealer card for all of them."""

    CLASSIC = "classic"
    TABLE = "table"


class RecordShape(StrEnum):
    """How a round is serialised: ``one_hand`` is the shape of every round stored before
    several hands existed (``player_card``, ``war``, ``bets``...); ``hands`` holds a list of
    hands and a list of wars."""

    ONE_HAND = "one_hand"
    HANDS = "hands"
