"""The grinding attack, played against the seed protocol (docs/fairness.md, "Who can steer
what").

A server that knows the client seed when it picks a server seed can try server seeds until one
deals the house a win, and nobody could tell from the revealed seed: it hashes to its
commitment and re-deals the round exactly. Here the server is made dishonest: every server
seed it makes comes from a ``Grinder`` that knows every client seed the server holds for the
player (stored, or in the request being served) and searches for a seed under which the
player's next round is a house win. The tests show what that search can still reach (a pair
whose client seed the player never chose for it) and that it has nothing to act on once the
player chooses the pair's client seed after seeing the commitment to its server seed: the
seed that deals was fixed, by a hash the player saw, before that client seed existed, and a
seed swapped in afterwards is caught by that hash.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from click.testing import CliRunner
from flask import has_request_context, request
from sqlalchemy import create_engine, select, update

from casino.cli import main as casino_cli
from casino.engine import fairness
from casino.engine.casino_war import CasinoWarDeal, deal_casino_war
from casino.store.models import Round, ServerSeed

from .helpers import Api, Player, new_key

DECKS = 6  # the default table's


def house_wins(deal: CasinoWarDeal) -> bool:
    return deal.player.rank < deal.dealer.rank


@dataclass(frozen=True)
class Made:
    """A server seed the grinder made, what it knew then and what it aimed at."""

    seed: bytes
    known: frozenset[str]  # every client seed of the player the server had seen
    target: tuple[str, int] | None  # (client seed, nonce) it ground against


@dataclass
class Grinder:
    """Stands in for ``fairness.new_server_seed``: the server's only choice of randomness."""

    database_url: str
    player_id: str | None = None
    made: list[Made] = field(default_factory=list)

    def __call__(self) -> bytes:
        known, target = self._knowledge()
        seed = _fresh(len(self.made), 0)
        if target is not None:
            client_seed, nonce = target
            attempt = 0
            while not house_wins(deal_casino_war(seed, client_seed, nonce, DECKS)):
                attempt += 1
                seed = _fresh(len(self.made), attempt)
        self.made.append(Made(seed, known, target))
        return seed

    def _knowledge(self) -> tuple[frozenset[str], tuple[str, int] | None]:
        """Everything the server could use: the player's stored client seeds and the client
        seed of the request being served; its best guess of the seed's first round is the
        client seed it expects next at the active pair's next nonce."""
        if self.player_id is None:
            return frozenset(), None
        engine = create_engine(self.database_url)
        try:
            with engine.connect() as connection:
                stored = set(
                    connection.scalars(
                        select(ServerSeed.client_seed).where(ServerSeed.player_id == self.player_id)
                    )
                ) | set(
                    connection.scalars(
                        select(Round.client_seed).where(Round.player_id == self.player_id)
                    )
                )
                active = connection.execute(
                    select(ServerSeed.client_seed, ServerSeed.next_nonce).where(
                        ServerSeed.player_id == self.player_id, ServerSeed.active.is_(True)
                    )
                ).one()
        finally:
            engine.dispose()
        asked = None
        if has_request_context():
            body = request.get_json(silent=True)
            if isinstance(body, dict) and isinstance(body.get("client_seed"), str):
                asked = body["client_seed"]
        expected = asked if asked is not None else str(active.client_seed)
        known = frozenset(stored | {expected})
        return known, (expected, int(active.next_nonce))

    def maker_of(self, seed_hash: str) -> Made:
        (made,) = [m for m in self.made if fairness.commitment(m.seed) == seed_hash]
        return made


def _fresh(call: int, attempt: int) -> bytes:
    """Deterministic candidates: the test is the same on every run."""
    return hashlib.sha256(f"grinder {call} {attempt}".encode()).digest()


@pytest.fixture
def grinder(database_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Grinder]:
    dishonest = Grinder(database_url)
    monkeypatch.setattr(fairness, "new_server_seed", dishonest)
    yield dishonest


@pytest.fixture
def victim(api: Api, grinder: Grinder) -> Player:
    api.create_table("classic")
    player = api.create_player()
    api.deposit(player, 1_000_000)
    grinder.player_id = player.id
    return player


def seeds_of(api: Api, player: Player) -> dict[str, Any]:
    response = api.get(f"/api/v1/players/{player.id}/seeds", auth=player.auth)
    assert response.status_code == 200
    return dict(response.get_json())


def rotate(api: Api, player: Player, client_seed: str | None = None) -> dict[str, Any]:
    body = None if client_seed is None else {"client_seed": client_seed}
    response = api.post(f"/api/v1/players/{player.id}/seeds/rotate", body, auth=player.auth)
    assert response.status_code == 200, response.get_json()
    return dict(response.get_json())


def bet(api: Api, player: Player, client_seed: str | None = None) -> dict[str, Any]:
    response = api.bet(player, ante=100, client_seed=client_seed)
    assert response.status_code == 201, response.get_json()
    return dict(response.get_json())


def recall(api: Api, player: Player, round_id: str) -> dict[str, Any]:
    response = api.get(f"/api/v1/rounds/{round_id}", auth=player.auth)
    assert response.status_code == 200
    return dict(response.get_json())


def verify(doc: dict[str, Any], *extra: str) -> int:
    return (
        CliRunner()
        .invoke(casino_cli, ["verify", "--round", "-", *extra], input=json.dumps(doc))
        .exit_code
    )


def test_grinding_works_on_a_pair_whose_client_seed_the_player_never_chose(
    api: Api, victim: Player, grinder: Grinder
) -> None:
    """The attack is real: with no client seed chosen for the pair, the seed promoted by the
    second rotation was ground (at the first) against the client seed that carries over, and
    the round goes to the house. The API says the pair is unprotected."""
    rotate(api, victim)  # the grinder commits the next seed, knowing the carried client seed
    current = rotate(api, victim)["current"]
    assert current["client_seed_chosen"] is False  # what the player relies on: the server
    dealt = bet(api, victim)
    made = grinder.maker_of(current["server_seed_hash"])
    assert made.target == (dealt["fairness"]["client_seed"], dealt["fairness"]["nonce"])
    deal = deal_casino_war(made.seed, made.target[0], made.target[1], DECKS)
    assert (dealt["player_card"], dealt["dealer_card"]) == (deal.player.code, deal.dealer.code)
    assert house_wins(deal) and dealt["net"] < 0


def _check_chosen_after_commitment(
    api: Api,
    victim: Player,
    grinder: Grinder,
    seen_before_choosing: str,
    client_seed: str,
    dealt: dict[str, Any],
) -> None:
    """The seed that dealt is the one committed by the hash the player saw before choosing
    its client seed; the grinder made it without knowing that client seed; a rotation
    reveals it and the round verifies against that hash."""
    assert dealt["fairness"]["client_seed"] == client_seed
    assert dealt["fairness"]["server_seed_hash"] == seen_before_choosing
    made = grinder.maker_of(seen_before_choosing)
    assert client_seed not in made.known  # the search had nothing to act on
    if dealt["status"] == "awaiting_decision":  # a tie: finish it before the rotation
        decided = api.post(
            f"/api/v1/rounds/{dealt['id']}/decision",
            {"action": "surrender"},
            auth=victim.auth,
            key=new_key(),
        )
        assert decided.status_code == 200
    revealed = rotate(api, victim)["revealed"]
    assert fairness.commitment(bytes.fromhex(revealed["server_seed"])) == seen_before_choosing
    assert bytes.fromhex(revealed["server_seed"]) == made.seed
    doc = recall(api, victim, dealt["id"])
    assert verify(doc, "--hash", seen_before_choosing) == 0


def test_a_client_seed_chosen_with_the_rotation_leaves_the_grinder_nothing(
    api: Api, victim: Player, grinder: Grinder
) -> None:
    api.put(f"/api/v1/players/{victim.id}/seeds/client", {"client_seed": "old"}, victim.auth)
    rotate(api, victim)  # the grinder commits the next seed against "old"
    shown = seeds_of(api, victim)["next_server_seed_hash"]
    # The player chooses only now, having recorded the commitment.
    chosen = "chosen after seeing the commitment"
    current = rotate(api, victim, chosen)["current"]
    assert current["server_seed_hash"] == shown and current["client_seed_chosen"] is True
    dealt = bet(api, victim)
    _check_chosen_after_commitment(api, victim, grinder, shown, chosen, dealt)


def test_a_client_seed_brought_by_the_first_bet_leaves_the_grinder_nothing(
    api: Api, victim: Player, grinder: Grinder
) -> None:
    rotate(api, victim)  # the grinder commits the next seed against the carried client seed
    current = rotate(api, victim)["current"]  # ... which is now active, unchosen
    shown = current["server_seed_hash"]
    assert current["client_seed_chosen"] is False
    entropy = "first-bet entropy 7f3a"
    dealt = bet(api, victim, client_seed=entropy)
    assert seeds_of(api, victim)["client_seed_chosen"] is True
    _check_chosen_after_commitment(api, victim, grinder, shown, entropy, dealt)


def test_a_seed_swapped_in_after_the_client_seed_is_caught_by_the_commitment(
    api: Api, victim: Player, grinder: Grinder, database_url: str
) -> None:
    """What is left to a dishonest server once the client seed is chosen: grind now and swap
    the active seed in its own database. The round then deals as it wants and even verifies
    on its own (the swapped seed's hash is recorded with it), but not against the hash the
    player saw before choosing."""
    shown = seeds_of(api, victim)["next_server_seed_hash"]
    chosen = "my seed"
    rotate(api, victim, chosen)
    nonce = seeds_of(api, victim)["next_nonce"]
    attempt = 0
    swapped = _fresh(-1, attempt)
    while not house_wins(deal_casino_war(swapped, chosen, nonce, DECKS)):
        attempt += 1
        swapped = _fresh(-1, attempt)
    engine = create_engine(database_url)
    try:
        with engine.begin() as connection:
            connection.execute(
                update(ServerSeed)
                .where(ServerSeed.player_id == victim.id, ServerSeed.active.is_(True))
                .values(seed=swapped, seed_hash=fairness.commitment(swapped))
            )
    finally:
        engine.dispose()
    dealt = bet(api, victim)
    assert dealt["net"] < 0  # the swap worked...
    rotate(api, victim)
    doc = recall(api, victim, dealt["id"])
    assert verify(doc) == 0  # ... and is consistent with itself,
    assert fairness.commitment(bytes.fromhex(doc["fairness"]["server_seed"])) != shown
    assert verify(doc, "--hash", shown) == 1  # but not with the commitment the player holds
