"""While a bet's transaction is open, every row it holds locked belongs to its player.

The claim that lets the ledger scale by player (docs/ledger.md, docs/scaling.md): a bet,
decision, deposit or withdrawal locks rows of its own player and appends to insert-only
tables, nothing else. Checked from a second connection at the last moment before the COMMIT
(every write of the request done): ``pgrowlocks`` lists each locked row of each table and
who locks it; ``pg_locks`` lists the transaction's other locks. Then another player bets and
deposits while the first transaction is still open, with a lock timeout that would fail them
if they had to wait for it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.orm import Session

from casino.service import idempotency, rounds, wallets
from casino.service import limits as limit_service
from casino.service.protection import Actor
from casino.store import direct, writes

from .conftest import Svc, is_tie

pytestmark = pytest.mark.postgres
postgres_only = pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)

# Each table's rows, and the player a row belongs to (NULL: nobody's, a shared row). Every
# table of the schema must be named here (test_every_table_is_inspected), so that a new
# table cannot hold a lock the tests do not look at.
OWNER = {
    "players": "id",
    "accounts": "player_id",
    "server_seeds": "player_id",
    "rounds": "player_id",
    "ledger_transactions": "player_id",
    "postings": "(SELECT x.player_id FROM ledger_transactions AS x WHERE x.id = t.transaction_id)",
    "casino_tables": "NULL",
    "idempotency_records": "substr(caller, 8)",
    "ledger_checkpoints": "NULL",
    "player_protection": "player_id",
    "player_limits": "player_id",
    "limit_changes": "player_id",
    "account_events": "player_id",
    "cash_references": "player_id",
    "game_sessions": "player_id",
    "operator_tokens": "NULL",
    "free_play_games": "NULL",
    "free_play_simulations": "NULL",
    # A bet must never lock its operator's row (every bet of the operator would share it).
    "operators": "NULL",
    # The seamless wallet's outbox: a bet writes its player's call rows only.
    "wallet_calls": "player_id",
    # Shared tables (issue 22): a private bet touches none of them.
    "shared_tables": "NULL",
    "shared_shoes": "NULL",
    "shared_events": "NULL",
    "shared_bets": "player_id",
}


@contextmanager
def paused_before_commit(inspect: Callable[[int], None]) -> Iterator[None]:
    """Make each commit of the block's own units of work run all its writes, call
    ``inspect(xid)`` with the transaction still open, then commit (the commits ``inspect``
    makes itself are not paused)."""
    real = writes.commit_postgres

    def pausing(session: Session, pending: writes.PendingWrites) -> None:
        writes.commit_postgres = real  # type: ignore[assignment]
        if pending:
            sql = "SELECT casino_commit(%(doc)s::json)"
            direct.execute(session, sql, {"doc": writes._document(pending)})
        ((xid,),) = direct.execute(session, "SELECT pg_current_xact_id()::text::bigint", {})
        try:
            inspect(int(xid))
        finally:
            writes.commit_postgres = pausing  # type: ignore[assignment]
        direct.commit(session, [])

    writes.commit_postgres = pausing  # type: ignore[assignment]
    try:
        yield
    finally:
        writes.commit_postgres = real  # type: ignore[assignment]


def locked_rows(observer: Engine, xid: int) -> dict[str, list[tuple[Any, str]]]:
    """table -> [(owner of the row, lock modes)] of every row locked by transaction ``xid``."""
    found: dict[str, list[tuple[Any, str]]] = {}
    with observer.connect() as conn:
        for table, owner in OWNER.items():
            rows = conn.execute(
                text(
                    f"SELECT {owner}, l.modes::text FROM pgrowlocks('{table}') AS l "
                    f"JOIN {table} AS t ON t.ctid = l.locked_row "
                    "WHERE l.multi OR l.locker::text::bigint = :low"
                ),
                {"low": xid % 2**32},
            ).all()
            found[table] = [(row[0], row[1]) for row in rows]
    return found


def other_locks(observer: Engine, xid: int) -> list[tuple[str, str, int | None]]:
    """The transaction's locks besides row-level ones: (type, mode, advisory objid)."""
    with observer.connect() as conn:
        pid = conn.execute(
            text("SELECT pid FROM pg_stat_activity WHERE backend_xid::text::bigint = :low"),
            {"low": xid % 2**32},
        ).scalar_one()
        return [
            (str(kind), str(mode), objid)
            for kind, mode, objid in conn.execute(
                text(
                    "SELECT locktype, mode, objid FROM pg_locks WHERE pid = :pid "
                    "AND locktype NOT IN ('virtualxid', 'transactionid')"
                ),
                {"pid": pid},
            )
        ]


@pytest.fixture
def observer(db_url: str) -> Iterator[Engine]:
    engine = create_engine(db_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text("CREATE EXTENSION IF NOT EXISTS pgrowlocks"))
    yield engine
    engine.dispose()


def assert_only(player: str, locks: dict[str, list[tuple[Any, str]]]) -> None:
    strangers = {table: rows for table, rows in locks.items() if any(o != player for o, _ in rows)}
    assert strangers == {}, f"rows of others locked: {strangers}"


def bet_meanwhile(svc: Svc, player_id: str, ante: int, tie_bet: int = 0) -> None:
    """Another player's bet while ours is held open, bounded by a 1 s lock wait; a tie (1 in
    13.5) is surrendered at once, so the same player can bet again later in the test."""
    with svc.uow() as uow:
        uow.session.execute(text("SET LOCAL lock_timeout = '1s'"))
        view = rounds.place_bet(uow, player_id, "classic", ante, tie_bet)
        uow.commit()
    if view.status == "awaiting_decision":
        with svc.uow() as uow:
            uow.session.execute(text("SET LOCAL lock_timeout = '1s'"))
            rounds.decide(uow, view.id, "surrender", player_id=player_id)
            uow.commit()


@postgres_only
def test_every_table_is_inspected(observer: Engine) -> None:
    with observer.connect() as conn:
        tables = set(
            conn.execute(
                text(
                    "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
                    "AND tablename <> 'alembic_version'"
                )
            ).scalars()
        )
    assert tables == set(OWNER)


@postgres_only
def test_a_bet_locks_only_its_players_rows(
    svc: Svc, demo_tables: list[str], observer: Engine
) -> None:
    player = svc.player(funds=100_000)
    other = svc.player(funds=100_000)
    seen: dict[str, Any] = {}

    def inspect(xid: int) -> None:
        seen["rows"] = locked_rows(observer, xid)
        seen["other"] = other_locks(observer, xid)

        # Meanwhile another player bets and deposits, and may not wait for anything of ours.
        bet_meanwhile(svc, other, 500, 100)
        with svc.uow() as uow:
            uow.session.execute(text("SET LOCAL lock_timeout = '1s'"))
            wallets.deposit(uow, other, "EUR", 700, "while the first bet is open")
            uow.commit()
        seen["other_balance"] = svc.balance(other)

    with paused_before_commit(inspect), svc.uow() as uow:
        assert idempotency.begin(uow, f"player:{player}", "bet-key", "fp") is None
        view = rounds.place_bet(uow, player, "classic", 1000, 100)
        idempotency.complete(uow, f"player:{player}", "bet-key", "fp", 201, {"id": view.id})
        uow.commit()

    rows = seen["rows"]
    assert_only(player, rows)
    # What the bet did lock: its seed (the nonce), its wallet, and its player row (the key
    # share a new round's and transaction's foreign keys take).
    assert rows["server_seeds"] and rows["accounts"]
    assert all(owner == player for owner, _ in rows["accounts"])
    assert rows["casino_tables"] == [] and rows["ledger_checkpoints"] == []
    # No lock on a whole table beyond what inserting and updating rows takes; one advisory
    # lock: the request's own idempotency key.
    # (RowShareLock is what SELECT ... FOR UPDATE takes on a table: it only conflicts with
    # locks of the whole table, which no request takes.)
    modes = {(kind, mode) for kind, mode, _ in seen["other"]}
    allowed = {"RowExclusiveLock", "RowShareLock", "AccessShareLock"}
    assert modes <= {("relation", m) for m in allowed} | {("advisory", "ExclusiveLock")}, modes
    assert sum(kind == "advisory" for kind, _, _ in seen["other"]) == 1
    assert seen["other_balance"] != 100_000  # the other player's bet and deposit went through
    assert svc.audit().ok


@postgres_only
def test_a_decision_and_a_withdrawal_lock_only_their_players_rows(
    svc: Svc, demo_tables: list[str], observer: Engine
) -> None:
    player = svc.player(funds=100_000)
    other = svc.player(funds=100_000)
    svc.steer(player, is_tie)
    opened = svc.run(rounds.place_bet, player, "classic", 1000)
    captured: list[dict[str, list[tuple[Any, str]]]] = []

    def inspect(xid: int) -> None:
        captured.append(locked_rows(observer, xid))
        bet_meanwhile(svc, other, 500)

    with paused_before_commit(inspect):
        with svc.uow() as uow:
            rounds.decide(uow, opened.id, "war", player_id=player)
            uow.commit()
        with svc.uow() as uow:
            wallets.withdraw(uow, player, "EUR", 1000, "cash out")
            uow.commit()
    decision, withdrawal = captured
    assert_only(player, decision)
    assert decision["rounds"] and decision["accounts"]
    assert_only(player, withdrawal)
    assert withdrawal["accounts"] and not withdrawal["rounds"]
    assert svc.audit().ok


@postgres_only
def test_a_deposit_locks_only_its_players_rows(
    svc: Svc, demo_tables: list[str], observer: Engine
) -> None:
    """Both kinds of deposit: the first of a currency (its wallet created in the deposit's
    transaction) and one under a deposit limit (the limit's usage counted at commit)."""
    player = svc.player(funds=100_000)
    other = svc.player(funds=100_000)
    with svc.uow() as uow:
        limit_service.set_limits(
            uow,
            player,
            Actor("operator", "operator:test"),
            currency="EUR",
            money={"deposit": {"day": 500_000}},
        )
        uow.commit()
    captured: list[dict[str, list[tuple[Any, str]]]] = []

    def inspect(xid: int) -> None:
        captured.append(locked_rows(observer, xid))
        captured[-1]["other"] = [(o, m) for _, m, o in other_locks(observer, xid)]
        # Meanwhile another player deposits and bets, and may not wait for anything of ours.
        with svc.uow() as uow:
            uow.session.execute(text("SET LOCAL lock_timeout = '1s'"))
            wallets.deposit(uow, other, "EUR", 700, f"other {len(captured)}")
            uow.commit()
        bet_meanwhile(svc, other, 500)

    with paused_before_commit(inspect):
        with svc.uow() as uow:
            wallets.deposit(uow, player, "EUR", 2_000, "under a limit")
            uow.commit()
        with svc.uow() as uow:
            wallets.deposit(uow, player, "USD", 3_000, "first in USD")
            uow.commit()
    limited, first = captured
    for locks in (limited, first):
        seen_other = locks.pop("other")
        # Not the currency's cash account, nor any other shared row.
        assert_only(player, locks)
        assert not locks["rounds"] and not locks["server_seeds"]
        assert locks["casino_tables"] == [] and locks["ledger_checkpoints"] == []
        # No advisory lock (a deposit without an idempotency key takes none), and no lock
        # on a whole table beyond what inserting and updating rows takes.
        allowed = {"RowExclusiveLock", "RowShareLock", "AccessShareLock"}
        assert {m for _, m in seen_other} <= allowed, seen_other
    # Under the limit: the wallet it moves and the limit it counts on, both the player's.
    assert limited["accounts"] and limited["player_limits"]
    # The first deposit of a currency inserts its wallet: a new row, which nobody else can
    # see, so no row lock but the key share its foreign key takes on the player.
    assert [table for table, rows in first.items() if rows] == ["players"]
    assert svc.balance(player) == 102_000 and svc.balance(player, "USD") == 3_000
    assert svc.balance(other) != 100_000  # the other player's deposits and bets went through
    assert svc.audit().ok
