"""The recall-file round trip: a round played through the API, recalled as JSON after the
seed is revealed, checked by ``casino verify --round``; the same file with one payout changed
must fail."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

from casino.cli import main as casino_cli
from casino.engine.casino_war import deal_casino_war

from .helpers import (
    Api,
    Player,
    active_server_seed,
    dealer_wins,
    new_key,
    player_wins,
    steer_next_deal,
)

SPACED = "  round trip {} "


def steer_spaced(api: Api, database_url: str, player: Player, wanted: Any) -> str:
    """A client seed with spaces at both ends whose next deal is ``wanted``."""
    server_seed, nonce = active_server_seed(database_url, player.id)
    for attempt in range(100_000):
        client_seed = SPACED.format(attempt)
        if wanted(deal_casino_war(server_seed, client_seed, nonce, 6)):
            response = api.put(
                f"/api/v1/players/{player.id}/seeds/client",
                {"client_seed": client_seed},
                auth=player.auth,
            )
            assert response.status_code == 200, response.get_json()
            assert response.get_json()["client_seed"] == client_seed  # kept byte for byte
            return client_seed
    raise AssertionError("no client seed gives the wanted deal")


def verify_round(doc: dict[str, Any]) -> int:
    text = json.dumps(doc)
    return CliRunner().invoke(casino_cli, ["verify", "--round", "-"], input=text).exit_code


@pytest.mark.parametrize("action", ["war", "surrender"])
def test_a_recalled_round_verifies_and_a_tampered_payout_does_not(
    api: Api, funded: Player, database_url: str, action: str
) -> None:
    def war_won(deal: Any) -> bool:
        return bool(deal.is_tie and deal.war_player.rank > deal.war_dealer.rank)

    client_seed = steer_spaced(api, database_url, funded, war_won)
    tied = api.bet(funded, ante=1000, tie_bet=100).get_json()
    assert tied["fairness"]["client_seed"] == client_seed
    decided = api.post(
        f"/api/v1/rounds/{tied['id']}/decision", {"action": action}, auth=funded.auth, key=new_key()
    )
    assert decided.status_code == 200
    unrevealed = api.get(f"/api/v1/rounds/{tied['id']}", auth=funded.auth).get_json()
    assert verify_round(unrevealed) == 2  # the seed is still secret: nothing to check yet
    rotation = api.post(f"/api/v1/players/{funded.id}/seeds/rotate", auth=funded.auth)
    assert rotation.status_code == 200
    recalled = api.get(f"/api/v1/rounds/{tied['id']}", auth=funded.auth).get_json()
    assert recalled["fairness"]["server_seed"] is not None
    assert verify_round(recalled) == 0
    if action == "war":
        assert recalled["outcomes"] == {
            "ante": "push",
            "tie_bet": "win",
            "raise": "win",
            "war_tie_bet": "none",
        }
    for bet in ("ante", "tie_bet", "raise"):
        tampered = json.loads(json.dumps(recalled))
        tampered["payouts"][bet] += 100
        assert verify_round(tampered) == 1, bet
    # The same file with the trimmed client seed is another round: it does not verify.
    trimmed = json.loads(json.dumps(recalled))
    trimmed["fairness"]["client_seed"] = client_seed.strip()
    assert verify_round(trimmed) == 1


def test_rounds_settled_on_their_first_cards_verify(
    api: Api, funded: Player, database_url: str
) -> None:
    played = []
    for wanted in (player_wins, dealer_wins):
        steer_next_deal(api, database_url, funded, wanted)
        played.append(api.bet(funded, ante=200, tie_bet=100).get_json())
    assert (
        api.post(f"/api/v1/players/{funded.id}/seeds/rotate", auth=funded.auth).status_code == 200
    )
    for round_ in played:
        recalled = api.get(f"/api/v1/rounds/{round_['id']}", auth=funded.auth).get_json()
        assert recalled["status"] == "settled" and recalled["outcomes"]["tie_bet"] == "lose"
        assert verify_round(recalled) == 0
        recalled["net"] += 1
        assert verify_round(recalled) == 1
