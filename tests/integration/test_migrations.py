"""The schema comes only from the migrations, and it is exactly the models' schema."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text

from casino.store.base import Base
from casino.store.migrate import downgrade, upgrade
from casino.store.session import make_engine

from .conftest import BACKENDS, drop_pg_database, new_pg_database, pg_url


@pytest.fixture(params=BACKENDS)
def fresh_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database with no schema at all."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'fresh.db'}"
        return
    assert os.environ.get("CASINO_TEST_POSTGRES_URL")
    name = new_pg_database("casino_mig")
    try:
        yield pg_url(name)
    finally:
        drop_pg_database(name)


def diffs(url: str) -> list[object]:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(
                conn, opts={"compare_type": True, "compare_server_default": True}
            )
            return list(compare_metadata(context, Base.metadata))
    finally:
        engine.dispose()


def test_upgrade_to_head_matches_the_models(fresh_url: str) -> None:
    upgrade(fresh_url)
    assert diffs(fresh_url) == []
    engine = make_engine(fresh_url)
    try:
        names = set(inspect(engine).get_table_names())
    finally:
        engine.dispose()
    assert set(Base.metadata.tables) <= names


def test_downgrade_and_upgrade_again(fresh_url: str) -> None:
    upgrade(fresh_url)
    downgrade(fresh_url, "base")
    engine = make_engine(fresh_url)
    try:
        assert set(inspect(engine).get_table_names()) <= {"alembic_version"}
    finally:
        engine.dispose()
    upgrade(fresh_url)
    assert diffs(fresh_url) == []


def test_partial_unique_indexes_exist(fresh_url: str) -> None:
    upgrade(fresh_url)
    engine = make_engine(fresh_url)
    try:
        inspector = inspect(engine)
        rounds = {ix["name"]: ix for ix in inspector.get_indexes("rounds")}
        seeds = {ix["name"]: ix for ix in inspector.get_indexes("server_seeds")}
    finally:
        engine.dispose()
    assert rounds["uq_rounds_one_open_per_player"]["unique"]
    assert seeds["uq_server_seeds_one_active"]["unique"]


@pytest.mark.postgres
@pytest.mark.parametrize("fresh_url", ["postgresql"], indirect=True)
def test_postgres_ledger_function_and_sequence(fresh_url: str) -> None:
    """The commit function and the id sequence live outside the models' metadata (SQLite
    writes in plain statements and needs neither)."""
    engine = make_engine(fresh_url)
    try:
        upgrade(fresh_url)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT to_regproc('casino_commit')")).scalar() is not None
            assert conn.execute(text("SELECT to_regproc('ledger_append')")).scalar() is None
            owner = conn.execute(
                text("SELECT pg_get_serial_sequence('ledger_transactions', 'id')")
            ).scalar()
            assert owner == "public.ledger_transaction_id_seq"
        downgrade(fresh_url, "base")
        with engine.connect() as conn:
            assert conn.execute(text("SELECT to_regproc('casino_commit')")).scalar() is None
            assert (
                conn.execute(text("SELECT to_regclass('ledger_transaction_id_seq')")).scalar()
                is None
            )
    finally:
        engine.dispose()


def test_0004_relinks_an_existing_ledger_that_then_passes_the_audit(fresh_url: str) -> None:
    """A ledger written before per-wallet chains (one global chain, shared balances kept in
    rows, a settlement that never touched the wallet) is re-linked wallet by wallet, and the
    new audit finds it whole; sealing it afterwards works too."""
    import json
    from datetime import UTC, datetime

    from casino.engine.casino_war import CasinoWarRound, deal_casino_war
    from casino.ledger.checkpoints import SigningKey
    from casino.service.audit import run_audit
    from casino.service.demo import DEMO_TABLES
    from casino.service.sealing import seal_pending
    from casino.store.database import Database

    upgrade(fresh_url, "0003")
    rules = DEMO_TABLES["classic"]
    seed = bytes(range(32))
    pid = "00000000-0000-4000-8000-000000000001"
    now = datetime(2026, 11, 1, tzinfo=UTC)

    def find(want_tie: bool) -> tuple[str, CasinoWarRound]:
        for n in range(1000):
            deal = deal_casino_war(seed, f"c{n}", len(rounds), rules.decks)
            if deal.is_tie == want_tie and (want_tie or deal.player.rank < deal.dealer.rank):
                return f"c{n}", CasinoWarRound.start(rules, deal, 1000, 100)
        raise AssertionError

    rounds: list[dict[str, object]] = []
    txs: list[tuple[str, str | None, list[tuple[str, int]]]] = [
        ("deposit", None, [("cash", -10_000), ("wallet", 10_000)])
    ]
    lost_seed, lost = find(False)  # lost: ante and tie bet to the house, nothing back
    rounds.append({"id": "00000000-0000-4000-8000-0000000000a1", "seed": lost_seed, "game": lost})
    txs += [
        ("stake", rounds[0]["id"], [("wallet", -1100), ("in_play", 1100)]),  # type: ignore[list-item]
        ("settlement", rounds[0]["id"], [("in_play", -1100), ("house", 1100)]),  # type: ignore[list-item]
    ]
    tie_seed, tie = find(True)  # a tie left open: the tie bet settled, the ante in play
    rounds.append({"id": "00000000-0000-4000-8000-0000000000a2", "seed": tie_seed, "game": tie})
    txs += [
        ("stake", rounds[1]["id"], [("wallet", -1100), ("in_play", 1100)]),  # type: ignore[list-item]
        (
            "settlement",
            rounds[1]["id"],
            [("in_play", -100), ("wallet", 100), ("house", -1000), ("wallet", 1000)],
        ),  # type: ignore[list-item]
    ]
    engine = make_engine(fresh_url)
    keys = {
        "wallet": f"wallet:{pid}:EUR",
        "house": "house:EUR",
        "in_play": "in_play:EUR",
        "cash": "cash:EUR",
    }
    balances = {k: 0 for k in keys}
    try:
        with engine.begin() as conn:
            conn.execute(
                text("INSERT INTO players VALUES (:id, 'old', NULL, 'h', :t)"),
                {"id": pid, "t": now},
            )
            conn.execute(
                text("INSERT INTO casino_tables VALUES ('classic', 'EUR', :r, true, :t, :t)"),
                {"r": json.dumps(rules.to_dict()), "t": now},
            )
            conn.execute(
                text(
                    "INSERT INTO server_seeds VALUES (1, :p, :s, 'hash', 'c', true, 0, 2, :t, NULL)"
                ),
                {"p": pid, "s": seed, "t": now},
            )
            for n, (kind, key) in enumerate(keys.items(), start=1):
                owner = pid if kind == "wallet" else None
                conn.execute(
                    text("INSERT INTO accounts VALUES (:i, :k, :kind, 'EUR', :p, 0, :t)"),
                    {"i": n, "k": key, "kind": kind, "p": owner, "t": now},
                )
            ids = {kind: n for n, kind in enumerate(keys, start=1)}
            for nonce, entry in enumerate(rounds):
                game: CasinoWarRound = entry["game"]  # type: ignore[assignment]
                status = game.status.value
                conn.execute(
                    text(
                        "INSERT INTO rounds VALUES (:id, :p, 'classic', 'EUR', :r, :st, 1, :cs, "
                        ":n, 1000, 100, 0, :pc, :dc, NULL, NULL, NULL, 0, :tp, 0, :net, 0, :t, "
                        ":set)"
                    ),
                    {
                        "id": entry["id"], "p": pid, "r": json.dumps(rules.to_dict()), "st": status,
                        "cs": entry["seed"], "n": nonce, "pc": game.deal.player.code,
                        "dc": game.deal.dealer.code, "tp": game.tie_bet_payout,
                        "net": game.tie_bet_payout - 1100,
                        "t": now, "set": now if status == "settled" else None,
                    },
                )  # fmt: skip
            for seq, (kind, round_id, legs) in enumerate(txs, start=1):
                conn.execute(
                    text(
                        "INSERT INTO ledger_transactions VALUES (:id, :seq, :k, 'EUR', :p, :r, "
                        "NULL, NULL, :t, :prev, :h)"
                    ),
                    {
                        "id": seq,
                        "seq": seq,
                        "k": kind,
                        "p": pid,
                        "r": round_id,
                        "t": now,
                        "prev": "x",
                        "h": f"old-{seq}",
                    },
                )
                for leg, (account, amount) in enumerate(legs):
                    conn.execute(
                        text("INSERT INTO postings VALUES (:tx, :leg, :a, :amount)"),
                        {"tx": seq, "leg": leg, "a": ids[account], "amount": amount},
                    )
                    balances[account] += amount
            for kind, balance in balances.items():
                conn.execute(
                    text("UPDATE accounts SET balance = :b WHERE id = :i"),
                    {"b": balance, "i": ids[kind]},
                )
            conn.execute(
                text("UPDATE ledger_chain_head SET count = :c, last_id = :c"), {"c": len(txs)}
            )
    finally:
        engine.dispose()

    upgrade(fresh_url)
    database = Database.open(fresh_url)
    key = SigningKey.parse("77" * 32)
    try:
        with database.unit_of_work() as uow:
            report = run_audit(uow.all_operators(), [key.verifying])
        assert report.ok, [c for c in report.checks if not c.ok]
        with database.unit_of_work("default") as uow:
            (checkpoint,) = seal_pending(uow, key)
            uow.commit()
        assert checkpoint.total_count == len(txs)
        # The lost round gave the house 1,100; the tie bet took 1,000 back; 1,000 is in play.
        assert checkpoint.balances == {"cash:EUR": -10_000, "house:EUR": 100, "in_play:EUR": 1000}
        with database.unit_of_work() as uow:
            assert run_audit(uow.all_operators(), [key.verifying]).ok
        with database.unit_of_work("default") as uow:
            assert uow.ledger.balances(pid) == [("EUR", 10_000 - 100 - 1000)]
    finally:
        database.dispose()


def test_0015_relabels_won_wars_and_nothing_else(fresh_url: str) -> None:
    """A won war stored with the old split (ante paid, raise pushed) gets the standard one;
    a lost war, a surrender and a round already relabelled keep theirs; totals never move."""
    from datetime import UTC, datetime

    upgrade(fresh_url, "0014")
    now = datetime(2026, 11, 1, tzinfo=UTC)
    pid = "00000000-0000-4000-8000-000000000001"
    # (id, decision, ante_payout, raise_payout): ante 1,000, raised 1,000 on a war.
    rounds = {
        "a": ("war", 2000, 1000),  # won, old split
        "b": ("war", 2000, 2000),  # tied at a bonus table, old split
        "c": ("war", 0, 0),  # lost
        "d": ("surrender", 500, 0),
        "e": ("war", 1000, 2000),  # already in the new form
    }
    engine = make_engine(fresh_url)
    try:
        with engine.begin() as conn:
            conn.execute(
                text("INSERT INTO players VALUES (:id, 'r', NULL, 'h', :t)"), {"id": pid, "t": now}
            )
            conn.execute(
                text("INSERT INTO server_seeds VALUES (1, :p, :s, 'h', 'c', true, 0, 9, :t, NULL)"),
                {"p": pid, "s": bytes(32), "t": now},
            )
            for n, (key, (decision, ante_payout, raise_payout)) in enumerate(rounds.items()):
                raised = 1000 if decision == "war" else 0
                conn.execute(
                    text(
                        "INSERT INTO rounds (id, player_id, table_id, currency, rules, status, "
                        "server_seed_id, client_seed, nonce, ante, tie_bet, raise_amount, "
                        "player_card, dealer_card, war, decision, decided_by, ante_payout, "
                        "tie_bet_payout, raise_payout, net, balance_after, created_at, settled_at) "
                        "VALUES (:id, :p, 'classic', 'EUR', '{}', 'settled', 1, 'c', :n, 1000, 0, "
                        ":r, '5H', '5S', NULL, :d, 'player', :ap, 0, :rp, 0, 0, :t, :t)"
                    ),
                    {"id": key, "p": pid, "n": n, "r": raised, "d": decision, "ap": ante_payout,
                     "rp": raise_payout, "t": now},
                )  # fmt: skip

        def stored() -> dict[str, tuple[int, int]]:
            with engine.connect() as conn:
                rows = conn.execute(text("SELECT id, ante_payout, raise_payout FROM rounds"))
                return {row[0]: (int(row[1]), int(row[2])) for row in rows}

        upgrade(fresh_url, "0015")
        after = stored()
        assert after == {
            "a": (1000, 2000),
            "b": (1000, 3000),
            "c": (0, 0),
            "d": (500, 0),
            "e": (1000, 2000),
        }
        assert all(sum(after[k]) == rounds[k][1] + rounds[k][2] for k in after)
        upgrade(fresh_url, "0015")  # again: nothing moves
        assert stored() == after
        downgrade(fresh_url, "0014")
        assert stored()["a"] == (2000, 1000) and stored()["b"] == (2000, 2000)
    finally:
        engine.dispose()


def test_0016_commits_a_next_seed_for_every_existing_player(fresh_url: str) -> None:
    """Every active seed gets a committed successor from the CSPRNG; revealed seeds none; no
    client seed counts as chosen. The service then promotes the migrated commitment, and the
    downgrade gives the rows back as they were."""
    import hashlib
    from datetime import UTC, datetime

    from casino.service import seeds
    from casino.store.session import make_session_factory
    from casino.store.uow import UnitOfWork

    upgrade(fresh_url, "0012")
    now = datetime(2026, 11, 1, tzinfo=UTC)
    players = ["00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002"]
    engine = make_engine(fresh_url)
    try:
        with engine.begin() as conn:
            for n, pid in enumerate(players):
                conn.execute(
                    text("INSERT INTO players VALUES (:id, :r, NULL, :h, :t)"),
                    {"id": pid, "r": f"ref{n}", "h": f"h{n}", "t": now},
                )
            rows = [
                (1, players[0], False, 0, 4, now),  # revealed
                (2, players[0], True, 4, 6, None),
                (3, players[1], True, 0, 0, None),
            ]
            for seed_id, pid, active, first, nxt, revealed in rows:
                # No explicit id: PostgreSQL's serial must count them (ids 1, 2, 3 in order).
                conn.execute(
                    text(
                        "INSERT INTO server_seeds (player_id, seed, seed_hash, client_seed, "
                        "active, first_nonce, next_nonce, created_at, revealed_at) VALUES "
                        "(:p, :s, :h, 'mine', :a, :f, :n, :t, :r)"
                    ),
                    {"p": pid, "s": bytes([seed_id]) * 32, "h": f"{seed_id:064x}", "a": active,
                     "f": first, "n": nxt, "t": now, "r": revealed},
                )  # fmt: skip
        upgrade(fresh_url, "0016")
        columns = "id, active, next_seed, next_seed_hash, client_seed_chosen, next_nonce"
        with engine.connect() as conn:
            migrated = {
                row[0]: row[1:] for row in conn.execute(text(f"SELECT {columns} FROM server_seeds"))
            }
        assert migrated[1][1:4] == (None, None, False)
        successors = {}
        for seed_id in (2, 3):
            _, successor, successor_hash, chosen, _ = migrated[seed_id]
            assert len(successor) == 32 and not chosen
            assert hashlib.sha256(successor).hexdigest() == successor_hash
            successors[seed_id] = bytes(successor)
        assert successors[2] != successors[3]

        upgrade(fresh_url)  # the service runs on today's schema
        factory = make_session_factory(engine)
        with UnitOfWork(factory, operator="default") as uow:
            shown = seeds.get_seeds(uow, players[0])
        assert shown.next_server_seed_hash == migrated[2][2] and not shown.client_seed_chosen
        with UnitOfWork(factory, operator="default") as uow:
            rotation = seeds.rotate_seed(uow, players[0], "after 0016")
            uow.commit()
        assert rotation.current.server_seed_hash == migrated[2][2]
        assert rotation.current.next_nonce == 6
        with engine.connect() as conn:
            promoted = conn.execute(
                text("SELECT seed FROM server_seeds WHERE player_id = :p AND active"),
                {"p": players[0]},
            ).scalar_one()
        assert bytes(promoted) == successors[2]

        downgrade(fresh_url, "0012")
        with engine.connect() as conn:
            back = conn.execute(
                text("SELECT id, active, first_nonce, next_nonce FROM server_seeds ORDER BY id")
            ).all()
        assert [tuple(row) for row in back] == [
            (1, False, 0, 4),
            (2, False, 4, 6),
            (3, True, 0, 0),
            (4, True, 6, 6),
        ]
    finally:
        engine.dispose()
