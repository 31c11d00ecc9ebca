"""Shared tables' engine, on one core: no targets, figures for the dealer to plan with.

* a shoe: the full 8-deck shuffle from its chain seed, the cut card, the burn and every round
  (``SharedShoe.deal`` + ``rounds``), as a dealer rebuilds it from its seeds;
* a seed from a chain of 100,000 shoes (up to 100,000 SHA-256 steps from the secret);
* settling a round of 1,000 bettors (``settle_bet``: each bettor a private hand on the common
  cards), a round without a tie and a tied one where every bettor went to war;
* the round's steps of a whole shoe (open, close, deal, decisions, war, settle, next) per round,
  without bettors: the engine's part of a dealer's tick.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial

from casino.engine.shared import (
    HashChain,
    Phase,
    SharedBet,
    SharedRules,
    SharedShoe,
    close_betting,
    close_decisions,
    deal,
    decide_bet,
    needs_next_shoe,
    next_round,
    open_table,
    settle,
    settle_bet,
)

RULES = SharedRules()
SHOES = 200
BETTORS = 1_000


def best(repeats: int, run: Callable[[], float]) -> float:
    return min(run() for _ in range(repeats))


def build_shoes() -> float:
    started = time.perf_counter()
    for index in range(1, SHOES + 1):
        seed = hashlib.sha256(index.to_bytes(4, "big")).digest()
        shoe = SharedShoe.deal(seed, "v", index, RULES.table)
        _ = shoe.rounds
    return (time.perf_counter() - started) / SHOES


def settle_round(tied: bool) -> float:
    shoe = SharedShoe.deal(hashlib.sha256(b"bench shoe").digest(), "v", 1, RULES.table)
    dealt = next(r for r in shoe.rounds if r.is_tie is tied)
    bets = [SharedBet(str(i), 100, 100) for i in range(BETTORS)]
    if tied:
        bets = [decide_bet(RULES.table, dealt, bet, "war") for bet in bets]
    started = time.perf_counter()
    for bet in bets:
        settle_bet(RULES.table, dealt, bet)
    return time.perf_counter() - started


def steps_per_round() -> float:
    shoe = SharedShoe.deal(hashlib.sha256(b"bench steps").digest(), "v", 1, RULES.table)
    now = datetime(2030, 1, 1, tzinfo=UTC)
    state = open_table(RULES, shoe, now).state
    started = time.perf_counter()
    rounds = 0
    while True:
        now = state.closes_at
        state = close_betting(RULES, state, now, bettors=1, antes=1).state
        state = deal(RULES, state, shoe, now).state
        if state.phase is Phase.DECISIONS:
            state = close_decisions(RULES, state, shoe, now, all_decided=True, at_war=1).state
        state = settle(RULES, state, shoe, now).state
        rounds += 1
        if needs_next_shoe(state, shoe):
            break
        state = next_round(RULES, state, shoe, state.next_at or now).state
    return (time.perf_counter() - started) / rounds


def main() -> bool:
    chain = HashChain(hashlib.sha256(b"bench chain").digest(), 100_000)
    seed_time = best(3, lambda: _timed(lambda: chain.seed(1)))
    print(f"shoe seed, chain of 100,000: {seed_time * 1e3:8.1f} ms (the deepest seed)")
    print(f"8-deck shoe and its rounds:  {best(3, build_shoes) * 1e3:8.2f} ms")
    for tied in (False, True):
        label = "tied, all at war" if tied else "no tie"
        taken = best(5, partial(settle_round, tied))
        print(f"settle {BETTORS:,} bettors ({label}): {taken * 1e3:6.2f} ms")
    print(f"a round's steps, no bettors:  {best(3, steps_per_round) * 1e6:7.1f} us")
    return True


def _timed(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


if __name__ == "__main__":
    raise SystemExit(0 if main() else 1)
