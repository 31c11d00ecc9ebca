"""Two sealers at once: ``casino seal`` is run on a schedule from more than one host, or by
every ``casino serve`` beside its workers, so two ``seal_pending`` calls meet.

Each test plays several rounds of bets and deposits through the service, then starts two
sealers together, each in its own thread, unit of work and connection (on SQLite too: its
IMMEDIATE transactions serialise them, which is its whole defence), and at the end asserts
what a sealer must never break whoever wins: no error, checkpoint sequences 1..n without a
gap or a repeat and each linked to the one before, every transaction sealed by exactly one
checkpoint, and the audit clean. Two variants on PostgreSQL: with the bets still being
placed while the sealers race (the horizon must keep every open transaction for later), and
with the sealers' advisory lock taken away and both held at the moment of inserting the
same next checkpoint (the primary key alone must pick one of them).
"""

from __future__ import annotations

import threading
import uuid
from collections import Counter
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from casino.ledger.audit import format_report
from casino.ledger.checkpoints import Checkpoint
from casino.service import rounds, wallets
from casino.service.sealing import Sealer, seal_pending
from casino.store.checkpoints import CheckpointStore
from casino.store.models import LedgerTransaction
from casino.store.sealer_state import SealerStateFile

from .conftest import SIGNING_KEY, Svc
from .test_locks import paused_before_commit

ROUNDS = 5
#: Checkpoints hold at most this many transactions, so that one seal makes several.
BATCH = 4
#: Long enough for any step of a test to finish, short enough that a hang fails it.
TIMEOUT = 60


def bet(svc: Svc, player: str) -> None:
    """One settled round (a tie surrendered): a transaction or two."""
    view: Any = svc.run(rounds.place_bet, player, "classic", 100)
    if view.status == "awaiting_decision":
        svc.run(rounds.decide, view.id, "surrender", player_id=player)


def play(svc: Svc, players: list[str], n: int) -> None:
    for i in range(n):
        bet(svc, players[i % len(players)])
    svc.run(wallets.deposit, players[0], "EUR", 50, f"top-up {uuid.uuid4()}")


def in_threads(*jobs: Callable[[], object]) -> list[object]:
    """Run the jobs at once, one thread each, started together; their results, or raise the
    first error one of them raised."""
    start = threading.Barrier(len(jobs), timeout=TIMEOUT)
    results: list[object] = [None] * len(jobs)
    errors: list[BaseException] = []

    def run(n: int, job: Callable[[], object]) -> None:
        try:
            start.wait()
            results[n] = job()
        except BaseException as error:  # reported to the test below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(n, job)) for n, job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(TIMEOUT)
    assert not any(thread.is_alive() for thread in threads), "a thread hung"
    if errors:
        raise errors[0]
    return results


def sealer(svc: Svc) -> Callable[[], list[Checkpoint]]:
    def seal() -> list[Checkpoint]:
        with svc.uow() as uow:
            made = seal_pending(uow, SIGNING_KEY, batch=BATCH)
            uow.commit()
        return made

    return seal


def recording_sealer(svc: Svc, record: SealerStateFile) -> Callable[[], list[Checkpoint]]:
    """A sealer that keeps its record (CASINO_SEALER_STATE), as ``casino seal`` does."""
    sealer = Sealer(SIGNING_KEY, batch=BATCH)

    def seal() -> list[Checkpoint]:
        with svc.uow() as uow:
            return sealer.seal(uow, record).made

    return seal


def assert_sealed_exactly_once(svc: Svc) -> list[Checkpoint]:
    """Every checkpoint links to the one before it, and every transaction is a leaf of
    exactly one checkpoint; the checkpoints."""
    with svc.uow() as uow:
        checkpoints = list(uow.checkpoints.all())
        sealed = [uow.checkpoints.leaves(c.commit_from, c.commit_to) for c in checkpoints]
    assert [c.tx_count for c in checkpoints] == [len(batch) for batch in sealed]
    leaves = [leaf for batch in sealed for leaf in batch]
    with svc.factory() as session:
        every = set(session.execute(select(LedgerTransaction.id)).scalars())
    assert [c.seq for c in checkpoints] == list(range(1, len(checkpoints) + 1))
    for before, after in pairwise(checkpoints):
        assert after.prev_hash == before.hash
        assert after.commit_from == before.commit_to  # adjacent ranges: no overlap, no gap
        assert after.total_count == before.total_count + after.tx_count
    repeated = [tx_id for tx_id, n in Counter(tx_id for tx_id, _ in leaves).items() if n > 1]
    assert repeated == []
    assert {tx_id for tx_id, _ in leaves} == every
    assert checkpoints[-1].total_count == len(every)
    return checkpoints


def finish(svc: Svc, made: list[Checkpoint]) -> None:
    """Seal what the races left (transactions committed while they ran), then check it all."""
    made += svc.seal()
    checkpoints = assert_sealed_exactly_once(svc)
    # What the sealers said they made is what is stored: nobody's work was lost or doubled.
    assert sorted(c.seq for c in made) == [c.seq for c in checkpoints]
    assert {c.seq: c.hash for c in made} == {c.seq: c.hash for c in checkpoints}
    report = svc.audit()
    assert report.ok, format_report(report)


@pytest.fixture
def players(svc: Svc, demo_tables: list[str]) -> list[str]:
    return [svc.player(funds=100_000) for _ in range(3)]


def test_two_sealers_sharing_a_record_file_race_on_a_fresh_ledger(
    svc: Svc, players: list[str], tmp_path: Path
) -> None:
    """Two hosts' sealers started together on a ledger with no checkpoint yet, one record
    file between them: whichever signs first, the other continues it (it reads the record
    again when the ledger has checkpoints it has no record of), and the record follows."""
    record = SealerStateFile(tmp_path / "sealer-state.json")
    made: list[Checkpoint] = []
    first, second = recording_sealer(svc, record), recording_sealer(svc, record)
    for n in range(ROUNDS):
        play(svc, players, 3 + 2 * n)
        one, other = in_threads(first, second)
        assert isinstance(one, list) and isinstance(other, list)
        made += one + other
        last = max(c.seq for c in made)
        assert record.load() is not None and record.load().seq == last  # type: ignore[union-attr]
    finish(svc, made)


def test_two_sealers_racing_seal_every_transaction_once(svc: Svc, players: list[str]) -> None:
    made: list[Checkpoint] = []
    for n in range(ROUNDS):
        play(svc, players, 3 + 2 * n)
        first, second = in_threads(sealer(svc), sealer(svc))
        assert isinstance(first, list) and isinstance(second, list)
        made += first + second
        # Everything committed before the race is sealed by one of the two.
        assert svc.seal() == []
    finish(svc, made)


@pytest.mark.parametrize("db_url", [pytest.param("postgresql", marks=pytest.mark.postgres)],
                         indirect=True)  # fmt: skip
def test_two_sealers_racing_while_bets_commit(svc: Svc, players: list[str]) -> None:
    """Two bettors keep committing while the two sealers run: what the sealers seal is
    final, and what commits behind them is left to the next seal, never skipped."""
    made: list[Checkpoint] = []
    for _ in range(ROUNDS):
        play(svc, players, 3)
        first, second, _, _ = in_threads(
            sealer(svc),
            sealer(svc),
            lambda: play(svc, players[1:2], 6),
            lambda: play(svc, players[2:], 6),
        )
        assert isinstance(first, list) and isinstance(second, list)
        made += first + second
    finish(svc, made)


@pytest.mark.parametrize("db_url", [pytest.param("postgresql", marks=pytest.mark.postgres)],
                         indirect=True)  # fmt: skip
def test_a_transaction_open_while_sealers_race_is_sealed_after_it_commits(
    svc: Svc, players: list[str]
) -> None:
    """The case the horizon exists for: a bet holds the older transaction id, all its rows
    written and its COMMIT not sent yet, while a later bet commits and the sealers race. They
    may seal the later one only once the older cannot appear below it any more."""
    made: list[Checkpoint] = []
    for _ in range(ROUNDS):
        play(svc, players, 2)

        def race(xid: int) -> None:
            bet(svc, players[1])  # a younger transaction, committed first
            first, second = in_threads(sealer(svc), sealer(svc))
            assert isinstance(first, list) and isinstance(second, list)
            made.extend(first + second)

        with paused_before_commit(race), svc.uow() as uow:
            older = rounds.place_bet(uow, players[0], "classic", 100)
            uow.commit()
        if older.status == "awaiting_decision":
            svc.run(rounds.decide, older.id, "surrender", player_id=players[0])
    finish(svc, made)


class Rendezvous:
    """While ``racing``, each sealer thread waits for the other right before inserting its
    first checkpoint."""

    def __init__(self) -> None:
        self.racing = False
        self.meet = threading.Barrier(2, timeout=TIMEOUT)
        self.met = threading.local()  # a new thread each race: it has not met yet
        #: What each first insert of a race gave: True inserted, False found its place taken.
        self.inserted: list[bool] = []

    def add(self, real_add: Callable[[], bool]) -> bool:
        if not self.racing or getattr(self.met, "done", False):
            return real_add()
        self.met.done = True
        self.meet.wait()
        inserted = real_add()
        self.inserted.append(inserted)
        return inserted


@pytest.fixture
def without_the_sealers_lock(monkeypatch: pytest.MonkeyPatch) -> Rendezvous:
    """Both sealers of a race get through ``try_lock`` and meet right before inserting: both
    have computed the same next checkpoint."""
    rendezvous = Rendezvous()
    real_add = CheckpointStore.add

    def add(self: CheckpointStore, checkpoint: Checkpoint) -> bool:
        return rendezvous.add(lambda: real_add(self, checkpoint))

    monkeypatch.setattr(CheckpointStore, "try_lock", lambda self: True)
    monkeypatch.setattr(CheckpointStore, "add", add)
    return rendezvous


@pytest.mark.parametrize("db_url", [pytest.param("postgresql", marks=pytest.mark.postgres)],
                         indirect=True)  # fmt: skip
def test_without_the_advisory_lock_the_primary_key_picks_one_sealer(
    svc: Svc, players: list[str], without_the_sealers_lock: Rendezvous
) -> None:
    made: list[Checkpoint] = []
    for n in range(ROUNDS):
        play(svc, players, 3 + 2 * n)
        without_the_sealers_lock.racing = True
        without_the_sealers_lock.inserted = []
        first, second = in_threads(sealer(svc), sealer(svc))
        without_the_sealers_lock.racing = False
        assert isinstance(first, list) and isinstance(second, list)
        # Both computed the same next checkpoint; one inserted it and went on with the rest,
        # the other found its place taken (the primary key refused it) and stopped.
        assert sorted(without_the_sealers_lock.inserted) == [False, True]
        assert sorted([len(first) > 0, len(second) > 0]) == [False, True]
        made += first + second
    finish(svc, made)
