"""A shared shoe re-dealt by an independent implementation, written here from the words of
docs/fairness.md section 17 (and sections 1-5 it builds on), importing nothing of the project:
the seeds verify from the published chain commitment alone, and the deal (order, burn, cut
card, rounds, wars) comes out as the spec's vectors say and as the engine deals it."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import re
import struct
from pathlib import Path
from typing import Any

import pytest

SPEC = Path(__file__).resolve().parents[4] / "docs" / "fairness.md"
TEXT = SPEC.read_text(encoding="utf-8")


# --- the spec, re-implemented --------------------------------------------------------------

FACES = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


class Stream:
    """Section 1-3: HMAC-SHA256(key, "client:nonce:block") blocks, read as big-endian u32s,
    rejection sampling below n."""

    def __init__(self, key: bytes, client: str, nonce: int) -> None:
        self.key, self.prefix = key, f"{client}:{nonce}:".encode("ascii")
        self.block, self.pending = 0, []

    def u32(self) -> int:
        if not self.pending:
            mac = hmac.new(self.key, self.prefix + str(self.block).encode(), "sha256").digest()
            self.pending = list(struct.unpack(">8I", mac))
            self.block += 1
        return self.pending.pop(0)

    def below(self, n: int) -> int:
        bound = (1 << 32) - (1 << 32) % n
        while True:
            x = self.u32()
            if x < bound:
                return x % n


def chain_ok(seed: bytes, index: int, commitment: str) -> bool:
    """17.2: ``index`` SHA-256 steps from shoe ``index``'s seed reach the commitment."""
    value = seed
    for _ in range(index):
        value = hashlib.sha256(value).digest()
    return value.hex() == commitment


def face_value(card: str) -> int:
    face = card[:-1]
    if face == "A":
        return 1
    return 10 if face in ("10", "J", "Q", "K") else int(face)


def deal_shoe(
    seed: bytes, public: str, index: int, decks: int, war_ties: str, max_ties: int
) -> dict[str, Any]:
    """17.4-17.5, step by step."""
    cards = [face + suit for suit in "CDHS" for face in FACES] * decks
    total = len(cards)
    stream = Stream(seed, public, index)
    for i in range(total - 1):
        j = i + stream.below(total - i)
        cards[i], cards[j] = cards[j], cards[i]
    per_war = 3 + 2
    wars = max_ties - 1 if war_ties == "repeat" else 1
    most = 2 + per_war * wars
    high = min((17 * total) // 20, total - most + 1)
    low = (3 * total + 3) // 4
    if low > high:
        low = high
    cut = low + stream.below(high - low + 1)
    burnt = 1 + face_value(cards[0])
    rounds = []
    at = burnt
    while at < cut:
        first = at
        player, dealer = cards[at], cards[at + 1]
        at += 2
        fought = []
        if player[:-1] == dealer[:-1]:
            in_a_row = 1
            while True:
                burns, mine, theirs = cards[at : at + 3], cards[at + 3], cards[at + 4]
                at += 5
                fought.append({"burns": burns, "player_card": mine, "dealer_card": theirs})
                if mine[:-1] != theirs[:-1]:
                    break
                in_a_row += 1
                if war_ties != "repeat" or in_a_row >= max_ties:
                    break
        rounds.append(
            {
                "round": len(rounds) + 1,
                "start": first,
                "player_card": player,
                "dealer_card": dealer,
                "wars": fought,
            }
        )
    return {
        "order": cards,
        "burn": {"shown": cards[0], "cards": burnt},
        "cut": cut,
        "rounds": rounds,
    }


# --- the spec's vectors --------------------------------------------------------------------


def vectors() -> dict[str, Any]:
    section = TEXT[TEXT.index("### 17.9 Test vectors") :]
    block = re.search(r"```json\n(.*?)\n```", section, re.DOTALL)
    assert block is not None
    return json.loads(block.group(1))


VECTORS = vectors()
CHAIN = VECTORS["chain"]


def war_rules(rules: dict[str, Any]) -> tuple[str, int]:
    war_ties = rules.get("war_ties", "bonus" if rules.get("war_tie_bonus") else "push")
    return war_ties, rules.get("max_war_ties", 4)


def test_the_chain_in_the_spec_hashes_down_to_its_commitment() -> None:
    secret = hashlib.sha256(b"casino-war shared chain vector").digest()
    assert CHAIN["secret"] == secret.hex() == CHAIN["seeds"]["3"]
    seeds = {int(k): bytes.fromhex(v) for k, v in CHAIN["seeds"].items()}
    for k, seed in seeds.items():
        assert chain_ok(seed, k, CHAIN["commitment"])
        assert not chain_ok(seed, k + 1, CHAIN["commitment"])
        # One step: the previous link, the commitment of this shoe.
        previous = seeds[k - 1].hex() if k > 1 else CHAIN["commitment"]
        assert hashlib.sha256(seed).hexdigest() == previous
    assert VECTORS["public_value"] == hashlib.sha256(b"casino-war shared public value").hexdigest()


@pytest.mark.parametrize("shoe", VECTORS["shoes"], ids=lambda s: s["id"])
def test_each_vector_shoe_is_dealt_as_the_spec_says(shoe: dict[str, Any]) -> None:
    seed = bytes.fromhex(CHAIN["seeds"][str(shoe["shoe"])])
    assert chain_ok(seed, shoe["shoe"], CHAIN["commitment"])
    dealt = deal_shoe(
        seed,
        VECTORS["public_value"],
        shoe["shoe"],
        shoe["rules"]["decks"],
        *war_rules(shoe["rules"]),
    )
    assert dealt["burn"] == shoe["burn"]
    assert dealt["cut"] == shoe["cut"]
    assert len(dealt["rounds"]) == shoe["rounds_dealt"]
    if "order" in shoe:
        assert dealt["order"] == shoe["order"]
        assert dealt["rounds"] == shoe["rounds"]
    else:
        assert dealt["order"][:16] == shoe["order_prefix"]
        for expected in shoe["rounds"]:
            assert dealt["rounds"][expected["round"] - 1] == expected


def test_the_last_round_of_a_vector_finishes_past_the_cut_card() -> None:
    (s2,) = [shoe for shoe in VECTORS["shoes"] if shoe["id"] == "S2"]
    last = s2["rounds"][-1]
    used = 2 + 5 * len(last["wars"])
    assert last["start"] < s2["cut"] < last["start"] + used


def test_the_reference_code_of_the_spec_deals_the_vectors() -> None:
    """Section 17.10's Python, run on its own."""
    section = TEXT[TEXT.index("### 17.10 Reference code") :]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, Any] = {}
    exec(compile(code, str(SPEC), "exec"), namespace)
    for shoe in VECTORS["shoes"]:
        seed = bytes.fromhex(CHAIN["seeds"][str(shoe["shoe"])])
        assert namespace["reaches"](seed, shoe["shoe"], CHAIN["commitment"])
        order, burn, cut, rounds = namespace["shared_shoe"](
            seed,
            VECTORS["public_value"],
            shoe["shoe"],
            shoe["rules"]["decks"],
            *war_rules(shoe["rules"]),
        )
        mine = deal_shoe(
            seed,
            VECTORS["public_value"],
            shoe["shoe"],
            shoe["rules"]["decks"],
            *war_rules(shoe["rules"]),
        )
        assert order == mine["order"] and cut == mine["cut"]
        assert burn == mine["burn"]["cards"]
        assert rounds == [
            [r["player_card"], r["dealer_card"]]
            + [c for w in r["wars"] for c in (*w["burns"], w["player_card"], w["dealer_card"])]
            for r in mine["rounds"]
        ]


# --- against the engine, on shoes the spec does not list ------------------------------------

RULES = [
    {"decks": 8, "decision_seconds": 10},
    {"decks": 6, "war_tie_bonus": True, "decision_seconds": 10},
    {"decks": 1, "war_ties": "repeat", "max_war_ties": 8, "decision_seconds": 10},
    {"decks": 2, "war_ties": "repeat", "tie_ladder": [10, 25, 50, 200], "decision_seconds": 5},
    {"decks": 3, "war_ties": "repeat", "max_war_ties": 2, "decision_seconds": 10},
]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: json.dumps(r))
def test_the_engines_shoes_are_the_specs(rules: dict[str, Any]) -> None:
    from casino.engine.casino_war import TableRules
    from casino.engine.shared import HashChain, SharedShoe

    rng = random.Random(json.dumps(rules))
    table = TableRules.from_dict(rules)
    chain = HashChain(rng.randbytes(32), 40)
    commitment = chain.commitment.hex()
    public = rng.randbytes(32).hex()
    for index in rng.sample(range(1, 41), 8):
        seed = chain.seed(index)
        assert chain_ok(seed, index, commitment)  # from the published commitment alone
        shoe = SharedShoe.deal(seed, public, index, table)
        mine = deal_shoe(seed, public, index, rules["decks"], *war_rules(rules))
        assert [card.code for card in shoe.order] == mine["order"]
        assert (shoe.cut, {"shown": shoe.shown.code, "cards": shoe.burn}) == (
            mine["cut"],
            mine["burn"],
        )
        assert [dealt.to_dict() for dealt in shoe.rounds] == mine["rounds"]
