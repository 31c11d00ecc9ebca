"""What a bet costs through the service layer on PostgreSQL: wall time and database round
trips per bet, for a player without any protection and for one with loss, wager, session
and reality-check limits (the second only where casino.service.limits exists, so the same
script measures a checkout from before player protection too).

Usage: ``python -m bench.bet_cost --url postgresql+psycopg://postgres@127.0.0.1:5432/postgres
[--bets 2000] [--rounds 3]``. It creates a database of its own, migrates it with the code it
runs, and drops it at the end. Not part of ``make bench``: run it by hand, on a quiet host,
alternating builds (the host's own speed moves between runs).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import make_url

from casino.engine.casino_war import TableRules
from casino.service import players, rounds, tables, wallets
from casino.store import direct
from casino.store.database import Database
from casino.store.migrate import upgrade


@contextmanager
def database(admin_url: str) -> Iterator[str]:
    name = f"bet_cost_{uuid.uuid4().hex[:10]}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def _uow(db: Database) -> Any:
    """A unit of work of the operator ``default``: builds with operators (tenants) need it
    named; older builds have one implicit operator and take no argument."""
    try:
        return db.unit_of_work("default")
    except TypeError:
        return db.unit_of_work()


class RoundTrips:
    """Counts the statements that each cost a network round trip: the hot path's direct
    statements, its pipelined commit (one), and anything the ORM sends."""

    def __init__(self, db: Database) -> None:
        self.count = 0
        original_execute, original_commit = direct.execute, direct.commit

        def execute(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return original_execute(*args, **kwargs)

        def commit(*args: Any, **kwargs: Any) -> Any:
            self.count += 1
            return original_commit(*args, **kwargs)

        direct.execute = execute  # type: ignore[assignment]
        direct.commit = commit  # type: ignore[assignment]

        @event.listens_for(db.engine, "before_cursor_execute")
        def orm(*_: Any) -> None:
            self.count += 1


def server_cpu(db: Database) -> float:
    """CPU seconds the database's server processes have used so far (this host's /proc:
    the server runs here), counted apart from the host's other load."""
    with db.engine.connect() as connection:
        pids = connection.execute(
            text("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
        ).scalars()
        total = 0.0
        for pid in pids:
            try:
                with open(f"/proc/{pid}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def setup_player(db: Database, protected: bool) -> str:
    with _uow(db) as uow:
        player, _ = players.create_player(uow, f"bench-{uuid.uuid4().hex[:8]}")
        uow.commit()
    with _uow(db) as uow:
        wallets.deposit(uow, player.id, "EUR", 10**11, f"fund-{player.id}")
        uow.commit()
    if protected:
        from casino.service import limits  # only in builds with player protection
        from casino.service.protection import Actor

        with _uow(db) as uow:
            limits.set_limits(
                uow,
                player.id,
                Actor("operator", "bench"),
                currency="EUR",
                money={"loss": {"day": 10**10, "month": 10**11}, "wager": {"week": 10**11}},
                times={"session_minutes": 1440, "reality_check_minutes": 1440},
            )
            uow.commit()
    return str(player.id)


def run_bets(
    db: Database, player_id: str, bets: int, trips: RoundTrips
) -> tuple[float, float, float]:
    """Wall seconds, this process's CPU seconds and round trips per bet; a tie is
    surrendered outside the timing."""
    spent = cpu = 0.0
    counted = 0
    for _ in range(bets):
        before = trips.count
        started, started_cpu = time.perf_counter(), time.process_time()
        with _uow(db) as uow:
            view = rounds.place_bet(uow, player_id, "classic", 100)
            uow.commit()
        spent += time.perf_counter() - started
        cpu += time.process_time() - started_cpu
        counted += trips.count - before
        if view.status == "awaiting_decision":
            with _uow(db) as uow:
                rounds.decide(uow, view.id, "surrender", player_id=player_id)
                uow.commit()
    return spent / bets, cpu / bets, counted / bets


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--url", required=True, help="a PostgreSQL server's admin URL")
    parser.add_argument("--bets", type=int, default=100, help="bets per block")
    parser.add_argument("--rounds", type=int, default=30, help="blocks per case, interleaved")
    args = parser.parse_args(argv)
    try:
        import casino.service.limits  # noqa: F401

        cases = [("no protection", False), ("limits and time limits", True)]
    except ImportError:
        cases = [("no protection", False)]
    with database(args.url) as url:
        upgrade(url)
        db = Database.open(url)
        trips = RoundTrips(db)
        with _uow(db) as uow:
            tables.create_table(uow, "classic", "EUR", TableRules())
            uow.commit()
        subjects = {name: setup_player(db, protected) for name, protected in cases}
        for player_id in subjects.values():  # warm the connection and prepared statements
            run_bets(db, player_id, 200, trips)
        wall: dict[str, list[float]] = {name: [] for name, _ in cases}
        cpu: dict[str, list[float]] = {name: [] for name, _ in cases}
        server: dict[str, float] = {name: 0.0 for name, _ in cases}
        trips_per_bet: dict[str, float] = {}
        for _ in range(args.rounds):  # blocks of each case in turn: the host's drift is shared
            for name, _ in cases:
                before = server_cpu(db)
                seconds, cpu_seconds, count = run_bets(db, subjects[name], args.bets, trips)
                server[name] += server_cpu(db) - before
                wall[name].append(seconds * 1000)
                cpu[name].append(cpu_seconds * 1000)
                trips_per_bet[name] = count
        db.dispose()
    for name, _ in cases:
        print(
            f"{name:>24}: wall {statistics.median(wall[name]):.3f} ms/bet "
            f"(best block {min(wall[name]):.3f}), client CPU "
            f"{statistics.median(cpu[name]):.3f} ms/bet, server CPU "
            f"{server[name] * 1000 / (args.rounds * args.bets):.3f} ms/bet (ties' surrenders "
            f"included), {trips_per_bet[name]:.2f} round trips/bet"
        )


if __name__ == "__main__":
    main()
