"""``casino verify`` on rounds of several hands, repeated wars and the new bets: the spec's
vectors, honest rounds of every rule (the engine and the standalone verifier agree), and
every tampering caught."""

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
from casino.engine.casino_war import (
    DecidedBy,
    Decision,
    HandBet,
    HandDecision,
    RecordShape,
    RoundShoe,
    RoundStatus,
    TableRound,
    TableRules,
)

SPEC = Path(__file__).resolve().parents[3] / "docs" / "fairness.md"
SEED = hashlib.sha256(b"verify table rounds").digest()


def spec_vectors() -> list[dict[str, Any]]:
    text = SPEC.read_text(encoding="utf-8")
    section = text[text.index("## 16. Test vectors") :]
    block = re.search(r"```json\n(.*?)\n```", section, re.DOTALL)
    assert block is not None
    return json.loads(block.group(1))


VECTORS = spec_vectors()


def vector_seed(vector: dict[str, Any]) -> bytes:
    return hashlib.sha256(f"casino-war test vector {vector['id']}".encode()).digest()


def decisions_of(vector: dict[str, Any]) -> dict[int, HandDecision]:
    return {int(h): HandDecision.from_dict(d) for h, d in vector["decisions"].items()}


def recalled(game: TableRound, rules: TableRules, seed: bytes, client: str, nonce: int) -> dict:
    """A round as the API will recall it: the engine's record, status, rules and fairness."""
    doc = game.to_dict()
    if rules.record_shape is RecordShape.ONE_HAND:
        hand = game.hands[0]
        choice = hand.decision
        doc["decision"] = (
            None
            if choice is None
            else {"action": choice.action.value, "decided_by": choice.decided_by.value}
        )
    doc.update(
        id="5b0f6f4e-08c9-4d35-9a55-7f1e8c1f0d6e",
        status=game.status.value,
        rules=rules.to_dict(),
        fairness={
            "server_seed": seed.hex(),
            "server_seed_hash": hashlib.sha256(seed).hexdigest(),
            "client_seed": client,
            "nonce": nonce,
        },
    )
    return doc


def played(vector: dict[str, Any]) -> tuple[TableRound, TableRules]:
    rules = TableRules.from_dict(vector["rules"])
    bets = [HandBet.from_dict(bet) for bet in vector["bets"]]
    game = TableRound.deal(rules, vector_seed(vector), vector["client_seed"], vector["nonce"], bets)
    if vector["decisions"]:
        game.decide_many(decisions_of(vector))
    return game, rules


def test_the_spec_has_the_table_vectors() -> None:
    assert [v["id"] for v in VECTORS] == [f"T{k}" for k in range(1, 8)]
    assert {v["rules"].get("max_hands", 1) for v in VECTORS} >= {1, 2, 3}


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_the_engine_deals_and_pays_each_vector(vector: dict[str, Any]) -> None:
    game, _ = played(vector)
    result = game.result
    cards = [game.shoe.card(i).code for i in range(len(vector["cards"]))]
    assert cards == vector["cards"]
    assert [hand.payouts.to_dict() for hand in result.hands] == vector["payouts"]
    assert result.net == vector["net"]
    # Nothing was read past the vector's last card.
    used = 1 + len(result.hands) + sum(3 + len(war.cards) + 1 for war in result.wars)
    assert used == len(vector["cards"])


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_the_standalone_verifier_deals_and_pays_each_vector(vector: dict[str, Any]) -> None:
    """Straight from the spec, without the engine."""
    rules = verify.table_rules({"tie_pays": 10, **vector["rules"]})
    seed = vector_seed(vector)
    count = verify.cards_needed(rules, len(vector["bets"]))
    cards = verify.deal(seed, vector["client_seed"], vector["nonce"], rules["decks"], count)
    assert cards[: len(vector["cards"])] == vector["cards"]
    decisions = [vector["decisions"].get(str(i)) for i in range(len(vector["bets"]))]
    expected, wrong = verify.play_table(cards, rules, vector["bets"], decisions)
    assert wrong == []
    assert [hand["payouts"] for hand in expected["hands"]] == vector["payouts"]
    assert expected["net"] == vector["net"] and expected["status"] == "settled"


@pytest.mark.parametrize("vector", VECTORS, ids=[v["id"] for v in VECTORS])
def test_each_vector_round_verifies(vector: dict[str, Any]) -> None:
    game, rules = played(vector)
    doc = recalled(game, rules, vector_seed(vector), vector["client_seed"], vector["nonce"])
    report = verify.check_round(doc)
    assert report["match"], [c for c in report["checks"] if not c["ok"]]
    # The one-hand shape shows its seven cards; the vectors list the cards the round used.
    assert report["cards"][: len(vector["cards"])] == vector["cards"]


RULE_SETS = [
    TableRules(max_hands=3),
    TableRules(decks=1, max_hands=5, war_tie_bonus=True, tie_only=True),
    TableRules(decks=8, war_ties="repeat", tie_ladder=(10, 25, 50, 200), decision_seconds=15),
    TableRules(decks=2, max_hands=4, war_ties="repeat", max_war_ties=3, max_war_tie_bet=1_000),
    TableRules(max_war_tie_bet=500, war_tie_pays=12, surrender_allowed=False),
]


def random_round(rules: TableRules, nonce: int, rng: random.Random) -> TableRound:
    bets = []
    for _ in range(rng.randint(1, rules.max_hands)):
        if rules.tie_only and rng.random() < 0.3:
            bets.append(HandBet(0, 100))
        else:
            bets.append(HandBet(rng.choice([100, 300]), rng.choice([0, 100])))
    game = TableRound.deal(rules, SEED, "v", nonce, bets)
    while game.status is RoundStatus.AWAITING_DECISION and rng.random() < 0.9:
        choices: dict[int, Any] = {}
        for hand in rng.sample(game.awaiting, rng.randint(1, len(game.awaiting))):
            if rules.decision_seconds and rng.random() < 0.3:
                choices[hand] = HandDecision(Decision.SURRENDER, DecidedBy.TIMEOUT)
            elif rules.surrender_allowed and rng.random() < 0.3:
                choices[hand] = HandDecision(Decision.SURRENDER, DecidedBy.SYSTEM)
            else:
                placed = 100 if rules.war_tie_bet_offered and rng.random() < 0.5 else 0
                choices[hand] = HandDecision(Decision.WAR, war_tie_bet=placed)
        game.decide_many(choices)
    return game


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: json.dumps(r.to_dict()))
def test_honest_rounds_of_every_rule_match(rules: TableRules) -> None:
    rng = random.Random(json.dumps(rules.to_dict()))
    wars = 0
    for nonce in range(600):
        game = random_round(rules, nonce, rng)
        wars += len(game.wars)
        report = verify.check_round(recalled(game, rules, SEED, "v", nonce))
        assert report["match"], (nonce, [c for c in report["checks"] if not c["ok"]])
    assert wars >= 10


def war_round() -> dict[str, Any]:
    """A settled round of three hands at a repeat table with a war, a war tie bet and a tie
    bet on every hand."""
    rules = RULE_SETS[3]
    for nonce in range(10_000):
        game = TableRound.deal(rules, SEED, "w", nonce, [HandBet(200, 100)] * 3)
        if len(game.awaiting) == 1:
            (tied,) = game.awaiting
            game.decide(tied, "war", war_tie_bet=100)
            return recalled(game, rules, SEED, "w", nonce)
    raise AssertionError("no round with one tie")


def _hand(doc: dict[str, Any]) -> dict[str, Any]:
    return next(hand for hand in doc["hands"] if hand["decision"] is not None)


def _other(code: str) -> str:
    return "2C" if code != "2C" else "3C"


TAMPERINGS: dict[str, Callable[[dict[str, Any]], None]] = {
    "dealer card": lambda d: d.update(dealer_card=_other(d["dealer_card"])),
    "a hand's card": lambda d: d["hands"][0].update(card=_other(d["hands"][0]["card"])),
    "war card": lambda d: d["wars"][0]["cards"][0].update(card=_other("x")),
    "burn": lambda d: d["wars"][0]["burns"].__setitem__(1, _other(d["wars"][0]["burns"][1])),
    "war dealer card": lambda d: d["wars"][0].update(dealer_card=_other("x")),
    "a war hidden": lambda d: d.update(wars=[]),
    "payout": lambda d: d["hands"][1]["payouts"].update(ante=d["hands"][1]["payouts"]["ante"] + 2),
    "war tie bet payout": lambda d: _hand(d)["payouts"].update(war_tie_bet=5_000),
    "raise": lambda d: _hand(d)["bets"].update({"raise": 0}),
    "label": lambda d: d["hands"][2]["outcomes"].update(tie_bet="push"),
    "outcome": lambda d: d["hands"][0].update(outcome="tie"),
    "ties": lambda d: _hand(d).update(ties=_hand(d)["ties"] + 1),
    "hand net": lambda d: d["hands"][0].update(net=d["hands"][0]["net"] + 1),
    "round net": lambda d: d.update(net=d["net"] - 1),
    "totals": lambda d: d["payouts"].update(tie_bet=d["payouts"]["tie_bet"] + 100),
    "status": lambda d: d.update(status="awaiting_decision"),
    "dealing": lambda d: d.update(dealing="classic"),
    "decision on a hand that did not tie": lambda d: next(
        h for h in d["hands"] if h["decision"] is None
    ).update(decision={"action": "war", "decided_by": "player"}),
    "a surrender said to be war": lambda d: _hand(d).update(
        decision={"action": "surrender", "decided_by": "player"}
    ),
    "a timeout without a clock": lambda d: _hand(d)["decision"].update(decided_by="timeout"),
    "a war tie bet above the maximum": lambda d: _hand(d)["bets"].update(war_tie_bet=2_000),
    "rules": lambda d: d["rules"].update(decks=6),
    "nonce": lambda d: d["fairness"].update(nonce=d["fairness"]["nonce"] + 1),
}


@pytest.mark.parametrize("how", TAMPERINGS)
def test_a_tampered_round_of_several_hands_fails(how: str) -> None:
    honest = war_round()
    assert verify.check_round(honest)["match"]
    doc = copy.deepcopy(honest)
    TAMPERINGS[how](doc)
    assert doc != honest
    outcome = CliRunner().invoke(casino_cli, ["verify", "--round", "-"], input=json.dumps(doc))
    assert outcome.exit_code == 1, (how, outcome.output)
    assert "MISMATCH" in outcome.output


@pytest.mark.parametrize(
    "breakage",
    [
        lambda d: d.update(hands={}),
        lambda d: d.update(hands=d["hands"] * 2),  # 6 hands at a 4-hand table
        lambda d: d["hands"][0]["bets"].update(ante=0),  # no tie-only bets here
        lambda d: _hand(d)["decision"].update(action="split"),
        lambda d: d["rules"].update(war_ties="sometimes"),
        lambda d: d["rules"].update(max_war_ties=12),
    ],
)
def test_a_round_of_several_hands_that_cannot_be_checked_is_invalid_input(
    breakage: Callable[[dict[str, Any]], None],
) -> None:
    doc = war_round()
    breakage(doc)
    outcome = CliRunner().invoke(casino_cli, ["verify", "--round", "-"], input=json.dumps(doc))
    assert outcome.exit_code == 2, outcome.output


def test_a_one_hand_record_of_a_table_that_records_hands_is_a_mismatch() -> None:
    rules = TableRules(war_ties="repeat")
    nonce = next(
        n
        for n in range(100)
        if TableRound.deal(rules, SEED, "s", n, [HandBet(100)]).status is RoundStatus.SETTLED
    )
    one_hand = TableRound.deal(TableRules(), SEED, "s", nonce, [HandBet(100)])
    doc = recalled(one_hand, TableRules(), SEED, "s", nonce)
    assert verify.check_round(doc)["match"]
    doc["rules"] = rules.to_dict()
    report = verify.check_round(doc)
    assert not report["match"] and [c["name"] for c in report["checks"] if not c["ok"]] == ["shape"]


def test_one_hand_rounds_with_a_clock_or_a_tie_bet_alone() -> None:
    clock = TableRules(decision_seconds=10)
    nonce = next(
        n for n in range(500) if TableRound.deal(clock, SEED, "c", n, [HandBet(100)]).awaiting
    )
    game = TableRound.deal(clock, SEED, "c", nonce, [HandBet(100, 100)])
    game.time_out()
    doc = recalled(game, clock, SEED, "c", nonce)
    assert doc["decision"] == {"action": "surrender", "decided_by": "timeout"}
    assert verify.check_round(doc)["match"]
    doc["rules"] = TableRules().to_dict()  # no clock at this table
    assert not verify.check_round(doc)["match"]
    tie_only = TableRules(tie_only=True)
    alone = TableRound.deal(tie_only, SEED, "c", nonce, [HandBet(0, 100)])
    doc = recalled(alone, tie_only, SEED, "c", nonce)
    assert doc["bets"]["ante"] == 0 and doc["status"] == "settled"
    assert verify.check_round(doc)["match"]
    doc["decision"] = {"action": "war", "decided_by": "player"}  # nothing to decide
    assert not verify.check_round(doc)["match"]


def test_the_deal_of_a_table_of_several_hands_without_a_round() -> None:
    vector = VECTORS[1]  # T2: three hands, then a war
    args = [
        "verify",
        f"--server-seed={vector_seed(vector).hex()}",
        f"--client-seed={vector['client_seed']}",
        f"--nonce={vector['nonce']}",
        "--decks=6",
        "--hands=3",
        "--json",
    ]
    outcome = CliRunner().invoke(casino_cli, args)
    assert outcome.exit_code == 0, outcome.output
    report = json.loads(outcome.output)
    shoe = RoundShoe(vector_seed(vector), vector["client_seed"], vector["nonce"], 6)
    assert report["cards"] == [shoe.card(i).code for i in range(len(report["cards"]))]
    assert list(report["dealt"])[:4] == ["dealer", "hand 0", "hand 1", "hand 2"]
    assert list(report["dealt"])[-1] == "war card 4" and len(report["cards"]) == 4 + 3 + 3 + 1
    # Hand 1 won and hand 2 surrendered: hand 0's war card is the first, the dealer's the next.
    assert report["cards"][7:9] == vector["cards"][7:9]
    assert "hand 0 ties" in report["outcome"] and "hand 1 wins" in report["outcome"]
    assert CliRunner().invoke(casino_cli, [*args[:-2], "--hands=6"]).exit_code == 2
