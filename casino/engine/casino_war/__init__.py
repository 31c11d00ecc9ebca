"""Casino War: table rules, the provably fair deal, and the round as a state machine.

The package's front door: everything public is importable from ``casino.engine.casino_war``.

| module | what it holds |
|---|---|
| ``rule_values`` | bounds and closed sets of the rules: ``WarTies``, ``Dealing``... |
| ``rules`` | ``TableRules``: a table's rules as frozen data, their dict form |
| ``rule_checks`` | refusing rules the engine cannot deal, and bets a table does not take |
| ``states`` | decisions, who made them, round and hand statuses, outcomes |
| ``bets`` | stakes and returns per bet (``Bets``, ``HandBets``, ``HandBet``), their labels |
| ``deal`` | the provably fair deal: ``deal_casino_war`` (seven cards), ``RoundShoe`` (on demand) |
| ``classic`` | ``CasinoWarRound``: the one-hand round of the original rules, fast |
| ``hand`` | ``Hand``: one hand's state and how its bets settle |
| ``table_round`` | ``TableRound``: a round of 1 to 5 hands under any rules; its replay |
| ``results`` | what a round records: ``TableRoundResult``, ``HandResult``, ``WarDeal``... |
"""

from casino.engine.casino_war.bets import (
    BET_NAMES,
    HAND_BET_NAMES,
    BetOutcome,
    Bets,
    HandBet,
    HandBets,
    bet_outcome,
    bet_outcomes,
)
from casino.engine.casino_war.classic import CasinoWarRound, RoundResult, WarCards, replay_round
from casino.engine.casino_war.deal import (
    CARDS_PER_ROUND,
    DEALING_ORDER,
    CasinoWarDeal,
    RoundShoe,
    deal_casino_war,
)
from casino.engine.casino_war.results import (
    HandDecision,
    HandResult,
    RoundInputs,
    TableRoundResult,
    WarDeal,
)
from casino.engine.casino_war.rule_values import (
    ALLOWED_TIE_PAYS,
    BURNS_PER_WAR,
    DEFAULT_MAX_WAR_TIES,
    MAX_DECISION_SECONDS,
    MAX_HANDS,
    MAX_LADDER_PAYS,
    MAX_WAR_TIES,
    MIN_DECISION_SECONDS,
    MIN_WAR_TIES,
    Dealing,
    RecordShape,
    WarTies,
)
from casino.engine.casino_war.rules import ORIGINAL_RULES, RULE_NAMES, TableRules
from casino.engine.casino_war.states import (
    DecidedBy,
    Decision,
    HandStatus,
    Outcome,
    RoundStatus,
)
from casino.engine.casino_war.table_round import TableRound, replay_table_round

__all__ = [
    "ALLOWED_TIE_PAYS",
    "BET_NAMES",
    "BURNS_PER_WAR",
    "CARDS_PER_ROUND",
    "DEALING_ORDER",
    "DEFAULT_MAX_WAR_TIES",
    "HAND_BET_NAMES",
    "MAX_DECISION_SECONDS",
    "MAX_HANDS",
    "MAX_LADDER_PAYS",
    "MAX_WAR_TIES",
    "MIN_DECISION_SECONDS",
    "MIN_WAR_TIES",
    "ORIGINAL_RULES",
    "RULE_NAMES",
    "BetOutcome",
    "Bets",
    "CasinoWarDeal",
    "CasinoWarRound",
    "Dealing",
    "DecidedBy",
    "Decision",
    "HandBet",
    "HandBets",
    "HandDecision",
    "HandResult",
    "HandStatus",
    "Outcome",
    "RecordShape",
    "RoundInputs",
    "RoundResult",
    "RoundShoe",
    "RoundStatus",
    "TableRound",
    "TableRoundResult",
    "TableRules",
    "WarCards",
    "WarDeal",
    "WarTies",
    "bet_outcome",
    "bet_outcomes",
    "deal_casino_war",
    "replay_round",
    "replay_table_round",
]
