"""``casino verify --shoe``: honest shoes of every rule set verify, with a bettor's results;
the spec's vectors verify; every tampering is caught; the seeds-only form prints the shoe;
exit statuses as documented."""

from __future__ import annotations

import copy
import hashlib
import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from casino.cli import main as casino_cli
from casino.engine import verify
from casino.engine.casino_war import TableRules
from casino.engine.shared import (
    HashChain,
    PublicValue,
    SharedBet,
    SharedRules,
    SharedShoe,
    awaits_decision,
    decide_bet,
    settle_bet,
)
from casino.engine.shared.record import bettor_results, chain_record, shoe_record, with_bets

SPEC = Path(__file__).resolve().parents[4] / "docs" / "fairness.md"
CHAIN = HashChain(hashlib.sha256(b"verify shoes").digest(), 12)
PUBLIC = PublicValue("drand", "quicknet:1000", hashlib.sha256(b"beacon").hexdigest())
RULE_SETS = [
    SharedRules(),
    SharedRules(TableRules(decks=6, war_tie_bonus=True, decision_seconds=10, tie_only=True)),
    SharedRules(
        TableRules(
            decks=8,
            war_ties="repeat",
            tie_ladder=(10, 25, 50, 200),
            decision_seconds=10,
            max_war_tie_bet=1_000,
        )
    ),
    SharedRules(TableRules(decks=1, war_ties="repeat", max_war_ties=8, decision_seconds=5)),
]


def record(rules: SharedRules, index: int, rng: random.Random | None = None) -> dict[str, Any]:
    """A revealed shoe as the service will publish it, with one bettor's results on some
    rounds, read back from JSON."""
    shoe = SharedShoe.deal(CHAIN.seed(index), PUBLIC.value, index, rules.table)
    doc = shoe_record(shoe, rules, CHAIN.commitment, PUBLIC, revealed=True, chain_length=12)
    if rng is not None:
        results = []
        for dealt in shoe.rounds:
            if not dealt.is_tie and rng.random() < 0.8:
                continue
            if rules.table.tie_only and rng.random() < 0.2:
                bet = SharedBet("me", 0, 100)
            else:
                bet = SharedBet("me", rng.choice([100, 400]), rng.choice([0, 100]))
            if awaits_decision(dealt, bet) and rng.random() < 0.8:
                action = rng.choice(["war", "war", "surrender"])
                placed = 100 if action == "war" and rules.table.war_tie_bet_offered else 0
                bet = decide_bet(rules.table, dealt, bet, action, war_tie_bet=placed)
            results.append((dealt.number, settle_bet(rules.table, dealt, bet)))
        doc = with_bets(doc, bettor_results(results))
    return json.loads(json.dumps(doc))


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: json.dumps(r.table.to_dict()))
def test_honest_shoes_of_every_rule_set_verify(rules: SharedRules) -> None:
    rng = random.Random(json.dumps(rules.to_dict()))
    bets = 0
    for index in range(1, 13):
        doc = record(rules, index, rng)
        bets += len(doc["bets"])
        report = verify.check_shoe(doc, CHAIN.commitment.hex())
        assert report["match"], [c for c in report["checks"] if not c["ok"]]
        assert report["grindable"] is False
        assert len(report["rounds"]) == len(doc["rounds"])
    assert bets > 10


def test_a_chain_is_published_without_its_secret_until_it_is_retired() -> None:
    published = chain_record(CHAIN, PUBLIC)
    assert published == {
        "commitment": CHAIN.commitment.hex(),
        "length": 12,
        "public_value": PUBLIC.to_dict(),
        "secret": None,
    }
    assert CHAIN.secret.hex() not in json.dumps(published)
    assert chain_record(CHAIN, None, revealed=True)["secret"] == CHAIN.secret.hex()


def test_a_shoe_not_revealed_yet_cannot_be_verified() -> None:
    shoe = SharedShoe.deal(CHAIN.seed(2), PUBLIC.value, 2, SharedRules().table)
    doc = shoe_record(shoe, SharedRules(), CHAIN.commitment, PUBLIC, revealed=False)
    assert doc["seed"] is None and "order" not in doc and "rounds" not in doc
    with pytest.raises(verify.InputError):
        verify.check_shoe(doc)


def spec_documents() -> list[dict[str, Any]]:
    text = SPEC.read_text(encoding="utf-8")
    section = text[text.index("### 17.9 Test vectors") :]
    block = re.search(r"```json\n(.*?)\n```", section, re.DOTALL)
    assert block is not None
    vectors = json.loads(block.group(1))
    docs = []
    for shoe in vectors["shoes"]:
        doc = {
            "shoe": shoe["shoe"],
            "chain": {"commitment": vectors["chain"]["commitment"]},
            "public_value": {"source": "operator", "value": vectors["public_value"]},
            "rules": shoe["rules"],
            "seed": vectors["chain"]["seeds"][str(shoe["shoe"])],
            "burn": shoe["burn"],
            "cut": shoe["cut"],
            "bets": [],
        }
        if "order" in shoe:
            doc.update(order=shoe["order"], rounds=shoe["rounds"])
        for bet in vectors["bets"]:
            if bet["shoe"] == shoe["id"]:
                decision = None
                if bet["decision"] is not None:
                    decision = {"action": bet["decision"], "decided_by": bet["decided_by"]}
                doc["bets"].append(
                    {
                        "round": bet["round"],
                        "bets": {"ante": bet["ante"], "tie_bet": bet["tie_bet"]},
                        "decision": decision,
                        "payouts": bet["payouts"],
                        "net": bet["net"],
                        "outcome": bet["outcome"],
                    }
                )
        docs.append(doc)
    return docs


def test_the_spec_vectors_verify_and_their_bets_pay_as_listed() -> None:
    listed = re.compile(r"bets\[round \d+\]\.(payouts\.\w+|net|outcome|decision|bets\.ante)$")
    bets = 0
    for doc in spec_documents():
        report = verify.check_shoe(doc)
        assert report["grindable"] is True  # the vectors' value is an operator's
        checks = [c for c in report["checks"] if not c["name"].startswith("bets[")]
        assert checks and all(c["ok"] for c in checks), [c for c in checks if not c["ok"]]
        # Each bet lists its stakes, decision, payouts, net and outcome: all as re-settled.
        listed_checks = [c for c in report["checks"] if listed.match(c["name"])]
        bets += len(doc["bets"])
        assert len(listed_checks) == 8 * len(doc["bets"])
        assert all(c["ok"] for c in listed_checks), [c for c in listed_checks if not c["ok"]]
    assert bets == 8


TAMPERINGS: dict[str, Callable[[dict[str, Any]], None]] = {
    "seed": lambda d: d.update(seed=CHAIN.seed(3).hex()),
    "index": lambda d: d.update(shoe=d["shoe"] + 1),
    "chain commitment": lambda d: d["chain"].update(commitment="00" * 32),
    "public value": lambda d: d["public_value"].update(value=d["public_value"]["value"][:-1] + "0"),
    "cut": lambda d: d.update(cut=d["cut"] + 1),
    "burn": lambda d: d["burn"].update(cards=d["burn"]["cards"] + 1),
    "order": lambda d: d["order"].__setitem__(slice(0, 2), d["order"][1::-1]),
    "a round's card": lambda d: d["rounds"][3].update(
        player_card="2C" if d["rounds"][3]["player_card"] != "2C" else "3C"
    ),
    "a round dropped": lambda d: d["rounds"].pop(),
    "a war": lambda d: next(r for r in d["rounds"] if r["wars"]).update(wars=[]),
    "a payout": lambda d: d["bets"][0]["payouts"].update(
        ante=d["bets"][0]["payouts"]["ante"] + 100
    ),
    "a net": lambda d: d["bets"][0].update(net=d["bets"][0]["net"] + 1),
    "a bet's round": lambda d: d["bets"][0].update(round=d["bets"][0]["round"] + 1),
}


@pytest.mark.parametrize("name", sorted(TAMPERINGS))
def test_every_tampering_is_caught(name: str) -> None:
    doc = record(RULE_SETS[0], 4, random.Random(4))
    assert verify.check_shoe(doc)["match"]
    tampered = copy.deepcopy(doc)
    TAMPERINGS[name](tampered)
    assert not verify.check_shoe(tampered)["match"]


def test_a_commitment_recorded_by_the_player_is_checked_too() -> None:
    doc = record(RULE_SETS[0], 6)
    assert verify.check_shoe(doc, CHAIN.commitment.hex())["match"]
    assert not verify.check_shoe(doc, "11" * 32)["match"]
    del doc["chain"]
    with pytest.raises(verify.InputError):
        verify.check_shoe(doc)


def test_the_verifiers_shoe_is_the_engines() -> None:
    rng = random.Random(7)
    for rules in RULE_SETS:
        table = rules.table
        for _ in range(5):
            seed, index, value = rng.randbytes(32), rng.randint(1, 10**6), rng.randbytes(8).hex()
            engine = SharedShoe.deal(seed, value, index, table)
            mine = verify.shared_shoe(
                seed, value, index, table.decks, table.war_tie_rule.value, table.max_war_ties
            )
            assert mine["order"] == [card.code for card in engine.order]
            assert mine["cut"] == engine.cut and mine["burn"]["cards"] == engine.burn
            assert mine["rounds"] == [dealt.to_dict() for dealt in engine.rounds]


# --- the command line ----------------------------------------------------------------------


def test_casino_verify_shoe_file(tmp_path: Path) -> None:
    path = tmp_path / "shoe.json"
    doc = record(RULE_SETS[2], 9, random.Random(9))
    path.write_text(json.dumps(doc))
    runner = CliRunner()
    ok = runner.invoke(casino_cli, ["verify", "--shoe", str(path)])
    assert ok.exit_code == 0, ok.output
    assert "the shoe matches its seeds" in ok.output
    as_json = runner.invoke(casino_cli, ["verify", "--shoe", str(path), "--json"])
    assert json.loads(as_json.output)["match"] is True
    doc["cut"] += 1
    path.write_text(json.dumps(doc))
    bad = runner.invoke(casino_cli, ["verify", "--shoe", str(path)])
    assert bad.exit_code == 1 and "MISMATCH  cut" in bad.output
    clash = runner.invoke(casino_cli, ["verify", "--shoe", str(path), "--decks", "8"])
    assert clash.exit_code == 2


def test_casino_verify_shoe_from_its_seeds() -> None:
    runner = CliRunner()
    args = [
        "verify",
        "--shoe-seed", CHAIN.seed(2).hex(),
        "--shoe-index", "2",
        "--public-value", PUBLIC.value,
        "--decks", "8",
        "--hash", CHAIN.commitment.hex(),
    ]  # fmt: skip
    ok = runner.invoke(casino_cli, args)
    assert ok.exit_code == 0, ok.output
    shoe = SharedShoe.deal(CHAIN.seed(2), PUBLIC.value, 2, SharedRules().table)
    assert f"before card {shoe.cut}" in ok.output and "matches" in ok.output
    first = shoe.rounds[0]
    assert f"card {first.start:>3}: {first.player.code} {first.dealer.code}" in ok.output
    wrong_index = runner.invoke(casino_cli, [*args[:4], "3", *args[5:]])
    assert wrong_index.exit_code == 1
    missing = runner.invoke(casino_cli, args[:5])
    assert missing.exit_code == 2
    mixed = runner.invoke(casino_cli, [*args, "--nonce", "3"])
    assert mixed.exit_code == 2


def test_the_standalone_verifier_still_verifies_rounds() -> None:
    """Its first job, untouched: vector 1 of section 8."""
    code = verify.main(
        [
            "--server-seed=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f",
            "--client-seed=test",
            "--nonce=0",
            "--decks=6",
            "--hash=630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd",
        ]
    )
    assert code == 0
