"""A bettor at a shared table is paid exactly what a private one-hand round dealt the same
cards pays: checked by construction against the private engine (``TableRound`` on a stacked
shoe of the round's cards, and the classic ``CasinoWarRound`` where its rules allow), for
every rule set, bet and decision; and bets and decisions are refused as documented."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from casino.engine.casino_war import (
    CasinoWarDeal,
    CasinoWarRound,
    DecidedBy,
    Decision,
    HandBet,
    HandDecision,
    RoundShoe,
    RoundStatus,
    TableRound,
    TableRules,
)
from casino.engine.errors import IllegalAction, InvalidBet
from casino.engine.shared import (
    HashChain,
    SharedBet,
    SharedShoe,
    ShoeRound,
    add_bet,
    awaits_decision,
    decide_bet,
    settle_bet,
)

RULE_SETS = [
    TableRules(decks=8, decision_seconds=10),
    TableRules(decks=6, war_tie_bonus=True, decision_seconds=10, tie_only=True),
    TableRules(
        decks=8,
        war_ties="repeat",
        tie_ladder=(10, 25, 50, 200),
        decision_seconds=10,
        tie_only=True,
        max_war_tie_bet=1_000,
    ),
    TableRules(decks=1, war_ties="repeat", max_war_ties=3, decision_seconds=30, tie_pays=12),
    TableRules(decks=2, max_war_tie_bet=500, war_tie_pays=12, decision_seconds=5),
]


def private(rules: TableRules, dealt: ShoeRound, bet: SharedBet) -> TableRound:
    """The private engine's one-hand round on the same cards, decided the same way."""
    game = TableRound.start(rules, RoundShoe.stacked(dealt.cards), [HandBet(bet.ante, bet.tie_bet)])
    if game.status is RoundStatus.AWAITING_DECISION:
        choice = bet.decision or HandDecision(Decision.SURRENDER, DecidedBy.TIMEOUT)
        game.decide(0, choice)
    return game


def random_bet(rules: TableRules, dealt: ShoeRound, rng: random.Random) -> SharedBet:
    if rules.tie_only and rng.random() < 0.2:
        bet = SharedBet("b", 0, rng.choice([100, 500]))
    else:
        bet = SharedBet("b", rng.choice([100, 200, 1000]), rng.choice([0, 0, 100, 300]))
    if awaits_decision(dealt, bet) and rng.random() < 0.85:
        if rng.random() < 0.35:
            bet = decide_bet(rules, dealt, bet, "surrender")
        else:
            placed = rng.choice([0, 100]) if rules.war_tie_bet_offered else 0
            bet = decide_bet(rules, dealt, bet, "war", war_tie_bet=placed)
    return bet


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: json.dumps(r.to_dict()))
def test_every_bettor_is_paid_as_a_private_round_on_the_same_cards(rules: TableRules) -> None:
    rng = random.Random(json.dumps(rules.to_dict()))
    chain = HashChain(hashlib.sha256(json.dumps(rules.to_dict()).encode()).digest(), 30)
    seen = {"war": 0, "surrender": 0, "timeout": 0, "repeat": 0, "war_tie_bet": 0}
    for index in range(1, 31):
        shoe = SharedShoe.deal(chain.seed(index), "public", index, rules)
        for dealt in shoe.rounds:
            for _ in range(3 if dealt.is_tie else 1):
                bet = random_bet(rules, dealt, rng)
                mine = settle_bet(rules, dealt, bet)
                game = private(rules, dealt, bet)
                assert game.status is RoundStatus.SETTLED
                assert mine == game.result.hands[0]
                if mine.decision is not None:
                    key = "timeout" if mine.decision.decided_by is DecidedBy.TIMEOUT else None
                    seen[key or mine.decision.action.value] += 1
                seen["repeat"] += len(dealt.wars) > 1
                seen["war_tie_bet"] += mine.bets.war_tie_bet > 0
    assert seen["war"] > 20 and seen["surrender"] > 5 and seen["timeout"] > 2
    if rules.repeats_wars:
        assert seen["repeat"] > 0
    if rules.war_tie_bet_offered:
        assert seen["war_tie_bet"] > 0


def test_the_classic_round_pays_the_same_where_its_rules_allow() -> None:
    rules = TableRules(decks=8, decision_seconds=10, war_tie_bonus=True)
    chain = HashChain(hashlib.sha256(b"classic").digest(), 10)
    wars = 0
    for index in range(1, 11):
        shoe = SharedShoe.deal(chain.seed(index), "public", index, rules)
        for dealt in shoe.rounds:
            cards = list(dealt.cards) + [dealt.cards[0]] * (7 - len(dealt.cards))  # never read
            for action in ("war", "surrender"):
                bet = SharedBet("b", 300, 100)
                classic = CasinoWarRound.start(rules, CasinoWarDeal.from_cards(cards), 300, 100)
                if dealt.is_tie:
                    bet = decide_bet(rules, dealt, bet, action)
                    classic.decide(action)
                    wars += action == "war"
                mine = settle_bet(rules, dealt, bet)
                result = classic.result
                assert (mine.payouts.ante, mine.payouts.tie_bet, mine.payouts.raise_) == (
                    result.payouts.ante,
                    result.payouts.tie_bet,
                    result.payouts.raise_,
                )
                assert mine.net == result.net
    assert wars > 20


def test_a_tied_bettor_who_does_not_decide_surrenders_by_the_clock() -> None:
    rules = TableRules(decks=8, decision_seconds=10)
    dealt = ShoeRound.from_dict(
        {"round": 1, "start": 6, "player_card": "9H", "dealer_card": "9S", "wars": []}
    )
    result = settle_bet(rules, dealt, SharedBet("b", 200, 100))
    assert result.decision == HandDecision(Decision.SURRENDER, DecidedBy.TIMEOUT)
    assert result.payouts.to_dict() == {"ante": 100, "tie_bet": 1100, "raise": 0, "war_tie_bet": 0}


# --- bets ----------------------------------------------------------------------------------

RULES = TableRules(decks=8, decision_seconds=10, max_tie_bet=1_000, max_ante=2_000, tie_only=True)


def test_a_second_bet_adds_to_the_first() -> None:
    first = add_bet(RULES, None, "ann", 500, 100)
    second = add_bet(RULES, first, "ann", 300)
    assert second == SharedBet("ann", 800, 100)
    assert add_bet(RULES, second, "ann", 0, 200) == SharedBet("ann", 800, 300)


def test_a_bet_that_would_pass_a_limit_is_refused_whole() -> None:
    first = add_bet(RULES, None, "ann", 1_500, 900)
    with pytest.raises(InvalidBet) as ante:
        add_bet(RULES, first, "ann", 600, 0)
    assert ante.value.code == "ante_out_of_range"
    with pytest.raises(InvalidBet) as tie:
        add_bet(RULES, first, "ann", 0, 200)
    assert tie.value.code == "tie_bet_out_of_range"


@pytest.mark.parametrize(
    ("ante", "tie_bet", "code"),
    [
        (0, 0, "invalid_bet"),
        (-100, 200, "invalid_bet"),
        (150, 0, "ante_not_multiple_of_increment"),
        (100.0, 0, "bet_not_integer"),
        (50, 0, "ante_out_of_range"),
    ],
)
def test_bets_the_table_does_not_take_are_refused(ante: int, tie_bet: int, code: str) -> None:
    with pytest.raises(InvalidBet) as refused:
        add_bet(RULES, None, "ann", ante, tie_bet)
    assert refused.value.code == code


def test_a_bet_adds_only_to_the_same_bettors() -> None:
    with pytest.raises(InvalidBet):
        add_bet(RULES, SharedBet("ann", 100), "bob", 100)


def test_a_tie_bet_alone_needs_a_table_that_takes_it() -> None:
    assert add_bet(RULES, None, "ann", 0, 100) == SharedBet("ann", 0, 100)
    with pytest.raises(InvalidBet):
        add_bet(TableRules(decision_seconds=10), None, "ann", 0, 100)


# --- decisions -----------------------------------------------------------------------------

TIE = ShoeRound.from_dict(
    {
        "round": 3,
        "start": 10,
        "player_card": "7H",
        "dealer_card": "7C",
        "wars": [{"burns": ["2C", "3C", "4C"], "player_card": "KD", "dealer_card": "5S"}],
    }
)
NO_TIE = ShoeRound.from_dict(
    {"round": 4, "start": 17, "player_card": "7H", "dealer_card": "8C", "wars": []}
)


def test_decisions_are_taken_once_on_a_tie_with_an_ante() -> None:
    bet = SharedBet("ann", 200, 100)
    decided = decide_bet(RULES, TIE, bet, "war")
    assert decided.decision == HandDecision(Decision.WAR)
    for dealt, placed in ((NO_TIE, bet), (TIE, decided), (TIE, SharedBet("ann", 0, 100))):
        with pytest.raises(IllegalAction) as refused:
            decide_bet(RULES, dealt, placed, "surrender")
        assert refused.value.code == "round_not_awaiting_decision"


@pytest.mark.parametrize(
    ("rules", "action", "war_tie_bet", "by", "code"),
    [
        (RULES, "fold", 0, "player", "unknown_decision"),
        (RULES, "surrender", 100, "player", "illegal_action"),
        (RULES, "war", 0, "timeout", "illegal_action"),
        (RULES, "war", 100, "player", "invalid_bet"),
        (
            TableRules(decks=8, decision_seconds=10, max_war_tie_bet=500),
            "war",
            50,
            "player",
            "invalid_bet",
        ),
    ],
)
def test_decisions_the_table_does_not_take_are_refused(
    rules: TableRules, action: str, war_tie_bet: int, by: str, code: str
) -> None:
    with pytest.raises((IllegalAction, InvalidBet)) as refused:
        decide_bet(
            rules, TIE, SharedBet("ann", 200), action, war_tie_bet=war_tie_bet, decided_by=by
        )
    assert refused.value.code == code


def test_a_decision_on_a_round_without_one_does_not_settle() -> None:
    wrong = SharedBet("ann", 200, 0, HandDecision(Decision.WAR))
    with pytest.raises(IllegalAction) as refused:
        settle_bet(RULES, NO_TIE, wrong)
    assert refused.value.code == "round_not_awaiting_decision"


def test_a_bet_and_its_decision_round_trip_through_their_dict_form() -> None:
    bet = decide_bet(
        TableRules(decks=8, decision_seconds=10, max_war_tie_bet=500),
        TIE,
        SharedBet("ann", 200, 100),
        "war",
        war_tie_bet=100,
    )
    assert SharedBet.from_dict(json.loads(json.dumps(bet.to_dict()))) == bet
    assert bet.stake == 300
