"""Shared tables: one round for every bettor at the table, on a clock, dealt from a shoe
committed to in advance (docs/fairness.md, section 17).

The package's front door: everything public is importable from ``casino.engine.shared``.

| module | what it holds |
|---|---|
| ``chain`` | the hash chain of shoe seeds: ``HashChain``, ``verify_seed`` |
| ``public_value`` | the value fixed after the chain's commitment: ``PublicValue`` |
| ``rules`` | ``SharedRules``: a table's Casino War rules and its clock |
| ``shoe`` | ``SharedShoe``: the order, the burn, the cut card, the rounds (``ShoeRound``) |
| ``bets`` | ``SharedBet``: a bettor's stake and decision; ``settle_bet`` (the private hand's) |
| ``state`` | ``RoundState`` and its ``Phase``: what a dealer stores per round |
| ``events`` | ``Event``: what a follower sees |
| ``refusals`` | ``StepRefused``: a dealer's step the round cannot take, and why |
| ``steps`` | the round's steps, pure: ``open_table``, ``close_betting``, ``deal``... |
| ``bettors`` | bets and decisions within the round's windows; a bettor's result |
| ``record`` | what a shoe publishes, the document ``casino verify --shoe`` checks |
| ``odds`` | exact odds of a shared round; ``simulation``: whole shoes, production path |
"""

from casino.engine.shared.bets import (
    SharedBet,
    add_bet,
    awaits_decision,
    decide_bet,
    settle_bet,
    timed_out,
)
from casino.engine.shared.bettors import (
    accept_bet,
    accept_decision,
    settle_bettor,
    settle_bettors,
)
from casino.engine.shared.chain import HashChain, hash_down, link, parse_seed, verify_seed
from casino.engine.shared.events import Event, EventType
from casino.engine.shared.public_value import PublicSource, PublicValue
from casino.engine.shared.refusals import StepReason, StepRefused
from casino.engine.shared.rules import SharedRules
from casino.engine.shared.shoe import (
    MAX_BURN,
    SharedShoe,
    ShoeRound,
    burn_count,
    cut_range,
)
from casino.engine.shared.state import FINAL_CARDS, OVER, Phase, RoundState
from casino.engine.shared.steps import (
    Step,
    close_betting,
    close_decisions,
    deal,
    needs_next_shoe,
    next_round,
    open_table,
    round_of,
    settle,
    void,
)

__all__ = [
    "FINAL_CARDS",
    "MAX_BURN",
    "OVER",
    "Event",
    "EventType",
    "HashChain",
    "Phase",
    "PublicSource",
    "PublicValue",
    "RoundState",
    "SharedBet",
    "SharedRules",
    "SharedShoe",
    "ShoeRound",
    "Step",
    "StepReason",
    "StepRefused",
    "accept_bet",
    "accept_decision",
    "add_bet",
    "awaits_decision",
    "burn_count",
    "close_betting",
    "close_decisions",
    "cut_range",
    "deal",
    "decide_bet",
    "hash_down",
    "link",
    "needs_next_shoe",
    "next_round",
    "open_table",
    "parse_seed",
    "round_of",
    "settle",
    "settle_bet",
    "settle_bettor",
    "settle_bettors",
    "timed_out",
    "verify_seed",
    "void",
]
