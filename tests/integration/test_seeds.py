from __future__ import annotations

import hashlib

import pytest

from casino.engine.casino_war import deal_casino_war
from casino.engine.errors import InvalidSeed
from casino.service import rounds, seeds
from casino.service.errors import Conflict, NotFound

from .conftest import Svc, is_tie, not_tie

MISSING = "00000000-0000-0000-0000-000000000000"


def test_new_player_has_committed_seed(svc: Svc) -> None:
    pid = svc.player()
    with svc.uow() as uow:
        view = seeds.get_seeds(uow, pid)
    server_seed, nonce = svc.active_seed(pid)
    assert view.server_seed_hash == hashlib.sha256(server_seed).hexdigest()
    assert view.next_nonce == nonce == 0 and view.client_seed
    assert server_seed.hex() not in repr(view)


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
