"""Why the engine refuses a dealer's step: never a player's error, so no problem code of its
own (the generic ``illegal_action``), but a ``reason`` a dealer process can act on."""

from __future__ import annotations

from enum import StrEnum

from casino.engine.errors import IllegalAction


class StepReason(StrEnum):
    #: the round is not in the phase this step moves on from (applied twice, or skipped ahead)
    OUT_OF_ORDER = "out_of_order"
    #: the step's time has not come (the betting window, the decision window, the pause)
    NOT_DUE = "not_due"
    #: the shoe given is not the round's (another index, seeds, public value or rules), or
    #: not the next link of its chain
    WRONG_SHOE = "wrong_shoe"
    #: the cut card came out: the next round needs the chain's next shoe
    NEXT_SHOE_NEEDED = "next_shoe_needed"
    #: the shoe deals no round of that number
    NO_SUCH_ROUND = "no_such_round"


class StepRefused(IllegalAction):
    """A step the round cannot take: ``reason`` says why (``StepReason``)."""

    def __init__(self, detail: str, reason: StepReason) -> None:
        super().__init__(detail)
        self.reason = reason
