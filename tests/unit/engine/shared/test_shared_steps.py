"""The shared round as a state machine: every step a pure function of the stored state, the
shoe and the clock; out-of-order and early steps refused; the state and the events plain,
small and round-tripping through JSON; a table played through shoe after shoe."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta

import pytest

from casino.engine.casino_war import TableRules
from casino.engine.errors import IllegalAction, InvalidRules
from casino.engine.shared import (
    Event,
    EventType,
    HashChain,
    Phase,
    RoundState,
    SharedBet,
    SharedRules,
    SharedShoe,
    Step,
    StepReason,
    StepRefused,
    accept_bet,
    accept_decision,
    close_betting,
    close_decisions,
    deal,
    needs_next_shoe,
    next_round,
    open_table,
    settle,
    settle_bettor,
    void,
)

T0 = datetime(2030, 5, 1, 12, 0, tzinfo=UTC)
RULES = SharedRules(TableRules(decks=1, decision_seconds=10, war_ties="repeat"), 15, 5)
CHAIN = HashChain(hashlib.sha256(b"steps").digest(), 20)


def shoe(index: int, rules: SharedRules = RULES) -> SharedShoe:
    return SharedShoe.deal(CHAIN.seed(index), "public value", index, rules.table)


def round_trip(step: Step) -> Step:
    """What a dealer reads back after storing a step."""
    state = RoundState.from_dict(json.loads(json.dumps(step.state.to_dict())))
    events = tuple(Event.from_dict(json.loads(json.dumps(e.to_dict()))) for e in step.events)
    return Step(state, events)


def find_round(tie: bool, rules: SharedRules = RULES) -> tuple[SharedShoe, int]:
    for index in range(1, 21):
        dealt = shoe(index, rules)
        for number, item in enumerate(dealt.rounds, start=1):
            if item.is_tie == tie and number > 1:
                return dealt, number
    raise AssertionError("no such round")


def opened(dealt: SharedShoe, number: int, now: datetime = T0) -> RoundState:
    """Round ``number`` of a shoe, open for bets: the table opened and run to it."""
    state = open_table(RULES, dealt, now).state
    while state.round < number:
        state = void(RULES, state, now, "skipped").state
        state = next_round(RULES, state, dealt, state.next_at or now).state
    return state


def test_a_table_opens_on_its_shoe_and_first_round() -> None:
    first = shoe(1)
    step = open_table(RULES, first, T0)
    assert [e.type for e in step.events] == [EventType.SHOE_CHANGED, EventType.ROUND_OPENED]
    assert [e.id for e in step.events] == [1, 2]
    assert step.events[0].data["commitment"] == CHAIN.commitment.hex()
    assert step.events[0].data["burn"] == {"shown": first.shown.code, "cards": first.burn}
    assert step.events[0].data["previous"] is None
    state = step.state
    assert (state.shoe, state.round, state.start, state.phase) == (1, 1, first.burn, Phase.BETTING)
    assert state.closes_at == T0 + timedelta(seconds=15) == state.due_at
    assert state.next_step == "close_betting"


def test_a_round_without_a_tie_goes_straight_to_its_results() -> None:
    dealt, number = find_round(tie=False)
    state = opened(dealt, number)
    with pytest.raises(StepRefused) as early:
        close_betting(RULES, state, state.closes_at - timedelta(seconds=1), bettors=1, antes=1)
    assert early.value.reason is StepReason.NOT_DUE
    at = state.closes_at
    closed = close_betting(RULES, state, at, bettors=3, antes=2)
    assert closed.state.phase is Phase.CLOSED and closed.state.due_at is None
    assert [e.data for e in closed.events] == [{"bettors": 3, "antes": 2}]
    dealt_step = deal(RULES, closed.state, dealt, at)
    cards = dealt.round(number)
    assert dealt_step.state.phase is Phase.DEALT
    assert dealt_step.state.cards == (cards.player.code, cards.dealer.code)
    assert dealt_step.events[0].data["winner"] in ("player", "dealer")
    done = settle(RULES, dealt_step.state, dealt, at)
    assert done.state.phase is Phase.SETTLED
    assert done.state.next_at == at + timedelta(seconds=5)
    assert done.events[0].type is EventType.RESULTS
    ids = [e.id for step in (closed, dealt_step, done) for e in step.events]
    assert ids == list(range(state.seq + 1, state.seq + 1 + len(ids)))


def test_a_tie_waits_for_decisions_then_deals_the_war_once_for_everyone() -> None:
    dealt, number = find_round(tie=True)
    cards = dealt.round(number)
    state = opened(dealt, number)
    at = state.closes_at
    bets = [
        accept_bet(RULES, state, at - timedelta(seconds=1), None, name, 200, 100)
        for name in ("ann", "bob", "cy")
    ]
    state = close_betting(RULES, state, at, bettors=3, antes=3).state
    step = deal(RULES, state, dealt, at)
    assert [e.type for e in step.events] == [EventType.CARDS, EventType.DECISIONS_DUE]
    state = step.state
    assert state.phase is Phase.DECISIONS and state.deadline == at + timedelta(seconds=10)
    ann = accept_decision(RULES, state, dealt, at, bets[0], "war")
    bob = accept_decision(RULES, state, dealt, at, bets[1], "surrender")
    with pytest.raises(IllegalAction) as late:
        accept_decision(RULES, state, dealt, state.deadline, bets[2], "war")
    assert late.value.code == "round_not_awaiting_decision"
    with pytest.raises(IllegalAction):
        close_decisions(RULES, state, dealt, at, at_war=1)  # the window is still open
    war = close_decisions(RULES, state, dealt, state.deadline, at_war=1)
    assert [e.type for e in war.events] == [EventType.WAR] * len(cards.wars)
    assert war.events[0].data["burnt"] == 3 and "burns" not in war.events[0].data
    assert war.state.wars == len(cards.wars)
    face_up = [c.code for w in cards.wars for c in (w.player_card, w.dealer_card)]
    assert war.state.cards == (cards.player.code, cards.dealer.code, *face_up)
    results = [settle_bettor(RULES, war.state, dealt, bet) for bet in (ann, bob, bets[2])]
    assert [r.decision.action.value for r in results if r.decision] == [
        "war",
        "surrender",
        "surrender",
    ]
    assert results[2].decision is not None and results[2].decision.decided_by.value == "timeout"
    assert results[0].bets.raise_ == 200


def test_every_tied_bettor_deciding_closes_the_window_early() -> None:
    dealt, number = find_round(tie=True)
    state = opened(dealt, number)
    state = close_betting(RULES, state, state.closes_at, bettors=1, antes=1).state
    state = deal(RULES, state, dealt, state.closes_at).state
    early = state.closes_at + timedelta(seconds=2)
    war = close_decisions(RULES, state, dealt, early, all_decided=True, at_war=1)
    assert war.state.phase is Phase.WAR and war.events[0].at == early


def test_a_tie_nobody_has_to_decide_is_fought_at_once() -> None:
    dealt, number = find_round(tie=True)
    state = opened(dealt, number)
    state = close_betting(RULES, state, state.closes_at, bettors=1, antes=0).state
    step = deal(RULES, state, dealt, state.closes_at)
    assert step.state.phase is Phase.WAR
    assert step.events[0].type is EventType.CARDS
    assert step.events[-1].type is EventType.WAR and step.events[-1].data["at_war"] == 0


def test_bets_close_with_the_window_whether_or_not_the_dealer_closed_it() -> None:
    state = open_table(RULES, shoe(1), T0).state
    bet = accept_bet(RULES, state, T0, None, "ann", 100)
    assert accept_bet(RULES, state, T0, bet, "ann", 100) == SharedBet("ann", 200)
    for now in (state.closes_at, state.closes_at + timedelta(minutes=3)):
        with pytest.raises(IllegalAction) as closed:
            accept_bet(RULES, state, now, None, "bob", 100)
        assert closed.value.code == "betting_closed"
    shut = close_betting(RULES, state, state.closes_at, bettors=1, antes=1).state
    with pytest.raises(IllegalAction):
        accept_bet(RULES, shut, T0, None, "bob", 100)


@pytest.mark.parametrize("step_name", ["deal", "settle", "close_decisions", "next_round"])
def test_a_step_out_of_order_is_refused(step_name: str) -> None:
    first = shoe(1)
    state = open_table(RULES, first, T0).state
    later = T0 + timedelta(hours=1)
    calls = {
        "deal": lambda: deal(RULES, state, first, later),
        "settle": lambda: settle(RULES, state, first, later),
        "close_decisions": lambda: close_decisions(RULES, state, first, later),
        "next_round": lambda: next_round(RULES, state, first, later),
    }
    with pytest.raises(StepRefused) as refused:
        calls[step_name]()
    assert refused.value.reason is StepReason.OUT_OF_ORDER


def test_a_step_applied_again_to_its_own_result_is_refused() -> None:
    state = open_table(RULES, shoe(1), T0).state
    closed = close_betting(RULES, state, state.closes_at, bettors=0, antes=0).state
    with pytest.raises(IllegalAction):
        close_betting(RULES, closed, state.closes_at, bettors=0, antes=0)


def test_steps_need_the_rounds_own_shoe() -> None:
    state = open_table(RULES, shoe(1), T0).state
    state = close_betting(RULES, state, state.closes_at, bettors=0, antes=0).state
    with pytest.raises(StepRefused) as wrong:
        deal(RULES, state, shoe(2), state.closes_at)
    assert wrong.value.reason is StepReason.WRONG_SHOE
    other = SharedShoe.deal(CHAIN.seed(1), "another value", 1, RULES.table)
    with pytest.raises(IllegalAction):
        deal(RULES, state, other, state.closes_at)


def test_a_clock_without_a_time_zone_is_refused() -> None:
    with pytest.raises(ValueError):
        open_table(RULES, shoe(1), datetime(2030, 1, 1))


def play_shoe(state: RoundState, dealt: SharedShoe, stored: bool) -> list[Step]:
    """Every step of every round of a shoe, read back from JSON between steps if ``stored``."""
    steps = []
    now = state.opened_at

    def take(step: Step) -> RoundState:
        step = round_trip(step) if stored else step
        steps.append(step)
        return step.state

    while True:
        now = state.closes_at
        state = take(close_betting(RULES, state, now, bettors=2, antes=1))
        state = take(deal(RULES, state, dealt, now))
        if state.phase is Phase.DECISIONS:
            assert state.deadline is not None
            now = state.deadline
            state = take(close_decisions(RULES, state, dealt, now, at_war=1))
        state = take(settle(RULES, state, dealt, now))
        if needs_next_shoe(state, dealt):
            return steps
        assert state.next_at is not None
        state = take(next_round(RULES, state, dealt, state.next_at))


def test_a_step_is_a_pure_function_of_the_stored_state_the_shoe_and_the_clock() -> None:
    first = shoe(3)
    start = open_table(RULES, first, T0)
    direct = play_shoe(start.state, first, stored=False)
    stored = play_shoe(round_trip(start).state, shoe(3), stored=True)
    assert direct == stored
    events = [e for step in direct for e in step.events]
    assert [e.id for e in events] == list(range(3, 3 + len(events)))


def test_a_table_moves_to_the_next_shoe_when_the_cut_card_is_out() -> None:
    first, second = shoe(4), shoe(5)
    steps = play_shoe(open_table(RULES, first, T0).state, first, stored=False)
    last = steps[-1].state
    assert last.round == len(first.rounds)
    assert last.start < first.cut and needs_next_shoe(last, first)
    assert steps[-1].events[0].data["last_of_shoe"] is True
    assert last.next_at is not None
    with pytest.raises(StepRefused) as needed:
        next_round(RULES, last, first, last.next_at)
    assert needed.value.reason is StepReason.NEXT_SHOE_NEEDED
    with pytest.raises(IllegalAction):
        next_round(RULES, last, first, last.next_at, shoe(6))
    other_chain = HashChain(hashlib.sha256(b"another chain").digest(), 20)
    stranger = SharedShoe.deal(other_chain.seed(5), "public value", 5, RULES.table)
    with pytest.raises(StepRefused) as unlinked:
        next_round(RULES, last, first, last.next_at, stranger)
    assert unlinked.value.reason is StepReason.WRONG_SHOE
    other_value = SharedShoe.deal(CHAIN.seed(5), "another value", 5, RULES.table)
    with pytest.raises(IllegalAction):
        next_round(RULES, last, first, last.next_at, other_value)
    step = next_round(RULES, last, first, last.next_at, second)
    changed, opened_ = step.events
    assert changed.type is EventType.SHOE_CHANGED and opened_.type is EventType.ROUND_OPENED
    assert changed.data["previous"] == {
        "shoe": 4,
        "seed": CHAIN.seed(4).hex(),
        "public_value": "public value",
        "rounds": len(first.rounds),
    }
    # The seed revealed is the next shoe's commitment.
    assert changed.data["commitment"] == hashlib.sha256(CHAIN.seed(5)).hexdigest()
    assert changed.data["commitment"] == CHAIN.seed(4).hex()
    assert (step.state.shoe, step.state.round, step.state.start) == (5, 1, second.burn)


def test_a_void_round_keeps_the_shoe_where_it_was() -> None:
    dealt, number = find_round(tie=True)
    state = opened(dealt, number)
    state = close_betting(RULES, state, state.closes_at, bettors=1, antes=1).state
    state = deal(RULES, state, dealt, state.closes_at).state
    voided = void(RULES, state, state.closes_at + timedelta(minutes=5), "no dealer")
    assert voided.state.phase is Phase.VOIDED and voided.state.void_reason == "no dealer"
    assert voided.events[0].data == {"reason": "no dealer"}
    assert voided.state.next_at is not None
    following = next_round(RULES, voided.state, dealt, voided.state.next_at).state
    assert following.round == number + 1
    assert following.start == dealt.round(number).end
    with pytest.raises(IllegalAction):
        void(RULES, voided.state, T0, "again")


def test_a_rounds_state_is_small() -> None:
    dealt, number = find_round(tie=True)
    state = opened(dealt, number)
    state = close_betting(RULES, state, state.closes_at, bettors=1000, antes=900).state
    state = deal(RULES, state, dealt, state.closes_at).state
    assert state.deadline is not None
    state = close_decisions(RULES, state, dealt, state.deadline, at_war=400).state
    assert len(json.dumps(state.to_dict())) < 600


def test_a_shared_table_needs_one_hand_and_a_decision_clock() -> None:
    with pytest.raises(InvalidRules) as hands:
        SharedRules(TableRules(max_hands=2, decision_seconds=10))
    assert hands.value.rule == "max_hands"
    with pytest.raises(InvalidRules) as clock:
        SharedRules(TableRules())
    assert clock.value.rule == "decision_seconds"
    with pytest.raises(InvalidRules):
        SharedRules(betting_seconds=2)
    with pytest.raises(InvalidRules):
        SharedRules(pause_seconds=61)


def test_shared_rules_default_to_eight_decks_and_round_trip() -> None:
    assert SharedRules().decks == 8
    assert SharedRules.from_dict({}).decks == 8
    rules = SharedRules(TableRules(decks=6, decision_seconds=20, war_ties="repeat"), 30, 3)
    assert SharedRules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules
    with pytest.raises(InvalidRules):
        SharedRules.from_dict({"betting": 3})
