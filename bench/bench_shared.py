"""Shared tables at table scale, on PostgreSQL (``python -m bench shared``).

* **1,000 bettors at one table** and **ten tables of 100**: the bets placed (each its own
  unit of work, as the API runs it), then the dealer (one ``casino dealer``'s loop, in
  process) from the deal to the last bettor's settlement: p50 and p99 over the rounds;
* **what a bet costs**: a shared bet (``service.shared.bets.place_bet``) against a private
  round (``service.rounds.place_bet``), each in its own unit of work and commit, one client,
  wall time per bet.

The clock is the bench's own: the betting window is closed by moving it, not by waiting.
No targets: figures for docs/shared-tables.md.
"""

from __future__ import annotations

import statistics
import sys
import time
from datetime import UTC, datetime, timedelta

from harness import pg

ROUNDS = 3
ONE_TABLE = 1_000
TEN_TABLES = (10, 100)
PRIVATE_BETS = 1_000


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2030, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def _setup(database, tables: list[str], players: int) -> list[str]:  # type: ignore[no-untyped-def]
    from casino.engine.casino_war import TableRules
    from casino.service import players as player_service
    from casino.service import tables as table_service
    from casino.service import wallets
    from casino.service.shared.tables import shared_rules_input

    ids = []
    with database.unit_of_work("default") as uow:
        for table in tables:
            rules = TableRules.from_dict(shared_rules_input({"min_ante": 10, "bet_increment": 10}))
            table_service.create_table(
                uow, table, "EUR", rules, mode="shared", clock={"betting_seconds": 15}
            )
        table_service.create_table(uow, "private", "EUR", TableRules(min_ante=10, bet_increment=10))
        uow.commit()
    for n in range(players):
        with database.unit_of_work("default") as uow:
            view, _ = player_service.create_player(uow, f"bench-{n}")
            wallets.deposit(uow, view.id, "EUR", 10_000_000, f"dep-{n}")
            uow.commit()
            ids.append(view.id)
    return ids


def _run_dealer(database, clock: Clock, table: str) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Every step due; the seconds from the start of the deal to the last settlement (a
    tie's decision window skipped by moving the clock: nobody decides here)."""
    from casino.service.shared.dealer import advance

    dealt_at = settled_at = None
    while True:
        started = time.perf_counter()
        with database.unit_of_work("default") as uow:
            done = advance(uow, table)
            if done.idle:
                record = uow.shared.get(table)
                waiting = record is not None and (record.state or {}).get("phase")
                if waiting == "decisions" and done.due_at is not None:
                    clock.now = done.due_at
                    continue
                break
            uow.commit()
        if done.step == "deal" and dealt_at is None:
            dealt_at = started
        if done.paid or done.step == "settle":
            settled_at = time.perf_counter()
    assert dealt_at is not None and settled_at is not None
    return {"deal_to_settled": settled_at - dealt_at}


def _round(
    database, clock: Clock, tables: list[str], bettors: list[str]
) -> tuple[list[float], list[float]]:  # type: ignore[no-untyped-def]
    from casino.service.shared.bets import place_bet
    from casino.service.shared.dealer import advance

    bet_times = []
    for table in tables:
        with database.unit_of_work("default") as uow:  # open the next round
            while True:
                done = advance(uow, table)
                if done.idle:
                    break
                uow.commit()
        for player in bettors:
            started = time.perf_counter()
            with database.unit_of_work("default") as uow:
                place_bet(uow, player, table, 10, 0)
                uow.commit()
            bet_times.append(time.perf_counter() - started)
    clock.now += timedelta(seconds=16)
    durations = [_run_dealer(database, clock, table)["deal_to_settled"] for table in tables]
    clock.now += timedelta(seconds=20)  # past the pause (and any decision window)
    return durations, bet_times


def _private(database, bettors: list[str]) -> float:  # type: ignore[no-untyped-def]
    from casino.service.rounds import decide, place_bet

    times = []
    for n in range(PRIVATE_BETS):
        player = bettors[n % len(bettors)]
        started = time.perf_counter()
        with database.unit_of_work("default") as uow:
            view = place_bet(uow, player, "private", 10, 0)
            uow.commit()
        times.append(time.perf_counter() - started)
        if view.status == "awaiting_decision":
            with database.unit_of_work("default") as uow:
                decide(uow, view.id, "surrender", player_id=player)
                uow.commit()
    return statistics.median(times)


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> bool:
    if not pg.server_available():
        print("needs PostgreSQL at 127.0.0.1:5432", file=sys.stderr)
        return False
    from casino.store.database import Database

    with pg.scratch_database("bench_shared") as db:
        pg.migrate(db.url)
        clock = Clock()
        database = Database.open(db.url, clock=clock)
        try:
            tables = [f"t{n}" for n in range(TEN_TABLES[0])]
            players = _setup(database, ["big", *tables], ONE_TABLE)
            big, bets = [], []
            for _ in range(ROUNDS):
                durations, times = _round(database, clock, ["big"], players)
                big += durations
                bets += times
            ten: list[float] = []
            for _ in range(ROUNDS):
                durations, times = _round(database, clock, tables, players[: TEN_TABLES[1]])
                ten += durations
                bets += times
            private = _private(database, players)
        finally:
            database.dispose()
    shared_bet = statistics.median(bets)
    print(
        f"1 table x {ONE_TABLE} bettors, {ROUNDS} rounds: deal to last settlement "
        f"p50 {_p(big, 0.5) * 1000:.0f} ms, p99 {_p(big, 0.99) * 1000:.0f} ms "
        f"({_p(big, 0.5) / ONE_TABLE * 1e6:.0f} us a bettor)"
    )
    print(
        f"{TEN_TABLES[0]} tables x {TEN_TABLES[1]} bettors, {ROUNDS} rounds each (one "
        f"dealer): deal to last settlement p50 {_p(ten, 0.5) * 1000:.0f} ms, "
        f"p99 {_p(ten, 0.99) * 1000:.0f} ms"
    )
    print(
        f"a bet, one client, own unit of work and commit: shared {shared_bet * 1000:.2f} ms, "
        f"private round {private * 1000:.2f} ms (x{shared_bet / private:.2f})"
    )
    return True


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
