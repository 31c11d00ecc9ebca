"""Casino War rounds on stacked deals: every payout path, the state machine, illegal actions.

Deals are written as seven card codes in dealing order: player, dealer, three burns, war
player, war dealer. Amounts are minor units; a payout is what goes back to the wallet for a
bet, stake included.
"""

from __future__ import annotations

import pytest

from casino.engine.cards import Card, Rank, Suit
from casino.engine.casino_war import (
    BetOutcome,
    Bets,
    CasinoWarDeal,
    CasinoWarRound,
    Decision,
    Outcome,
    RoundResult,
    RoundStatus,
    TableRules,
    WarCards,
    bet_outcome,
    bet_outcomes,
    deal_casino_war,
    replay_round,
)
from casino.engine.errors import IllegalAction, InvalidBet, InvalidRules, InvalidSeed

RULES = TableRules()
BONUS = TableRules(war_tie_bonus=True)
NO_SURRENDER = TableRules(surrender_allowed=False)


def stacked(codes: str) -> CasinoWarDeal:
    return CasinoWarDeal.from_codes(codes)


def play(
    codes: str,
    ante: int,
    tie_bet: int = 0,
    decision: Decision | None = None,
    rules: TableRules = RULES,
) -> RoundResult:
    game = CasinoWarRound.start(rules, stacked(codes), ante, tie_bet)
    if decision is not None:
        game.decide(decision)
    return game.result


# --- no tie on the first two cards ---------------------------------------------------------


def test_player_higher_wins_even_money() -> None:
    result = play("KS 5D 2C 3C 4C 9D 9S", ante=1_000)
    assert result.payouts == Bets(ante=2_000, tie_bet=0, raise_=0)
    assert result.bets == Bets(ante=1_000, tie_bet=0, raise_=0)
    assert result.net == 1_000
    assert result.decision is None and result.war is None
    assert result.outcome is Outcome.WIN


def test_player_lower_loses_the_ante() -> None:
    result = play("5S KD 2C 3C 4C 9D 9S", ante=1_000)
    assert result.payouts == Bets(0, 0, 0)
    assert result.net == -1_000
    assert result.outcome is Outcome.LOSS


def test_ace_is_high_and_suits_never_matter() -> None:
    assert play("AC KS 2C 3C 4C 9D 9S", ante=100).net == 100
    assert play("2S AC 2C 3C 4C 9D 9S", ante=100).net == -100
    # Same rank, different suits: a tie, not a win for the "higher" suit.
    game = CasinoWarRound.start(RULES, stacked("QS QC 2C 3C 4C 9D 9S"), 100)
    assert game.status is RoundStatus.AWAITING_DECISION


def test_no_tie_settles_at_once_and_loses_the_tie_bet() -> None:
    game = CasinoWarRound.start(RULES, stacked("KS 5D 2C 3C 4C 9D 9S"), 1_000, 500)
    assert game.status is RoundStatus.SETTLED
    assert game.tie_bet_payout == 0
    result = game.result
    assert result.payouts == Bets(ante=2_000, tie_bet=0, raise_=0)
    assert result.net == 2_000 - 1_500
    assert result.tie_bet_won is False


# --- tie: surrender ------------------------------------------------------------------------


def test_surrender_returns_half_the_ante() -> None:
    result = play("7S 7D 2C 3C 4C AD 2S", ante=1_000, decision=Decision.SURRENDER)
    assert result.payouts == Bets(ante=500, tie_bet=0, raise_=0)
    assert result.bets == Bets(ante=1_000, tie_bet=0, raise_=0)
    assert result.net == -500
    assert result.decision is Decision.SURRENDER
    assert result.war is None
    assert result.outcome is Outcome.SURRENDER


def test_surrender_half_is_exact_at_the_smallest_even_increment() -> None:
    rules = TableRules(min_ante=2, max_ante=10, max_tie_bet=10, bet_increment=2)
    result = play("7S 7D 2C 3C 4C AD 2S", ante=6, decision=Decision.SURRENDER, rules=rules)
    assert result.payouts.ante == 3
    assert result.net == -3


def test_surrender_keeps_the_tie_bet_win() -> None:
    result = play("7S 7D 2C 3C 4C AD 2S", ante=1_000, tie_bet=200, decision=Decision.SURRENDER)
    assert result.payouts == Bets(ante=500, tie_bet=2_200, raise_=0)
    assert result.net == 500 + 2_200 - 1_200
    assert result.tie_bet_won is True


# --- tie: war ------------------------------------------------------------------------------


def test_war_win_pushes_the_ante_and_pays_the_raise_even_money() -> None:
    # The standard statement of the rule (issue 11 point 4); the total is unchanged.
    result = play("7S 7D 2C 3C 4C KD 5S", ante=1_000, decision=Decision.WAR)
    assert result.bets == Bets(ante=1_000, tie_bet=0, raise_=1_000)
    assert result.payouts == Bets(ante=1_000, tie_bet=0, raise_=2_000)
    assert result.bet_outcomes == {"ante": "push", "tie_bet": "none", "raise": "win"}
    assert result.net == 1_000
    assert result.outcome is Outcome.WAR_WIN
    assert result.war == WarCards(
        burns=(Card.parse("2C"), Card.parse("3C"), Card.parse("4C")),
        player_card=Card.parse("KD"),
        dealer_card=Card.parse("5S"),
    )


def test_war_tie_without_bonus_is_a_war_win() -> None:
    result = play("7S 7D 2C 3C 4C 9D 9S", ante=1_000, decision=Decision.WAR)
    assert result.payouts == Bets(ante=1_000, tie_bet=0, raise_=2_000)
    assert result.net == 1_000
    assert result.outcome is Outcome.WAR_TIE


def test_war_tie_with_bonus_pays_a_bonus_equal_to_the_ante() -> None:
    result = play("7S 7D 2C 3C 4C 9D 9S", ante=1_000, decision=Decision.WAR, rules=BONUS)
    assert result.payouts == Bets(ante=1_000, tie_bet=0, raise_=3_000)
    assert result.bet_outcomes == {"ante": "push", "tie_bet": "none", "raise": "win"}
    assert result.net == 2_000


def test_bonus_is_paid_only_on_a_tied_war() -> None:
    result = play("7S 7D 2C 3C 4C KD 5S", ante=1_000, decision=Decision.WAR, rules=BONUS)
    assert result.net == 1_000
    result = play("7S 7D 2C 3C 4C 5D KS", ante=1_000, decision=Decision.WAR, rules=BONUS)
    assert result.net == -2_000


def test_war_loss_loses_ante_and_raise() -> None:
    result = play("7S 7D 2C 3C 4C 5D KS", ante=1_000, decision=Decision.WAR)
    assert result.bets == Bets(ante=1_000, tie_bet=0, raise_=1_000)
    assert result.payouts == Bets(0, 0, 0)
    assert result.net == -2_000
    assert result.outcome is Outcome.WAR_LOSS


def test_burn_cards_do_not_affect_the_war() -> None:
    a = play("7S 7D AC AD AH 9D 8S", ante=100, decision=Decision.WAR)
    b = play("7S 7D 2C 2D 2H 9D 8S", ante=100, decision=Decision.WAR)
    assert a.net == b.net == 100


# --- the tie bet ---------------------------------------------------------------------------


@pytest.mark.parametrize("tie_pays", [10, 11, 12])
def test_tie_bet_pays_k_to_1_on_a_tie_whatever_follows(tie_pays: int) -> None:
    rules = TableRules(tie_pays=tie_pays)
    for codes in ("7S 7D 2C 3C 4C KD 5S", "7S 7D 2C 3C 4C 5D KS"):
        game = CasinoWarRound.start(rules, stacked(codes), 1_000, 300)
        # Known at once, before the decision: it rides on the first two cards only.
        assert game.tie_bet_payout == 300 * (tie_pays + 1)
        game.go_to_war()
        assert game.result.payouts.tie_bet == 300 * (tie_pays + 1)
        assert game.result.tie_bet_won is True


def test_tie_bet_win_with_war_loss_nets_out_exactly() -> None:
    result = play("JS JD 2C 3C 4C 5D KS", ante=1_000, tie_bet=200, decision=Decision.WAR)
    assert result.bets == Bets(ante=1_000, tie_bet=200, raise_=1_000)
    assert result.payouts == Bets(ante=0, tie_bet=2_200, raise_=0)
    assert result.net == 2_200 - 2_200


def test_tie_bet_loses_when_the_first_cards_differ() -> None:
    result = play("JS 10D 2C 3C 4C 5D 5S", ante=1_000, tie_bet=200)
    assert result.payouts == Bets(ante=2_000, tie_bet=0, raise_=0)
    assert result.net == 1_000 - 200
    assert result.tie_bet_won is False


def test_tie_bet_won_is_false_without_a_tie_bet() -> None:
    assert play("7S 7D 2C 3C 4C KD 5S", 100, 0, Decision.WAR).tie_bet_won is False


def test_tie_bet_pays_12_and_bonus_together() -> None:
    rules = TableRules(tie_pays=12, war_tie_bonus=True)
    result = play("AS AH 2C 3C 4C 9D 9S", 500, 100, Decision.WAR, rules=rules)
    assert result.payouts == Bets(ante=500, tie_bet=1_300, raise_=1_500)
    assert result.net == 3_300 - 1_100


# --- state machine and illegal actions -----------------------------------------------------


def test_tie_waits_for_a_decision_and_offers_both_actions() -> None:
    game = CasinoWarRound.start(RULES, stacked("7S 7D 2C 3C 4C KD 5S"), 1_000, 100)
    assert game.status is RoundStatus.AWAITING_DECISION
    assert game.can_surrender() and game.can_go_to_war()
    assert game.bets == Bets(ante=1_000, tie_bet=100, raise_=0)
    with pytest.raises(IllegalAction) as caught:
        _ = game.result
    assert caught.value.code == "round_not_settled"
    game.go_to_war()
    assert game.status is RoundStatus.SETTLED
    assert game.bets == Bets(ante=1_000, tie_bet=100, raise_=1_000)
    assert game.decision is Decision.WAR


def test_no_action_on_a_settled_round() -> None:
    game = CasinoWarRound.start(RULES, stacked("KS 5D 2C 3C 4C 9D 9S"), 100)
    assert not game.can_surrender() and not game.can_go_to_war()
    for action in (game.surrender, game.go_to_war, game.verify_surrender, game.verify_go_to_war):
        with pytest.raises(IllegalAction) as caught:
            action()
        assert caught.value.code == "round_not_awaiting_decision"


def test_no_second_decision() -> None:
    game = CasinoWarRound.start(RULES, stacked("7S 7D 2C 3C 4C KD 5S"), 100)
    game.surrender()
    with pytest.raises(IllegalAction) as caught:
        game.decide(Decision.WAR)
    assert caught.value.code == "round_not_awaiting_decision"
    assert game.result.decision is Decision.SURRENDER


def test_surrender_refused_where_the_table_forbids_it() -> None:
    game = CasinoWarRound.start(NO_SURRENDER, stacked("7S 7D 2C 3C 4C KD 5S"), 100)
    assert not game.can_surrender()
    assert game.can_go_to_war()
    with pytest.raises(IllegalAction) as caught:
        game.decide(Decision.SURRENDER)
    assert caught.value.code == "surrender_not_allowed"
    assert game.status is RoundStatus.AWAITING_DECISION
    game.go_to_war()
    assert game.result.net == 100


def test_decide_accepts_the_text_values_and_refuses_others() -> None:
    game = CasinoWarRound.start(RULES, stacked("7S 7D 2C 3C 4C KD 5S"), 100)
    with pytest.raises(IllegalAction) as caught:
        game.decide("fold")
    assert caught.value.code == "unknown_decision"
    game.decide("war")
    assert game.result.decision is Decision.WAR


def test_start_validates_the_bet() -> None:
    with pytest.raises(InvalidBet) as caught:
        CasinoWarRound.start(RULES, stacked("KS 5D 2C 3C 4C 9D 9S"), 150)
    assert caught.value.code == "ante_not_multiple_of_increment"


def test_result_is_frozen_and_stable() -> None:
    game = CasinoWarRound.start(RULES, stacked("KS 5D 2C 3C 4C 9D 9S"), 100)
    result = game.result
    assert game.result is result
    with pytest.raises(AttributeError):
        result.net = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        result.payouts.ante = 5  # type: ignore[misc]
    assert result == RoundResult(
        player_card=Card(Rank.KING, Suit.SPADES),
        dealer_card=Card(Rank.FIVE, Suit.DIAMONDS),
        war=None,
        decision=None,
        bets=Bets(100, 0, 0),
        payouts=Bets(200, 0, 0),
        net=100,
        tie_bet_won=False,
    )
    assert hash(result) == hash(game.result)


def test_result_dict_uses_codes_and_the_raise_key_and_round_trips() -> None:
    result = play("7S 7D 2C 3C 4C KD 5S", 1_000, 100, Decision.WAR)
    data = result.to_dict()
    assert data == {
        "player_card": "7S",
        "dealer_card": "7D",
        "war": {"burns": ["2C", "3C", "4C"], "player_card": "KD", "dealer_card": "5S"},
        "decision": "war",
        "outcome": "war_win",
        "bets": {"ante": 1_000, "tie_bet": 100, "raise": 1_000},
        "payouts": {"ante": 1_000, "tie_bet": 1_100, "raise": 2_000},
        "outcomes": {"ante": "push", "tie_bet": "win", "raise": "win"},
        "net": 2_000,
        "tie_bet_won": True,
    }
    assert RoundResult.from_dict(data) == result


def test_net_is_payouts_minus_stakes_on_every_path() -> None:
    cases = [
        ("KS 5D 2C 3C 4C 9D 9S", None),
        ("5S KD 2C 3C 4C 9D 9S", None),
        ("7S 7D 2C 3C 4C KD 5S", Decision.WAR),
        ("7S 7D 2C 3C 4C 9D 9S", Decision.WAR),
        ("7S 7D 2C 3C 4C 5D KS", Decision.WAR),
        ("7S 7D 2C 3C 4C 5D KS", Decision.SURRENDER),
    ]
    for rules in (RULES, BONUS, TableRules(tie_pays=11)):
        for codes, decision in cases:
            result = play(codes, 2_400, 700 - 700 % 100, decision, rules)
            assert result.net == result.payouts.total - result.bets.total


def test_deal_helpers() -> None:
    deal = stacked("7S 7D 2C 3C 4C KD 5S")
    assert deal.is_tie
    assert deal.codes == ("7S", "7D", "2C", "3C", "4C", "KD", "5S")
    assert CasinoWarDeal.from_cards(deal.cards) == deal
    with pytest.raises(ValueError):
        CasinoWarDeal.from_codes("7S 7D")


# --- per-bet labels ------------------------------------------------------------------------


def test_bet_outcomes_label_every_path_with_the_closed_set() -> None:
    cases = [
        ("KS 5D 2C 3C 4C 9D 9S", 100, None, {"ante": "win", "tie_bet": "lose", "raise": "none"}),
        ("5S KD 2C 3C 4C 9D 9S", 0, None, {"ante": "lose", "tie_bet": "none", "raise": "none"}),
        (
            "7S 7D 2C 3C 4C 5D KS",
            100,
            Decision.WAR,
            {"ante": "lose", "tie_bet": "win", "raise": "lose"},
        ),
        (
            "7S 7D 2C 3C 4C 5D KS",
            0,
            Decision.SURRENDER,
            {"ante": "surrender", "tie_bet": "none", "raise": "none"},
        ),
        (
            "7S 7D 2C 3C 4C KD 5S",
            0,
            Decision.WAR,
            {"ante": "push", "tie_bet": "none", "raise": "win"},
        ),
    ]
    for codes, tie_bet, decision, labels in cases:
        result = play(codes, 1_000, tie_bet, decision)
        assert result.bet_outcomes == labels, codes
        assert set(result.bet_outcomes.values()) <= set(BetOutcome)
        assert result.to_dict()["outcomes"] == labels


def test_an_undecided_tie_has_a_pending_ante_and_a_settled_tie_bet() -> None:
    game = CasinoWarRound.start(RULES, stacked("7S 7D 2C 3C 4C KD 5S"), 1_000, 100)
    assert game.bet_outcomes == {"ante": "pending", "tie_bet": "win", "raise": "none"}
    assert game.payouts == Bets(ante=0, tie_bet=1_100, raise_=0)
    game.go_to_war()
    assert game.bet_outcomes == game.result.bet_outcomes


def test_bet_outcomes_read_the_amounts_so_old_stored_splits_are_labelled_as_paid() -> None:
    # A war won before the standard split was stored as ante 2x, raise 1x: it reads as such.
    old = bet_outcomes(
        {"ante": 100, "tie_bet": 0, "raise": 100}, {"ante": 200, "tie_bet": 0, "raise": 100}
    )
    assert old == {"ante": "win", "tie_bet": "none", "raise": "push"}
    assert bet_outcome(100, 50) is BetOutcome.SURRENDER
    assert bet_outcome(100, 0, settled=False) is BetOutcome.PENDING
    assert bet_outcome(0, 0) is BetOutcome.NONE


# --- replay_round ----------------------------------------------------------------------------

SEED = bytes(range(32))


def a_tie_nonce(decks: int = 6) -> int:
    for nonce in range(10_000):
        if deal_casino_war(SEED, "replay", nonce, decks).is_tie:
            return nonce
    raise AssertionError("no tie in 10,000 deals")


def test_replay_round_redeals_and_stops_where_the_stored_round_stopped() -> None:
    nonce = a_tie_nonce()
    rules = TableRules(war_tie_bonus=True)
    waiting = replay_round(rules.to_dict(), SEED, "replay", nonce, 1_000, 100)
    assert waiting.status is RoundStatus.AWAITING_DECISION
    assert waiting.deal == deal_casino_war(SEED, "replay", nonce, 6)
    assert waiting.tie_bet_payout == 100 * 11
    decided = replay_round(rules, SEED, "replay", nonce, 1_000, 100, "war")
    assert decided.status is RoundStatus.SETTLED and decided.decision is Decision.WAR
    same = CasinoWarRound.start(rules, waiting.deal, 1_000, 100)
    same.go_to_war()
    assert decided.result == same.result


def test_replay_round_of_a_round_settled_on_its_first_cards() -> None:
    nonce = next(n for n in range(100) if not deal_casino_war(SEED, "replay", n, 2).is_tie)
    game = replay_round({"decks": 2, "tie_pays": 11}, SEED, "replay", nonce, 200)
    assert game.status is RoundStatus.SETTLED and game.rules.decks == 2
    assert game.deal == deal_casino_war(SEED, "replay", nonce, 2)
    assert game.result.net in (200, -200)


def test_replay_round_refuses_what_the_stored_round_cannot_be() -> None:
    not_a_tie = next(n for n in range(100) if not deal_casino_war(SEED, "replay", n, 6).is_tie)
    with pytest.raises(IllegalAction) as caught:
        replay_round(RULES, SEED, "replay", not_a_tie, 1_000, 0, Decision.WAR)
    assert caught.value.code == "round_not_awaiting_decision"
    with pytest.raises(InvalidRules):
        replay_round({"decks": 9}, SEED, "replay", 0, 1_000)
    with pytest.raises(InvalidRules):
        replay_round({"shoe": 6}, SEED, "replay", 0, 1_000)
    with pytest.raises(InvalidBet):
        replay_round(RULES, SEED, "replay", 0, 150)
    with pytest.raises(InvalidSeed):
        replay_round(RULES, SEED[:31], "replay", 0, 1_000)
    with pytest.raises(IllegalAction) as unknown:
        replay_round(RULES, SEED, "replay", a_tie_nonce(), 1_000, 0, "split")
    assert unknown.value.code == "unknown_decision"
