from __future__ import annotations

import hashlib
import threading

import pytest
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from casino.engine.casino_war import deal_casino_war
from casino.engine.errors import InvalidSeed
from casino.service import rounds, seeds
from casino.service.errors import Conflict, NotFound
from casino.store.models import ServerSeed

from .conftest import Svc, is_tie, not_tie

MISSING = "00000000-0000-0000-0000-000000000000"
THREADS = 8


def seed_rows(svc: Svc, player_id: str) -> list[ServerSeed]:
    with svc.factory() as session:
        return list(
            session.scalars(
                select(ServerSeed).where(ServerSeed.player_id == player_id).order_by(ServerSeed.id)
            )
        )


def test_new_player_has_committed_seed(svc: Svc) -> None:
    pid = svc.player()
    with svc.uow() as uow:
        view = seeds.get_seeds(uow, pid)
    server_seed, nonce = svc.active_seed(pid)
    assert view.server_seed_hash == hashlib.sha256(server_seed).hexdigest()
    assert view.next_nonce == nonce == 0 and view.client_seed
    assert server_seed.hex() not in repr(view)
    (row,) = seed_rows(svc, pid)
    assert row.next_seed is not None and row.next_seed != server_seed
    assert view.next_server_seed_hash == row.next_seed_hash
    assert view.next_server_seed_hash == hashlib.sha256(row.next_seed).hexdigest()
    assert row.next_seed.hex() not in repr(view)
    assert view.client_seed_chosen is False


def test_rotation_promotes_the_committed_seed_and_commits_another(svc: Svc) -> None:
    pid = svc.player()
    (first,) = seed_rows(svc, pid)
    rotation = svc.run(seeds.rotate_seed, pid, "chosen")
    old, new = seed_rows(svc, pid)
    assert old.id == first.id and not old.active and old.revealed_at is not None
    # The revealed row keeps what it committed to, not the successor's secret.
    assert old.next_seed is None and old.next_seed_hash == first.next_seed_hash
    assert new.active and new.seed == first.next_seed and new.seed_hash == first.next_seed_hash
    assert new.client_seed == "chosen" and new.client_seed_chosen
    assert new.next_seed not in (first.seed, first.next_seed)
    assert rotation.current.server_seed_hash == first.next_seed_hash
    assert rotation.current.next_server_seed_hash == new.next_seed_hash
    assert rotation.current.client_seed_chosen is True


def test_rotation_refuses_an_invalid_client_seed_and_changes_nothing(svc: Svc) -> None:
    pid = svc.player()
    before = seed_rows(svc, pid)
    for bad in ["", "x" * 65, "tab\there", "é"]:
        with pytest.raises(InvalidSeed):
            svc.run(seeds.rotate_seed, pid, bad)
    after = seed_rows(svc, pid)
    assert [(r.id, r.seed, r.next_seed, r.active) for r in after] == [
        (r.id, r.seed, r.next_seed, r.active) for r in before
    ]


def test_a_revealed_seed_cannot_keep_a_secret_successor(svc: Svc) -> None:
    """The schema holds the protocol: an active row without a committed successor, or a
    revealed one still holding the successor's secret, is refused."""
    pid = svc.player()
    svc.run(seeds.rotate_seed, pid)
    old, new = seed_rows(svc, pid)
    for row_id, values in (
        (new.id, {"next_seed": None}),
        (new.id, {"next_seed_hash": None}),
        (old.id, {"next_seed": bytes(32)}),
    ):
        with svc.factory() as session, pytest.raises(IntegrityError):
            session.execute(update(ServerSeed).where(ServerSeed.id == row_id).values(**values))
            session.commit()


def test_first_bet_client_seed(svc: Svc, demo_tables: list[str]) -> None:
    pid = svc.player(funds=10_000)
    played = svc.run(rounds.place_bet, pid, "classic", 100, client_seed="bet entropy")
    assert played.fairness["client_seed"] == "bet entropy"
    with svc.uow() as uow:
        view = seeds.get_seeds(uow, pid)
    assert view.client_seed == "bet entropy" and view.client_seed_chosen
    if played.status == "awaiting_decision":
        svc.run(rounds.decide, played.id, "surrender", player_id=pid)
    with pytest.raises(Conflict) as caught:
        svc.run(rounds.place_bet, pid, "classic", 100, client_seed="again")
    assert caught.value.code == "client_seed_fixed"
    with pytest.raises(InvalidSeed):
        svc.run(seeds.take_first_bet_client_seed, pid, "tab\there")
    with pytest.raises(NotFound):
        svc.run(rounds.place_bet, MISSING, "classic", 100, client_seed="x")


def test_set_client_seed(svc: Svc) -> None:
    pid = svc.player()
    view = svc.run(seeds.set_client_seed, pid, "my lucky seed")
    assert view.client_seed == "my lucky seed"
    for bad in ["", "x" * 65, "tab\there", "é"]:
        with pytest.raises(InvalidSeed):
            svc.run(seeds.set_client_seed, pid, bad)


def test_unknown_player(svc: Svc) -> None:
    with svc.uow() as uow, pytest.raises(NotFound):
        seeds.get_seeds(uow, MISSING)
    with pytest.raises(NotFound):
        svc.run(seeds.set_client_seed, MISSING, "abc")
    with pytest.raises(NotFound):
        svc.run(seeds.rotate_seed, MISSING)


def test_rotation_reveals_and_rounds_verify(svc: Svc, demo_tables: list[str]) -> None:
    pid = svc.player(funds=100_000)
    before = svc.run(seeds.set_client_seed, pid, "first")
    played = []
    for _ in range(3):
        svc.steer(pid, not_tie)
        played.append(svc.run(rounds.place_bet, pid, "classic", 100))
    svc.run(seeds.set_client_seed, pid, "second")
    svc.steer(pid, not_tie)
    played.append(svc.run(rounds.place_bet, pid, "classic", 100))
    assert [r.fairness["nonce"] for r in played] == [0, 1, 2, 3]
    assert all(r.fairness["server_seed"] is None for r in played)

    rotation = svc.run(seeds.rotate_seed, pid)
    revealed = rotation.revealed
    assert revealed["server_seed_hash"] == before.server_seed_hash
    assert hashlib.sha256(bytes.fromhex(revealed["server_seed"])).hexdigest() == (
        before.server_seed_hash
    )
    assert revealed["first_nonce"] == 0 and revealed["last_nonce"] == 3
    used = [r.fairness["client_seed"] for r in played]
    assert revealed["client_seed"] == used[-1]
    assert revealed["client_seeds"] == list(dict.fromkeys(used))  # distinct, in order of use
    assert rotation.current.server_seed_hash != before.server_seed_hash
    assert rotation.current.next_nonce == 4

    # Anyone can now re-deal each round from the revealed seed.
    for played_round in played:
        with svc.uow() as uow:
            recalled = rounds.get_round(uow, played_round.id, pid)
        assert recalled.fairness["server_seed"] == revealed["server_seed"]
        deal = deal_casino_war(
            bytes.fromhex(revealed["server_seed"]),
            recalled.fairness["client_seed"],
            recalled.fairness["nonce"],
            recalled.rules["decks"],
        )
        assert (deal.player.code, deal.dealer.code) == (
            recalled.player_card,
            recalled.dealer_card,
        )

    # The next seed continues the nonce sequence.
    svc.steer(pid, not_tie)
    assert svc.run(rounds.place_bet, pid, "classic", 100).fairness["nonce"] == 4


def test_rotation_of_unused_seed(svc: Svc) -> None:
    pid = svc.player()
    rotation = svc.run(seeds.rotate_seed, pid)
    assert rotation.revealed["last_nonce"] is None and rotation.revealed["first_nonce"] == 0


def test_rotation_refused_while_a_round_awaits(svc: Svc, demo_tables: list[str]) -> None:
    pid = svc.player(funds=10_000)
    svc.steer(pid, is_tie)
    open_round = svc.run(rounds.place_bet, pid, "classic", 100)
    with svc.uow() as uow:
        hash_before = seeds.get_seeds(uow, pid).server_seed_hash
    with pytest.raises(Conflict) as caught:
        svc.run(seeds.rotate_seed, pid)
    assert caught.value.code == "round_in_progress"
    assert caught.value.extra["round_id"] == open_round.id
    with svc.uow() as uow:
        assert seeds.get_seeds(uow, pid).server_seed_hash == hash_before
    svc.run(rounds.decide, open_round.id, "surrender", player_id=pid)
    svc.run(seeds.rotate_seed, pid)


def test_concurrent_first_bets_one_client_seed_wins(svc: Svc, demo_tables: list[str]) -> None:
    """Bets racing to bring the first client seed of a pair: the seed row's lock lets exactly
    one through, and the round it deals carries its seed; the others are refused whole."""
    pid = svc.player(funds=100_000)
    start = threading.Barrier(THREADS)
    lock = threading.Lock()
    accepted: list[tuple[str, str]] = []
    refused: list[str] = []

    def bettor(n: int) -> None:
        start.wait()
        try:
            view = svc.run(rounds.place_bet, pid, "classic", 100, client_seed=f"racer {n}")
        except Conflict as exc:
            with lock:
                refused.append(exc.code)
        else:
            with lock:
                accepted.append((f"racer {n}", view.fairness["client_seed"]))

    threads = [threading.Thread(target=bettor, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(accepted) == 1 and accepted[0][0] == accepted[0][1]
    assert refused == ["client_seed_fixed"] * (THREADS - 1)
    with svc.uow() as uow:
        view = seeds.get_seeds(uow, pid)
        (dealt,) = rounds.list_rounds(uow, pid).items
    assert (view.client_seed, view.next_nonce) == (accepted[0][0], 1)
    assert dealt.fairness["client_seed"] == accepted[0][0]
    assert svc.balance(pid) == 100_000 + dealt.net
