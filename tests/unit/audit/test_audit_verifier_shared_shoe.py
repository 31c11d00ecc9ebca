"""The standalone verifier's own shared-shoe code (stdlib only) against docs/fairness.md
section 17.9's vectors and against the engine: the chain, the order, the burn, the cut card,
every round's cards, and each vector bet re-settled as the export's ``shared_rounds`` check
re-settles a bet."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from casino.audit_export import casino_audit_export as verifier
from casino.engine.casino_war import TableRules
from casino.engine.shared import SharedShoe

SPEC = Path(__file__).resolve().parents[3] / "docs" / "fairness.md"


def vectors() -> dict[str, Any]:
    text = SPEC.read_text(encoding="utf-8")
    section = text[text.index("### 17.9 Test vectors") :]
    block = re.search(r"```json\n(.*?)\n```", section, re.DOTALL)
    assert block is not None
    return dict(json.loads(block.group(1)))


VECTORS = vectors()
SHOES = {shoe["id"]: shoe for shoe in VECTORS["shoes"]}


def flat(round_: dict[str, Any]) -> list[str]:
    cards = [round_["player_card"], round_["dealer_card"]]
    for war in round_["wars"]:
        cards += [*war["burns"], war["player_card"], war["dealer_card"]]
    return cards


def dealt(shoe: dict[str, Any]) -> tuple[list[str], int, int, list[list[str]]]:
    seed = bytes.fromhex(VECTORS["chain"]["seeds"][str(shoe["shoe"])])
    rules = {**verifier.full_rules(shoe["rules"]), "max_hands": 1}
    return verifier.shared_shoe(seed, VECTORS["public_value"], shoe["shoe"], rules)


@pytest.mark.parametrize("name", sorted(SHOES))
def test_the_verifier_deals_the_vector_shoes(name: str) -> None:
    shoe = SHOES[name]
    seed = bytes.fromhex(VECTORS["chain"]["seeds"][str(shoe["shoe"])])
    commitment = VECTORS["chain"]["commitment"]
    assert verifier.seed_reaches(seed, shoe["shoe"], commitment)
    assert not verifier.seed_reaches(seed, shoe["shoe"] + 1, commitment)
    order, burn, cut, rounds = dealt(shoe)
    prefix = shoe.get("order") or shoe["order_prefix"]
    assert order[: len(prefix)] == prefix
    assert (order[0], burn, cut) == (shoe["burn"]["shown"], shoe["burn"]["cards"], shoe["cut"])
    assert len(rounds) == shoe["rounds_dealt"]
    for expected in shoe["rounds"]:
        assert rounds[expected["round"] - 1] == flat(expected), expected["round"]


@pytest.mark.parametrize("bet", VECTORS["bets"], ids=lambda b: f"{b['shoe']}-{b['round']}")
def test_the_verifier_settles_the_vector_bets(bet: dict[str, Any]) -> None:
    shoe = SHOES[bet["shoe"]]
    rules = {**verifier.full_rules(shoe["rules"]), "max_hands": 1}
    cards = dealt(shoe)[3][bet["round"] - 1]
    choice = (
        None
        if bet["decision"] is None
        else {"action": bet["decision"], "decided_by": bet["decided_by"], "war_tie_bet": 0}
    )
    result, wrong = verifier.play_hands(cards, rules, [(bet["ante"], bet["tie_bet"])], [choice])
    hand = result["hands"][0]
    assert wrong == []
    assert (hand["payouts"], hand["net"], hand["outcome"]) == (
        bet["payouts"],
        bet["net"],
        bet["outcome"],
    )


@pytest.mark.parametrize(
    ("decks", "extra"),
    [(8, {}), (1, {"war_ties": "repeat", "max_war_ties": 8}), (6, {"war_tie_bonus": True})],
)
def test_the_verifier_deals_as_the_engine(decks: int, extra: dict[str, Any]) -> None:
    table = TableRules.from_dict({"decks": decks, "decision_seconds": 10, **extra})
    rules = {**verifier.full_rules(table.to_dict()), "max_hands": 1}
    for n in range(1, 6):
        seed = hashlib.sha256(f"verifier {decks} {n}".encode()).digest()
        engine = SharedShoe.deal(seed, "public", n, table).revealed()
        order, _burn, cut, rounds = verifier.shared_shoe(seed, "public", n, rules)
        assert order == engine["order"] and cut == engine["cut"]
        assert rounds == [flat(r) for r in engine["rounds"]]
