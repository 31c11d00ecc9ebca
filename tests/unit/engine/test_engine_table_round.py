"""TableRound: rounds of several hands, repeated wars, the ladder, the war tie bet, tie-only
bets and the decision clock, on stacked shoes; and the same cards and payouts as the classic
round wherever the rules are the original ones."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from casino.engine.casino_war import (
    CasinoWarRound,
    DecidedBy,
    Decision,
    HandBet,
    HandBets,
    HandDecision,
    HandStatus,
    Outcome,
    RecordShape,
    RoundInputs,
    RoundShoe,
    RoundStatus,
    TableRound,
    TableRoundResult,
    TableRules,
    deal_casino_war,
    replay_table_round,
)
from casino.engine.errors import IllegalAction, InvalidBet, InvalidRules

SEED = hashlib.sha256(b"table rounds").digest()
LADDER = (10, 25, 50, 200)
REPEAT = TableRules(decks=8, war_ties="repeat", tie_ladder=LADDER)


def play(rules: TableRules, codes: str, *bets: tuple[int, int]) -> TableRound:
    return TableRound.start(rules, RoundShoe.from_codes(codes), [HandBet(a, t) for a, t in bets])


def pays(game: TableRound, hand: int) -> dict[str, int]:
    return game.snapshot().hands[hand].payouts.to_dict()


def test_a_table_of_several_hands_deals_the_dealer_first_then_each_hand() -> None:
    game = play(TableRules(max_hands=3), "10H KS 2C 10D", (100, 0), (200, 100), (300, 100))
    assert game.dealer_card.code == "10H"
    assert [hand.card.code for hand in game.hands] == ["KS", "2C", "10D"]
    assert game.status is RoundStatus.AWAITING_DECISION and game.awaiting == (2,)
    assert [hand.outcome for hand in game.hands[:2]] == [Outcome.WIN, Outcome.LOSS]
    assert pays(game, 0) == {"ante": 200, "tie_bet": 0, "raise": 0, "war_tie_bet": 0}
    assert pays(game, 1) == {"ante": 0, "tie_bet": 0, "raise": 0, "war_tie_bet": 0}
    assert pays(game, 2)["tie_bet"] == 1_100  # settled on the first two cards
    labels = game.snapshot().hands[2].outcomes
    assert labels["ante"] == "pending" and labels["tie_bet"] == "win"


def test_the_war_waits_for_every_tied_hand_then_one_dealer_card_serves_all() -> None:
    rules = TableRules(max_hands=3)
    codes = "7H 7C 7D 9S  2C 3C 4C  QS  KH  5D"
    game = play(rules, codes, (100, 0), (100, 0), (100, 0))
    assert game.awaiting == (0, 1) and game.hands[2].outcome is Outcome.WIN
    game.decide(0, "war")
    assert game.hands[0].status is HandStatus.AT_WAR
    assert game.wars == [] and game.status is RoundStatus.AWAITING_DECISION
    assert game.snapshot().hands[0].outcomes["raise"] == "pending"
    game.decide(1, Decision.WAR)
    assert game.status is RoundStatus.SETTLED
    (war,) = game.wars
    assert [c.code for c in war.burns] == ["2C", "3C", "4C"]
    assert [(i, c.code) for i, c in war.cards] == [(0, "QS"), (1, "KH")]
    assert war.dealer_card.code == "5D"
    assert [hand.outcome for hand in game.hands] == [Outcome.WAR_WIN, Outcome.WAR_WIN, Outcome.WIN]
    assert pays(game, 0) == {"ante": 100, "tie_bet": 0, "raise": 200, "war_tie_bet": 0}


def test_a_surrendered_hand_takes_no_war_card() -> None:
    game = play(
        TableRules(max_hands=3), "7H 7C 7D 9S  2C 3C 4C  QS  5D", (100, 0), (100, 0), (100, 0)
    )
    game.decide_many({0: "surrender", 1: "war"})
    (war,) = game.wars
    assert [(i, c.code) for i, c in war.cards] == [(1, "QS")]
    assert war.dealer_card.code == "5D"
    assert game.hands[0].outcome is Outcome.SURRENDER and pays(game, 0)["ante"] == 50
    assert game.hands[1].outcome is Outcome.WAR_WIN


def test_one_war_card_against_one_dealer_card_each_hand_settled_on_its_own() -> None:
    game = play(
        TableRules(max_hands=2, war_tie_bonus=True),
        "8D 8C 8S  2C 3C 4C  8H 3D 8C",
        (100, 0),
        (200, 0),
    )
    game.decide_many({0: "war", 1: "war"})
    assert game.hands[0].outcome is Outcome.WAR_TIE  # 8H against 8C: a bonus
    assert pays(game, 0) == {"ante": 100, "tie_bet": 0, "raise": 300, "war_tie_bet": 0}
    assert game.hands[1].outcome is Outcome.WAR_LOSS
    assert game.snapshot().net == 200 - 400


def test_a_repeated_war_is_fought_again_and_the_ladder_climbs() -> None:
    codes = "5C 5D  2C 3C 4C 9H 9S  2D 3D 4D 2H KD"
    game = play(REPEAT, codes, (100, 100))
    assert game.snapshot().hands[0].outcomes["tie_bet"] == "pending"  # the ladder waits
    game.decide(0, "war")
    hand = game.snapshot().hands[0]
    assert len(game.wars) == 2 and hand.ties == 2 and hand.outcome is Outcome.WAR_LOSS
    assert [c.code for c in game.wars[1].burns] == ["2D", "3D", "4D"]
    assert hand.payouts.to_dict() == {"ante": 0, "tie_bet": 2_600, "raise": 0, "war_tie_bet": 0}
    assert hand.outcomes["tie_bet"] == "win" and hand.net == 2_600 - 300


def test_the_cap_of_repeated_ties_is_paid_as_a_won_war() -> None:
    rules = TableRules(war_ties="repeat", max_war_ties=2, tie_ladder=(10, 40))
    game = play(rules, "5C 5D  2C 3C 4C 9H 9S", (100, 100))
    game.decide(0, "war")
    hand = game.snapshot().hands[0]
    assert len(game.wars) == 1 and hand.ties == 2 and hand.outcome is Outcome.WAR_TIE
    assert hand.payouts.to_dict() == {"ante": 100, "tie_bet": 4_100, "raise": 200, "war_tie_bet": 0}
    four = play(REPEAT, "5C 5D " + "2C 3C 4C 9H 9S " * 3, (100, 100))
    four.decide(0, "war")
    hand = four.snapshot().hands[0]
    assert len(four.wars) == 3 and hand.ties == 4 and hand.payouts.tie_bet == 20_100
    assert hand.payouts.raise_ == 200


def test_repeated_wars_for_several_hands_go_on_only_for_the_tied() -> None:
    rules = TableRules(max_hands=2, war_ties="repeat")
    codes = "6H 6C 6D  2C 3C 4C  9H KH 9S  2D 3D 4D  QC JC"
    game = play(rules, codes, (100, 0), (100, 0))
    game.decide_many({0: "war", 1: "war"})
    assert len(game.wars) == 2
    assert [(i, c.code) for i, c in game.wars[1].cards] == [(0, "QC")]
    assert game.wars[1].dealer_card.code == "JC"
    assert [hand.outcome for hand in game.hands] == [Outcome.WAR_WIN, Outcome.WAR_WIN]
    assert [hand.ties for hand in game.hands] == [2, 1]


def test_the_war_tie_bet_pays_on_the_first_war_only() -> None:
    rules = TableRules(war_ties="repeat", max_war_tie_bet=1_000, war_tie_pays=11)
    game = play(rules, "5C 5D  2C 3C 4C 9H 9S  2D 3D 4D 7H 7S  2H 3H 4H AC 2S", (100, 0))
    game.decide(0, "war", war_tie_bet=200)
    hand = game.snapshot().hands[0]
    assert hand.bets.war_tie_bet == 200 and hand.payouts.war_tie_bet == 2_400
    assert hand.outcomes["war_tie_bet"] == "win" and hand.ties == 3
    lost = play(rules, "5C 5D  2C 3C 4C 9H 8S", (100, 0))
    lost.decide(0, HandDecision(Decision.WAR, war_tie_bet=100))
    assert lost.snapshot().hands[0].outcomes["war_tie_bet"] == "lose"


def test_a_tie_only_hand_is_paid_on_the_tie_and_never_decides() -> None:
    rules = TableRules(tie_only=True, max_hands=2)
    game = play(rules, "9S 9H 9C", (0, 100), (100, 0))
    assert game.awaiting == (1,)
    hand = game.snapshot().hands[0]
    assert hand.outcome is Outcome.TIE and hand.status is HandStatus.SETTLED
    assert hand.payouts.tie_bet == 1_100 and hand.outcomes["ante"] == "none"
    with pytest.raises(IllegalAction) as caught:
        game.decide(0, "war")
    assert caught.value.code == "round_not_awaiting_decision"
    assert "hand 0 is not waiting" in caught.value.detail
    alone = TableRound.start(
        TableRules(tie_only=True), RoundShoe.from_codes("3C 3D"), [HandBet(0, 100)]
    )
    assert alone.status is RoundStatus.SETTLED and alone.result.net == 1_000


def test_the_decision_clock_surrenders_every_waiting_hand() -> None:
    rules = TableRules(max_hands=2, decision_seconds=20)
    game = play(rules, "4C 4D 4H", (100, 100), (200, 0))
    assert game.can_time_out()
    game.time_out()
    snap = game.snapshot()
    assert game.status is RoundStatus.SETTLED
    for hand in snap.hands:
        assert hand.decision == HandDecision(Decision.SURRENDER, DecidedBy.TIMEOUT)
        assert hand.to_dict()["decision"] == {"action": "surrender", "decided_by": "timeout"}
    assert [hand.payouts.ante for hand in snap.hands] == [50, 100]
    assert not game.can_time_out()


def test_a_timeout_needs_the_clock_and_only_surrenders() -> None:
    no_clock = play(TableRules(), "4C 4D", (100, 0))
    assert not no_clock.can_time_out()
    with pytest.raises(IllegalAction) as caught:
        no_clock.time_out()
    assert caught.value.code == "illegal_action" and "clock" in caught.value.detail
    with pytest.raises(IllegalAction) as caught:
        no_clock.decide(0, "surrender", decided_by="timeout")
    assert caught.value.code == "illegal_action" and "clock" in caught.value.detail
    clocked = play(TableRules(decision_seconds=20), "4C 4D", (100, 0))
    with pytest.raises(IllegalAction) as caught:
        clocked.decide(0, "war", decided_by=DecidedBy.TIMEOUT)
    assert caught.value.code == "illegal_action" and "clock" in caught.value.detail
    clocked.decide(0, "surrender", decided_by="timeout")
    assert clocked.snapshot().hands[0].decision == HandDecision(
        Decision.SURRENDER, DecidedBy.TIMEOUT
    )


@pytest.mark.parametrize(
    ("decisions", "error", "code", "says"),
    [
        ({0: "war", 2: "war"}, IllegalAction, "round_not_awaiting_decision", "hand 2"),
        ({0: "war", 5: "war"}, IllegalAction, "illegal_action", "hands 0 to 2"),
        ({0: "war", "1": "war"}, IllegalAction, "illegal_action", "hands 0 to 2"),
        ({0: "war", 1: "split"}, IllegalAction, "unknown_decision", "split"),
        (
            {0: "war", 1: HandDecision(Decision.SURRENDER, war_tie_bet=100)},
            IllegalAction,
            "illegal_action",
            "war tie bet",
        ),
        (
            {0: "war", 1: HandDecision(Decision.WAR, war_tie_bet=150)},
            InvalidBet,
            "invalid_bet",
            "multiple of 100",
        ),
        ({}, IllegalAction, "illegal_action", "at least one"),
    ],
)
def test_several_decisions_are_all_taken_or_none(
    decisions: dict[Any, Any], error: type[Exception], code: str, says: str
) -> None:
    rules = TableRules(max_hands=3, max_war_tie_bet=1_000)
    game = play(rules, "4C 4D 4H 9S", (100, 0), (100, 0), (100, 0))
    before = game.to_dict()
    with pytest.raises(error) as caught:
        game.decide_many(decisions)
    assert caught.value.code == code  # type: ignore[attr-defined]
    assert says in caught.value.detail  # type: ignore[attr-defined]
    assert game.to_dict() == before and game.awaiting == (0, 1)


def test_what_a_round_refuses_and_what_it_offers() -> None:
    game = play(
        TableRules(max_hands=2, surrender_allowed=False),
        "4C 4D 9H 2C 3C 4H 5S 6S",
        (100, 0),
        (100, 0),
    )
    assert game.can_decide(0, "war") and not game.can_decide(0, "surrender")
    assert not game.can_decide(1, "war") and not game.can_decide(7, "war")
    assert not game.can_decide(0, "dance")
    with pytest.raises(IllegalAction) as caught:
        game.decide(0, "surrender")
    assert caught.value.code == "surrender_not_allowed"
    with pytest.raises(InvalidBet) as no_bet:
        game.decide(0, "war", war_tie_bet=100)
    assert (no_bet.value.code, no_bet.value.detail) == (
        "invalid_bet",
        "this table has no war tie bet",
    )
    with pytest.raises(IllegalAction) as unsettled:
        _ = game.result
    assert unsettled.value.code == "round_not_settled"
    game.decide(0, "war")
    with pytest.raises(IllegalAction) as caught:
        game.decide(0, "war")
    assert caught.value.code == "round_not_awaiting_decision"
    with pytest.raises(InvalidBet) as too_many:
        play(TableRules(max_hands=2), "4C 4D 9H 2C", (100, 0), (100, 0), (100, 0))
    assert too_many.value.code == "invalid_bet" and "1 to 2 hand(s)" in too_many.value.detail


@pytest.mark.parametrize(
    "rules",
    [
        TableRules(),
        TableRules(decks=1, war_tie_bonus=True, tie_pays=12),
        TableRules(decks=2, surrender_allowed=False),
    ],
)
def test_original_rules_deal_and_pay_exactly_as_the_classic_round(rules: TableRules) -> None:
    decisions = ("war", "surrender") if rules.surrender_allowed else ("war",)
    ties = 0
    for nonce in range(3_000):
        for decision in decisions:
            classic = CasinoWarRound.start(
                rules, deal_casino_war(SEED, "c", nonce, rules.decks), 1_000, 200
            )
            table = TableRound.deal(rules, SEED, "c", nonce, [HandBet(1_000, 200)])
            if classic.status is RoundStatus.AWAITING_DECISION:
                ties += 1
                awaiting = table.snapshot().to_dict()
                assert awaiting["outcomes"] == {k: v.value for k, v in classic.bet_outcomes.items()}
                assert awaiting["payouts"] == classic.payouts.to_dict()
                classic.decide(decision)
                table.decide(0, decision)
            assert table.result.to_dict() == classic.result.to_dict()
            assert table.result.shape is RecordShape.ONE_HAND
    assert ties > 150


def test_the_shoe_reads_on_from_the_classic_seven_cards() -> None:
    for nonce in range(200):
        shoe = RoundShoe(SEED, "shoe", nonce, 6)
        far = shoe.card(30)
        seven = deal_casino_war(SEED, "shoe", nonce, 6).cards
        assert tuple(shoe.card(i) for i in range(7)) == seven
        assert RoundShoe(SEED, "shoe", nonce, 6, ahead=40).card(30) == far
    with pytest.raises(ValueError):
        RoundShoe.from_codes("2C 3C").card(2)


def test_inputs_and_replay_rebuild_the_round_whatever_the_order_of_decisions() -> None:
    rules = TableRules(max_hands=3, war_ties="repeat", max_war_tie_bet=500)
    nonce = next(
        n
        for n in range(5_000)
        if len(TableRound.deal(rules, SEED, "r", n, [HandBet(100, 100)] * 3).awaiting) >= 2
    )
    bets = [HandBet(100, 100)] * 3
    one = TableRound.deal(rules, SEED, "r", nonce, bets)
    first, second = one.awaiting[:2]
    one.decide(second, "war", war_tie_bet=100)
    one.decide_many({h: "surrender" for h in one.awaiting if h != first} | {first: "war"})
    other = TableRound.deal(rules, SEED, "r", nonce, bets)
    other.decide_many(
        {h: "surrender" for h in other.awaiting if h not in (first, second)}
        | {first: "war", second: HandDecision(Decision.WAR, war_tie_bet=100)}
    )
    assert one.to_dict() == other.to_dict()
    stored = json.loads(json.dumps(one.inputs.to_dict()))
    assert RoundInputs.from_dict(stored) == one.inputs
    again = replay_table_round(rules.to_dict(), SEED, "r", nonce, stored)
    assert again.to_dict() == one.to_dict()
    half = replay_table_round(rules, SEED, "r", nonce, RoundInputs(tuple(bets), (None,) * 3))
    assert half.status is RoundStatus.AWAITING_DECISION


def test_a_replay_refuses_a_decision_the_cards_never_asked_for() -> None:
    inputs = RoundInputs((HandBet(100),), (HandDecision(Decision.WAR),))
    nonce = next(n for n in range(100) if not deal_casino_war(SEED, "c", n, 6).is_tie)
    with pytest.raises(IllegalAction):
        replay_table_round(TableRules(), SEED, "c", nonce, inputs)


def test_the_hands_shape_round_trips() -> None:
    rules = TableRules(max_hands=2, war_ties="repeat", max_war_tie_bet=500, tie_ladder=LADDER)
    game = play(rules, "6H 6C 6D  2C 3C 4C  9H KH 9S  2D 3D 4D  QC JC", (100, 100), (100, 0))
    game.decide_many({0: HandDecision(Decision.WAR, war_tie_bet=100), 1: "war"})
    data = json.loads(json.dumps(game.to_dict()))
    assert set(data) == {"dealing", "dealer_card", "hands", "wars", "bets", "payouts", "net"}
    assert data["dealing"] == "table" and len(data["wars"]) == 2
    assert data["wars"][1] == {
        "burns": ["2D", "3D", "4D"],
        "cards": [{"hand": 0, "card": "QC"}],
        "dealer_card": "JC",
    }
    back = TableRoundResult.from_dict(data)
    assert back == game.result and back.to_dict() == data
    assert data["net"] == sum(hand["net"] for hand in data["hands"])
    assert data["payouts"]["tie_bet"] == 2_600
    pending = play(rules, "6H 6C 6D", (100, 100), (100, 0))
    pending.decide(0, "war")
    snap = json.loads(json.dumps(pending.to_dict()))
    assert snap["hands"][0]["status"] == "at_war"
    assert snap["hands"][0]["outcomes"]["tie_bet"] == "pending"
    assert TableRoundResult.from_dict(snap) == pending.snapshot()
    with pytest.raises(ValueError):
        TableRoundResult.from_dict(
            TableRound.deal(TableRules(), SEED, "c", 0, [HandBet(100)]).to_dict()
        )


def test_the_classic_round_refuses_what_it_does_not_deal_and_plays_tie_only() -> None:
    deal = deal_casino_war(SEED, "c", 0, 6)
    for rules, rule in ((TableRules(max_hands=2), "max_hands"), (REPEAT, "war_ties")):
        with pytest.raises(InvalidRules) as caught:
            CasinoWarRound.start(rules, deal, 100)
        assert caught.value.rule == rule
    nonce = next(n for n in range(200) if deal_casino_war(SEED, "c", n, 6).is_tie)
    tie_only = CasinoWarRound.start(
        TableRules(tie_only=True), deal_casino_war(SEED, "c", nonce, 6), 0, 100
    )
    assert tie_only.status is RoundStatus.SETTLED
    assert tie_only.result.outcome is Outcome.TIE and tie_only.result.net == 1_000
    table = TableRound.deal(TableRules(tie_only=True), SEED, "c", nonce, [HandBet(0, 100)])
    assert table.result.to_dict() == tie_only.result.to_dict()


def test_what_a_decision_stakes_and_settles_is_the_difference_of_two_readings() -> None:
    rules = TableRules(max_hands=2, max_war_tie_bet=1_000)
    game = play(rules, "7H 7C 7D  2C 3C 4C  QS 7S 5D", (100, 100), (200, 0))
    staked, paid = game.bets, game.payouts
    assert staked == HandBets(300, 100, 0, 0) and paid == HandBets(0, 1_100, 0, 0)
    game.decide_many({0: HandDecision(Decision.WAR, war_tie_bet=100), 1: "war"})
    assert game.bets - staked == HandBets(0, 0, 300, 100)  # the raises and the war tie bet
    assert game.payouts - paid == HandBets(300, 0, 600, 0)  # both wars won
    assert game.result.stake == 800 and game.result.net == (300 + 1_100 + 600) - 800
