"""``casino verify --round``: a recalled round re-dealt and re-settled by the standalone
verifier. Exit 0 only on a full match; any tampered value is a mismatch (1); a round that
cannot be checked is invalid input (2)."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from casino.cli import main as casino_cli
from casino.engine import verify
from casino.engine.casino_war import RoundStatus, TableRules, deal_casino_war, replay_round

SEED = hashlib.sha256(b"verify --round").digest()


def nonce_where(wanted: Callable[[Any], bool], decks: int = 6, client: str = "c") -> int:
    for nonce in range(20_000):
        if wanted(deal_casino_war(SEED, client, nonce, decks)):
            return nonce
    raise AssertionError("no such deal")


def recalled(
    nonce: int,
    *,
    decision: str | None = None,
    rules: TableRules | None = None,
    client: str = "c",
    ante: int = 1_000,
    tie_bet: int = 100,
    revealed: bool = True,
) -> dict[str, Any]:
    """A round as GET /api/v1/rounds/{id} shows it, built from the engine."""
    table = rules or TableRules()
    game = replay_round(table, SEED, client, nonce, ante, tie_bet, decision)
    settled = game.status is RoundStatus.SETTLED
    war = None
    if settled and game.result.war is not None:
        war = game.result.war.to_dict()
    bets = game.bets.to_dict()
    payouts = game.payouts.to_dict()
    return {
        "id": "9c1ad5c2-5a39-4cf4-9e0e-5b7a3b3e63a2",
        "player_id": "0b7f2f69-5e4b-4b5d-9d3b-2f0c3c9a8a11",
        "table_id": "classic",
        "status": game.status.value,
        "player_card": game.deal.player.code,
        "dealer_card": game.deal.dealer.code,
        "war": war,
        "decision": None if decision is None else {"action": decision, "decided_by": "player"},
        "bets": bets,
        "payouts": payouts,
        "outcomes": {k: v.value for k, v in game.bet_outcomes.items()},
        "net": sum(payouts.values()) - sum(bets.values()),
        "balance_after": 12_345,
        "currency": "EUR",
        "fairness": {
            "server_seed_hash": hashlib.sha256(SEED).hexdigest(),
            "client_seed": client,
            "nonce": nonce,
            "server_seed": SEED.hex() if revealed else None,
        },
        "transaction_ids": [1, 2],
        "created_at": "2026-11-30T12:00:00+00:00",
        "settled_at": "2026-11-30T12:00:01+00:00" if settled else None,
        "rules": table.to_dict(),
    }


def run(doc: dict[str, Any], *extra: str) -> tuple[int, str]:
    """Exit status and standard output of ``casino verify --round -`` fed the round."""
    outcome = CliRunner().invoke(
        casino_cli, ["verify", "--round", "-", *extra], input=json.dumps(doc)
    )
    return outcome.exit_code, outcome.stdout


def is_tie(deal: Any) -> bool:
    return bool(deal.is_tie)


def war_won(deal: Any) -> bool:
    return bool(deal.is_tie and deal.war_player.rank > deal.war_dealer.rank)


def war_tied(deal: Any) -> bool:
    return bool(deal.is_tie and deal.war_player.rank == deal.war_dealer.rank)


def player_wins(deal: Any) -> bool:
    return bool(deal.player.rank > deal.dealer.rank)


SHAPES = {
    "player wins": lambda: recalled(nonce_where(player_wins)),
    "dealer wins": lambda: recalled(nonce_where(lambda d: d.player.rank < d.dealer.rank)),
    "awaiting decision": lambda: recalled(nonce_where(is_tie)),
    "surrender": lambda: recalled(nonce_where(is_tie), decision="surrender"),
    "war won": lambda: recalled(nonce_where(war_won), decision="war"),
    "war tied, bonus": lambda: recalled(
        nonce_where(war_tied), decision="war", rules=TableRules(war_tie_bonus=True, tie_pays=12)
    ),
    "war lost": lambda: recalled(
        nonce_where(lambda d: d.is_tie and d.war_player.rank < d.war_dealer.rank), decision="war"
    ),
    "one deck": lambda: recalled(
        nonce_where(player_wins, decks=1), rules=TableRules(decks=1), tie_bet=0
    ),
    "spaces in the seed": lambda: recalled(
        nonce_where(war_won, client="  spaced seed "), decision="war", client="  spaced seed "
    ),
}


@pytest.mark.parametrize("shape", SHAPES)
def test_every_honest_round_matches(shape: str) -> None:
    doc = SHAPES[shape]()
    code, output = run(doc)
    assert code == 0, output
    assert "MISMATCH" not in output and "the round matches its seeds" in output
    code, output = run(doc, "--json")
    report = json.loads(output)
    assert code == 0 and report["match"] is True
    assert report["cards"][:2] == [doc["player_card"], doc["dealer_card"]]
    names = {check["name"] for check in report["checks"]}
    assert {"commitment", "player_card", "war", "net", "payouts.ante", "outcomes.raise"} <= names


def payout(name: str, change: Callable[[int], int]) -> Callable[[dict[str, Any]], None]:
    def tamper(doc: dict[str, Any]) -> None:
        doc["payouts"][name] = change(doc["payouts"][name])

    return tamper


def other_card(code: str) -> str:
    return "2C" if code != "2C" else "3C"


TAMPERINGS: dict[str, Callable[[dict[str, Any]], None]] = {
    "ante payout": payout("ante", lambda v: v + 100),
    "raise payout": payout("raise", lambda v: 0),
    "tie bet payout": payout("tie_bet", lambda v: 0),
    "old split of a war won": lambda r: r["payouts"].update({"ante": 2_000, "raise": 1_000}),
    "net": lambda r: r.update(net=r["net"] - 1),
    "player card": lambda r: r.update(player_card=other_card(r["player_card"])),
    "war card": lambda r: r["war"].update(dealer_card=other_card(r["war"]["dealer_card"])),
    "burn": lambda r: r["war"]["burns"].__setitem__(0, other_card(r["war"]["burns"][0])),
    "no war shown": lambda r: r.update(war=None),
    "raise stake": lambda r: r["bets"].update({"raise": 0}),
    "label": lambda r: r["outcomes"].update(ante="win"),
    "status": lambda r: r.update(status="awaiting_decision"),
    "commitment": lambda r: r["fairness"].update(server_seed_hash="0" * 64),
    "decks": lambda r: r["rules"].update(decks=8),
    "client seed": lambda r: r["fairness"].update(client_seed=r["fairness"]["client_seed"].strip()),
    "nonce": lambda r: r["fairness"].update(nonce=r["fairness"]["nonce"] + 1),
    "tie pays": lambda r: r["rules"].update(tie_pays=11),
}


@pytest.mark.parametrize("how", TAMPERINGS)
def test_a_tampered_war_round_fails(how: str) -> None:
    honest = recalled(
        nonce_where(war_won, client="  spaced seed "), decision="war", client="  spaced seed "
    )
    doc = copy.deepcopy(honest)
    TAMPERINGS[how](doc)
    assert doc != honest
    code, output = run(doc)
    assert code == 1, (how, output)
    assert "MISMATCH" in output
    report = json.loads(run(doc, "--json")[1])
    assert report["match"] is False
    assert any(not check["ok"] for check in report["checks"])


def test_a_round_file_on_disk_and_the_standalone_verifier(tmp_path: Path) -> None:
    doc = recalled(nonce_where(war_won), decision="war")
    path = tmp_path / "round.json"
    path.write_text(json.dumps(doc))
    assert verify.main(["--round", str(path)]) == verify.EXIT_OK
    doc["payouts"]["raise"] -= 1
    path.write_text(json.dumps(doc))
    assert verify.main(["--round", str(path)]) == verify.EXIT_MISMATCH


def test_a_decision_on_a_round_that_was_no_tie_is_a_mismatch() -> None:
    doc = recalled(nonce_where(player_wins))
    doc["decision"] = {"action": "surrender", "decided_by": "player"}
    assert run(doc)[0] == 1


def test_a_surrender_where_the_table_forbids_it_is_a_mismatch() -> None:
    doc = recalled(nonce_where(is_tie), decision="surrender")
    doc["rules"]["surrender_allowed"] = False
    assert run(doc)[0] == 1


def test_an_unrevealed_seed_cannot_be_checked_without_the_seed() -> None:
    doc = recalled(nonce_where(war_won), decision="war", revealed=False)
    outcome = CliRunner().invoke(casino_cli, ["verify", "--round", "-"], input=json.dumps(doc))
    assert outcome.exit_code == 2 and "not revealed" in outcome.stderr
    assert run(doc, "--server-seed", SEED.hex())[0] == 0
    assert run(doc, "--server-seed", "ab" * 32)[0] == 1  # its commitment is not the round's
    revealed = recalled(nonce_where(war_won), decision="war")
    assert run(revealed, "--server-seed", "ab" * 32)[0] == 2  # contradicts the file
    assert run(revealed, "--hash", hashlib.sha256(SEED).hexdigest())[0] == 0
    assert run(revealed, "--hash", "0" * 64)[0] == 1


@pytest.mark.parametrize(
    "breakage",
    [
        lambda r: r.pop("rules"),
        lambda r: r["rules"].pop("decks"),
        lambda r: r["rules"].update(decks=9),
        lambda r: r["rules"].update(decks="6"),
        lambda r: r["fairness"].update(nonce=-1),
        lambda r: r["fairness"].update(nonce=2**63),
        lambda r: r["fairness"].update(nonce=True),
        lambda r: r["fairness"].update(client_seed=""),
        lambda r: r["fairness"].update(server_seed="zz"),
        lambda r: r["bets"].update(ante=0),
        lambda r: r.update(decision={"action": "split"}),
    ],
)
def test_a_round_that_cannot_be_checked_is_invalid_input(
    breakage: Callable[[dict[str, Any]], None],
) -> None:
    doc = recalled(nonce_where(war_won), decision="war")
    breakage(doc)
    assert run(doc)[0] == 2


def test_not_json_or_not_a_round_is_invalid_input(tmp_path: Path) -> None:
    assert CliRunner().invoke(casino_cli, ["verify", "--round", "-"], input="{").exit_code == 2
    assert CliRunner().invoke(casino_cli, ["verify", "--round", "-"], input="[]").exit_code == 2
    missing = str(tmp_path / "missing.json")
    assert CliRunner().invoke(casino_cli, ["verify", "--round", missing]).exit_code == 2


def test_round_and_dealing_options_do_not_mix() -> None:
    doc = recalled(nonce_where(player_wins))
    for extra in (["--decks", "6"], ["--nonce", "1"], ["--client-seed", "c"]):
        assert run(doc, *extra)[0] == 2
