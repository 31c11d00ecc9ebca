"""The closed sets a Casino War round is described with: decisions, who made them, where a
round and each of its hands stand, and how a hand ended."""

from __future__ import annotations

from enum import StrEnum


class Decision(StrEnum):
    SURRENDER = "surrender"
    WAR = "war"


class DecidedBy(StrEnum):
    """Who decided a tied hand: the player, the operator's system (``resolve-stale``), or the
    table's decision clock (``timeout``, only at a table with ``decision_seconds``)."""

    PLAYER = "player"
    SYSTEM = "system"
    TIMEOUT = "timeout"


class RoundStatus(StrEnum):
    AWAITING_DECISION = "awaiting_decision"
    SETTLED = "settled"


class HandStatus(StrEnum):
    """Where one hand of a round stands.

    ``at_war``: the hand chose war, and the war waits for the other tied hands' decisions
    (the war is dealt once, for every hand at war, when the last of them has decided).
    """

    AWAITING_DECISION = "awaiting_decision"
    AT_WAR = "at_war"
    SETTLED = "settled"


class Outcome(StrEnum):
    """How the ante side of a hand ended (the side bets are reported separately).

    ``tie``: the first two cards tied on a hand without an ante (a tie-only bet), which
    settles at once. ``war_tie``: the (last) war tied: paid as a won war, with the bonus
    where the table pays it, or the cap of repeated ties reached.
    """

    WIN = "win"
    LOSS = "loss"
    TIE = "tie"
    SURRENDER = "surrender"
    WAR_WIN = "war_win"
    WAR_TIE = "war_tie"
    WAR_LOSS = "war_loss"
