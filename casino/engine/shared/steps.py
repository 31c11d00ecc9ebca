"""The steps of a shared round: pure functions from a stored ``RoundState`` (and the shoe,
rebuilt from its seeds) and the clock to the next state and its events.

A dealer calls the step ``state.next_step`` names once ``state.due_at`` has come, stores the
new state and the events in one transaction (compare-and-set on ``seq``), and publishes the
events after the commit. Each step checks the phase it moves on from and raises
``StepRefused`` (an ``IllegalAction``, reason ``out_of_order``) on any other, so a step can
never be applied twice to one stored state; ``not_due`` before its time, ``wrong_shoe`` with
a shoe that is not the round's.

**What a step depends on.** The cards, which bets a round takes and every payout are pure
functions of the stored state, the stored bets and the shoe's seeds; the clock only says
whether a step is due, and stamps the times it records (a step run late, after a dealer
took a table over, gives the bettors their full decision window from then). A step re-run
from the same stored state with the same clock gives the same state and the same events,
ids included; re-run with a later clock it gives the same cards and results, later times.

The dealer's inputs besides the clock are counts from its book of bets (``bettors``,
``antes``, ``at_war``) and whether every tied bettor has decided (which closes the decision
window early): they label events and say whether anyone is to be waited for. They never
change a card: a bettor's payout depends on the cards, the bet and the bettor's decision.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from casino.engine.shared.chain import link
from casino.engine.shared.events import Event, EventType
from casino.engine.shared.refusals import StepReason, StepRefused
from casino.engine.shared.rules import SharedRules
from casino.engine.shared.shoe import SharedShoe, ShoeRound
from casino.engine.shared.state import FINAL_CARDS, OVER, Phase, RoundState, check_clock


@dataclass(frozen=True)
class Step:
    """A step's outcome: the state to store and the events to publish after it."""

    state: RoundState
    events: tuple[Event, ...]


class _Emitter:
    """Numbers a step's events after the state's last one."""

    def __init__(self, seq: int, shoe: int, round_: int) -> None:
        self.seq = seq
        self.shoe = shoe
        self.round = round_
        self.events: list[Event] = []

    @classmethod
    def after(cls, state: RoundState) -> _Emitter:
        return cls(state.seq, state.shoe, state.round)

    def at(self, shoe: int, round_: int) -> None:
        self.shoe, self.round = shoe, round_

    def emit(self, kind: EventType, now: datetime, **data: Any) -> None:
        self.seq += 1
        self.events.append(Event(self.seq, kind, self.shoe, self.round, now, data))


def _require(state: RoundState, *phases: Phase) -> None:
    if state.phase not in phases:
        wanted = " or ".join(phase.value for phase in phases)
        raise StepRefused(
            f"round {state.round} of shoe {state.shoe} is {state.phase.value}, not {wanted}",
            StepReason.OUT_OF_ORDER,
        )


def _not_before(when: datetime | None, now: datetime, what: str) -> None:
    if when is not None and now < when:
        raise StepRefused(f"{what} is due at {when.isoformat()}", StepReason.NOT_DUE)


def round_of(state: RoundState, shoe: SharedShoe) -> ShoeRound:
    """The round's cards in its shoe; ``wrong_shoe`` for another shoe or other seeds."""
    if shoe.index != state.shoe:
        raise StepRefused(
            f"the round is of shoe {state.shoe}, not {shoe.index}", StepReason.WRONG_SHOE
        )
    dealt = shoe.round(state.round)
    if dealt.start != state.start:
        raise StepRefused(
            f"round {state.round} of shoe {shoe.index} starts at card {dealt.start}, not "
            f"{state.start}: the shoe was dealt from other seeds or rules",
            StepReason.WRONG_SHOE,
        )
    return dealt


# --- opening rounds -------------------------------------------------------------------------


def _opened(
    rules: SharedRules, emitter: _Emitter, shoe: SharedShoe, number: int, now: datetime
) -> RoundState:
    dealt = shoe.round(number)
    closes = now + rules.betting_window
    emitter.at(shoe.index, number)
    emitter.emit(
        EventType.ROUND_OPENED,
        now,
        closes_at=closes.isoformat(),
        betting_seconds=rules.betting_seconds,
    )
    return RoundState(
        shoe=shoe.index,
        round=number,
        start=dealt.start,
        phase=Phase.BETTING,
        seq=emitter.seq,
        opened_at=now,
        closes_at=closes,
    )


def _shoe_changed(
    emitter: _Emitter, shoe: SharedShoe, previous: SharedShoe | None, now: datetime
) -> None:
    emitter.at(shoe.index, 0)
    finished = None
    if previous is not None:
        finished = {
            "shoe": previous.index,
            "seed": previous.seed.hex(),
            "public_value": previous.public_value,
            "rounds": len(previous.rounds),
        }
    emitter.emit(EventType.SHOE_CHANGED, now, **shoe.public(), previous=finished)


def open_table(rules: SharedRules, shoe: SharedShoe, now: datetime, seq: int = 0) -> Step:
    """The first round of a table (or of a table starting again on a new chain): shoe
    ``shoe`` starts (``shoe_changed``) and its first round opens for bets. ``seq``: the
    last event id the table used before, if any."""
    check_clock(now)
    _check_rules(rules, shoe)
    if type(seq) is not int or seq < 0:
        raise ValueError("seq is the last event id used, 0 or more")
    emitter = _Emitter(seq, shoe.index, 0)
    _shoe_changed(emitter, shoe, None, now)
    state = _opened(rules, emitter, shoe, 1, now)
    return Step(state, tuple(emitter.events))


def next_round(
    rules: SharedRules,
    state: RoundState,
    shoe: SharedShoe,
    now: datetime,
    next_shoe: SharedShoe | None = None,
) -> Step:
    """The round after a settled (or voided) one, once its pause is over: the next round of
    the shoe, or, when the cut card came out, round 1 of ``next_shoe`` (the chain's next
    shoe, required then: ``needs_next_shoe``; its seed must hash to this shoe's), announced
    with the finished shoe revealed."""
    check_clock(now)
    _require(state, *OVER)
    _not_before(state.next_at, now, "the next round")
    round_of(state, shoe)
    emitter = _Emitter.after(state)
    if shoe.has_round(state.round + 1):
        return Step(_opened(rules, emitter, shoe, state.round + 1, now), tuple(emitter.events))
    if next_shoe is None or next_shoe.index != shoe.index + 1:
        raise StepRefused(
            f"the cut card came out: the next round is dealt from shoe {shoe.index + 1}",
            StepReason.NEXT_SHOE_NEEDED,
        )
    if link(next_shoe.seed) != shoe.seed or next_shoe.public_value != shoe.public_value:
        raise StepRefused(
            f"shoe {next_shoe.index} is not the next link of shoe {shoe.index}'s chain",
            StepReason.WRONG_SHOE,
        )
    _check_rules(rules, next_shoe)
    _shoe_changed(emitter, next_shoe, shoe, now)
    return Step(_opened(rules, emitter, next_shoe, 1, now), tuple(emitter.events))


def needs_next_shoe(state: RoundState, shoe: SharedShoe) -> bool:
    """Whether the round after this one starts a new shoe (the cut card came out)."""
    return not shoe.has_round(state.round + 1)


def _check_rules(rules: SharedRules, shoe: SharedShoe) -> None:
    table = rules.table
    if (shoe.decks, shoe.war_ties, shoe.max_war_ties) != (
        table.decks,
        table.war_tie_rule,
        table.max_war_ties,
    ):
        raise StepRefused("the shoe was dealt under other rules", StepReason.WRONG_SHOE)


# --- a round's steps ------------------------------------------------------------------------


def close_betting(
    rules: SharedRules, state: RoundState, now: datetime, *, bettors: int, antes: int
) -> Step:
    """No more bets: the betting window is over. ``bettors``: the bets the round took;
    ``antes``: those with an ante (the bettors who will decide on a tie)."""
    check_clock(now)
    _require(state, Phase.BETTING)
    _not_before(state.closes_at, now, "the close of bets")
    if not (type(bettors) is int and type(antes) is int and 0 <= antes <= bettors):
        raise ValueError("bettors and antes are counts, antes at most bettors")
    emitter = _Emitter.after(state)
    emitter.emit(EventType.BETS_CLOSED, now, bettors=bettors, antes=antes)
    closed = state.but(phase=Phase.CLOSED, seq=emitter.seq, bettors=bettors, antes=antes)
    return Step(closed, tuple(emitter.events))


def deal(rules: SharedRules, state: RoundState, shoe: SharedShoe, now: datetime) -> Step:
    """The player's card and the dealer's. A tie asks every bettor with an ante for a
    decision until the deadline; a tie with nobody to decide is fought at once (the war is
    dealt on every tie, so that nobody's decision moves the cards)."""
    check_clock(now)
    _require(state, Phase.CLOSED)
    dealt = round_of(state, shoe)
    emitter = _Emitter.after(state)
    emitter.emit(
        EventType.CARDS,
        now,
        player_card=dealt.player.code,
        dealer_card=dealt.dealer.code,
        winner=dealt.winner,
    )
    shown = (dealt.player.code, dealt.dealer.code)
    if not dealt.is_tie:
        return Step(
            state.but(phase=Phase.DEALT, seq=emitter.seq, cards=shown), tuple(emitter.events)
        )
    if state.antes:
        deadline = now + rules.decision_window
        emitter.emit(
            EventType.DECISIONS_DUE,
            now,
            deadline=deadline.isoformat(),
            decision_seconds=rules.table.decision_seconds,
            antes=state.antes,
        )
        waiting = state.but(phase=Phase.DECISIONS, seq=emitter.seq, cards=shown, deadline=deadline)
        return Step(waiting, tuple(emitter.events))
    return _war(state.but(cards=shown), dealt, emitter, now, at_war=0)


def close_decisions(
    rules: SharedRules,
    state: RoundState,
    shoe: SharedShoe,
    now: datetime,
    *,
    all_decided: bool = False,
    at_war: int = 0,
) -> Step:
    """The decision window closes (at its deadline, or earlier once ``all_decided``): the
    bettors who did not decide surrender by timeout (``settle_bet`` applies it), and the war
    is dealt once for everyone who went to war (``at_war`` of them), repeated wars
    included."""
    check_clock(now)
    _require(state, Phase.DECISIONS)
    if not all_decided:
        _not_before(state.deadline, now, "the war")
    if type(at_war) is not int or not 0 <= at_war <= state.antes:
        raise ValueError("at_war counts bettors at war, at most the antes")
    dealt = round_of(state, shoe)
    return _war(state, dealt, _Emitter.after(state), now, at_war=at_war)


def _war(
    state: RoundState, dealt: ShoeRound, emitter: _Emitter, now: datetime, *, at_war: int
) -> Step:
    cards = list(state.cards)
    for number, war in enumerate(dealt.wars, start=1):
        # The burns are face down: how many, not which (the revealed shoe shows them).
        cards += [war.player_card.code, war.dealer_card.code]
        emitter.emit(
            EventType.WAR,
            now,
            war=number,
            burnt=len(war.burns),
            player_card=war.player_card.code,
            dealer_card=war.dealer_card.code,
            tie=war.player_card.rank == war.dealer_card.rank,
            at_war=at_war,
        )
    fought = state.but(
        phase=Phase.WAR, seq=emitter.seq, cards=tuple(cards), wars=len(dealt.wars), at_war=at_war
    )
    return Step(fought, tuple(emitter.events))


def settle(rules: SharedRules, state: RoundState, shoe: SharedShoe, now: datetime) -> Step:
    """Every bet is paid (the service's part, bettor by bettor with ``settle_bettor``): the
    round is settled, and the next one opens after the pause."""
    check_clock(now)
    _require(state, *FINAL_CARDS)
    dealt = round_of(state, shoe)
    emitter = _Emitter.after(state)
    emitter.emit(
        EventType.RESULTS,
        now,
        player_card=dealt.player.code,
        dealer_card=dealt.dealer.code,
        wars=[
            {"player_card": war.player_card.code, "dealer_card": war.dealer_card.code}
            for war in dealt.wars
        ],
        winner=dealt.winner,
        ties=dealt.ties,
        bettors=state.bettors,
        antes=state.antes,
        at_war=state.at_war,
        last_of_shoe=not shoe.has_round(state.round + 1),
    )
    done = state.but(
        phase=Phase.SETTLED, seq=emitter.seq, finished_at=now, next_at=now + rules.pause
    )
    return Step(done, tuple(emitter.events))


def void(rules: SharedRules, state: RoundState, now: datetime, reason: str) -> Step:
    """The round cannot complete (no dealer for too long, say): it is void and its bets are
    returned (the service's part). Its cards stay where the shoe put them, dealt or not:
    the next round is the shoe's next, as always."""
    check_clock(now)
    _require(state, Phase.BETTING, Phase.CLOSED, Phase.DEALT, Phase.DECISIONS, Phase.WAR)
    emitter = _Emitter.after(state)
    emitter.emit(EventType.ROUND_VOIDED, now, reason=reason)
    voided = state.but(
        phase=Phase.VOIDED,
        seq=emitter.seq,
        finished_at=now,
        next_at=now + rules.pause,
        void_reason=reason,
    )
    return Step(voided, tuple(emitter.events))
