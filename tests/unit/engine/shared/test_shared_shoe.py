"""The shared shoe's properties, on many shoes of every size: every card of the decks exactly
once, the cut card in its documented range and never too deep for a round, the burn as its
face-up card says, the rounds back to back from the burn to the cut card; the chain and the
public value; and the engine on the spec's vectors."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from casino.engine.cards import STANDARD_52, Card
from casino.engine.casino_war import TableRules
from casino.engine.errors import InvalidSeed
from casino.engine.shared import (
    MAX_BURN,
    HashChain,
    PublicSource,
    PublicValue,
    SharedBet,
    SharedShoe,
    StepReason,
    StepRefused,
    burn_count,
    cut_range,
    decide_bet,
    hash_down,
    settle_bet,
    verify_seed,
)

SPEC = Path(__file__).resolve().parents[4] / "docs" / "fairness.md"
CHAIN = HashChain(hashlib.sha256(b"shoe properties").digest(), 400)


@pytest.mark.parametrize("decks", range(1, 9))
def test_every_card_of_the_decks_is_in_the_shoe_exactly_once(decks: int) -> None:
    rules = TableRules(decks=decks)
    expected = Counter({card: decks for card in STANDARD_52.cards})
    for index in range(1, 41):
        shoe = SharedShoe.deal(CHAIN.seed(index), "v", index, rules)
        assert len(shoe.order) == 52 * decks
        assert Counter(shoe.order) == expected


@pytest.mark.parametrize(
    "rules",
    [
        TableRules(decks=8),
        TableRules(decks=6, war_tie_bonus=True),
        TableRules(decks=1),
        TableRules(decks=1, war_ties="repeat", max_war_ties=8),
        TableRules(decks=2, war_ties="repeat", tie_ladder=(10, 25, 50, 200)),
    ],
    ids=lambda r: json.dumps(r.to_dict()),
)
def test_the_cut_card_burn_and_rounds_follow_the_spec(rules: TableRules) -> None:
    size = 52 * rules.decks
    most = rules.most_cards(1)
    low, high = cut_range(rules.decks, most)
    assert high <= size - most + 1
    if high == size * 17 // 20:
        assert low == -(-size * 3 // 4)  # 75 % to 85 % of the shoe
    cuts = Counter()
    for index in range(1, 301):
        shoe = SharedShoe.deal(CHAIN.seed(index), "public", index, rules)
        assert low <= shoe.cut <= high
        cuts[shoe.cut] += 1
        assert shoe.burn == burn_count(shoe.order[0]) <= MAX_BURN
        position = shoe.burn
        for number, dealt in enumerate(shoe.rounds, start=1):
            assert (dealt.number, dealt.start) == (number, position)
            assert dealt.start < shoe.cut
            assert dealt.cards == shoe.order[dealt.start : dealt.end]
            assert dealt.end <= size
            assert len(dealt.cards) <= most
            if dealt.is_tie:
                assert dealt.wars
                tied = [w.player_card.rank == w.dealer_card.rank for w in dealt.wars]
                assert not any(tied[:-1]) or rules.repeats_wars
                assert dealt.ties == 1 + sum(tied) <= rules.max_war_ties
            else:
                assert dealt.wars == () and dealt.ties == 0
            position = dealt.end
        assert position >= shoe.cut  # the round after the last would start past the cut card
    # Every place the range allows is used, none favoured much.
    assert set(cuts) == set(range(low, high + 1))


def test_burn_counts_follow_the_face_up_card() -> None:
    counts = {card.code: burn_count(card) for card in STANDARD_52.cards if card.suit.value == "S"}
    assert counts == {
        "2S": 3, "3S": 4, "4S": 5, "5S": 6, "6S": 7, "7S": 8, "8S": 9, "9S": 10,
        "10S": 11, "JS": 11, "QS": 11, "KS": 11, "AS": 2,
    }  # fmt: skip


def test_the_cut_range_at_each_size() -> None:
    assert cut_range(8, 7) == (312, 353)
    assert cut_range(6, 7) == (234, 265)
    assert cut_range(1, 7) == (39, 44)
    assert cut_range(1, 37) == (16, 16)  # repeat, eight ties: a round may need 37 cards


def test_a_shoe_depends_on_its_seed_its_public_value_and_its_index() -> None:
    rules = TableRules(decks=8)
    base = SharedShoe.deal(CHAIN.seed(7), "value", 7, rules)
    assert SharedShoe.deal(CHAIN.seed(7), "value", 7, rules).order == base.order
    for other in (
        SharedShoe.deal(CHAIN.seed(8), "value", 7, rules),
        SharedShoe.deal(CHAIN.seed(7), "value ", 7, rules),
        SharedShoe.deal(CHAIN.seed(7), "value", 8, rules),
    ):
        assert other.order != base.order


def test_a_shoes_rounds_are_numbered_and_refused_past_the_last() -> None:
    shoe = SharedShoe.deal(CHAIN.seed(1), "v", 1, TableRules(decks=1))
    assert shoe.round(1) is shoe.rounds[0]
    assert not shoe.has_round(len(shoe.rounds) + 1)
    with pytest.raises(StepRefused) as refused:
        shoe.round(len(shoe.rounds) + 1)
    assert refused.value.reason is StepReason.NO_SUCH_ROUND
    assert refused.value.code == "illegal_action"  # never a player's error


def test_what_a_shoe_shows_at_its_start_keeps_its_seed_and_order_secret() -> None:
    shoe = SharedShoe.deal(CHAIN.seed(2), "v", 2, TableRules(decks=8))
    shown = shoe.public()
    assert shown["commitment"] == CHAIN.seed(1).hex()
    assert set(shown) == {"shoe", "commitment", "public_value", "decks", "burn", "cut"}
    assert shoe.seed.hex() not in json.dumps(shown)
    revealed = shoe.revealed()
    assert revealed["seed"] == CHAIN.seed(2).hex()
    assert [Card.parse(code) for code in revealed["order"]] == list(shoe.order)


# --- the chain -----------------------------------------------------------------------------


def test_the_chain_hashes_down_from_its_secret() -> None:
    chain = HashChain(hashlib.sha256(b"chain").digest(), 5)
    assert chain.seed(5) == chain.secret
    assert chain.commitment == hash_down(chain.secret, 5)
    for k in range(1, 6):
        assert hashlib.sha256(chain.seed(k)).digest() == (
            chain.seed(k - 1) if k > 1 else chain.commitment
        )
        assert verify_seed(chain.seed(k), k, chain.commitment)
        assert verify_seed(chain.seed(k), k, chain.commitment.hex())
        assert not verify_seed(chain.seed(k), k - 1 or 2, chain.commitment)
    assert not verify_seed(b"\0" * 32, 1, chain.commitment)
    assert not verify_seed(b"short", 1, chain.commitment)


@pytest.mark.parametrize("index", [0, 6, -1, 1.0, True])
def test_a_chain_refuses_indexes_outside_it(index: Any) -> None:
    with pytest.raises(InvalidSeed):
        HashChain(b"\1" * 32, 5).seed(index)


def test_new_chains_are_random_and_checked() -> None:
    one, two = HashChain.new(10), HashChain.new(10)
    assert one.secret != two.secret and one.commitment != two.commitment
    with pytest.raises(InvalidSeed):
        HashChain(b"\1" * 31, 5)
    with pytest.raises(InvalidSeed):
        HashChain(b"\1" * 32, 0)


def test_public_values() -> None:
    value = PublicValue("drand", "quicknet:12345678", "ab" * 32)
    assert value.source is PublicSource.DRAND and not value.grindable
    assert PublicValue.from_dict(value.to_dict()) == value
    drawn = PublicValue.operator_drawn("offline")
    assert drawn.grindable and len(drawn.value) == 64
    for bad in ({"source": "dice", "value": "x"}, {"source": "drand", "value": ""}):
        with pytest.raises(InvalidSeed):
            PublicValue.from_dict(bad)
    with pytest.raises(InvalidSeed):
        PublicValue("bitcoin", "870000", "x" * 65)


# --- the spec's vectors, by the engine -----------------------------------------------------


def spec_vectors() -> dict[str, Any]:
    text = SPEC.read_text(encoding="utf-8")
    section = text[text.index("### 17.9 Test vectors") :]
    block = re.search(r"```json\n(.*?)\n```", section, re.DOTALL)
    assert block is not None
    return json.loads(block.group(1))


def test_the_engine_deals_the_spec_vectors() -> None:
    vectors = spec_vectors()
    chain = HashChain(bytes.fromhex(vectors["chain"]["secret"]), vectors["chain"]["length"])
    assert chain.commitment.hex() == vectors["chain"]["commitment"]
    for item in vectors["shoes"]:
        rules = TableRules.from_dict(item["rules"])
        shoe = SharedShoe.deal(
            chain.seed(item["shoe"]), vectors["public_value"], item["shoe"], rules
        )
        assert {"shown": shoe.shown.code, "cards": shoe.burn} == item["burn"]
        assert (shoe.cut, len(shoe.rounds)) == (item["cut"], item["rounds_dealt"])
        order = [card.code for card in shoe.order]
        assert order == item["order"] if "order" in item else order[:16] == item["order_prefix"]
        for expected in item["rounds"]:
            assert shoe.round(expected["round"]).to_dict() == expected
        for bet in [b for b in vectors["bets"] if b["shoe"] == item["id"]]:
            dealt = shoe.round(bet["round"])
            placed = SharedBet("v", bet["ante"], bet["tie_bet"])
            if bet["decided_by"] == "player":
                placed = decide_bet(rules, dealt, placed, bet["decision"])
            result = settle_bet(rules, dealt, placed)
            assert result.payouts.to_dict() == bet["payouts"]
            assert (result.net, result.outcome.value) == (bet["net"], bet["outcome"])
            if result.decision is not None:
                assert result.decision.action.value == bet["decision"]
                assert result.decision.decided_by.value == bet["decided_by"]
