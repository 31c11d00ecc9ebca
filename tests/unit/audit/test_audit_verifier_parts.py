"""The standalone verifier's re-implementations agree with the casino's own code: the deal
with docs/fairness.md's vectors and the engine, the Merkle root with casino.ledger.merkle,
the hashes with casino.ledger, and the ONE payout function with the engine's round, for every
deal kind, decision and table rule (when the engine's payouts change, this test says the
verifier must follow). And the file imports nothing but the standard library."""

from __future__ import annotations

import ast
import hashlib
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from casino.audit_export import casino_audit_export as verifier
from casino.engine.casino_war import CasinoWarRound, Decision, RoundStatus, TableRules
from casino.engine.casino_war import deal_casino_war as engine_deal
from casino.ledger.chain import content_digest, link_hash
from casino.ledger.checkpoints import checkpoint_hash
from casino.ledger.merkle import merkle_root

FAIRNESS_VECTORS = [
    (bytes(range(32)), "test", 0, 6, "KS QC 2S 7S QH 7S 3D"),
    (
        bytes.fromhex("bd9b531f32628d902a9502ef11a96c3b9a5890a5634e81977e57484da8120274"),
        "rejection sampling",
        9428325,
        8,
        "9H 6C 2S 8C 2S 10D 7S",
    ),
    (
        bytes.fromhex("29b5634f9f1eb7b4692a0d06bfbc4617d2c0d8633c41e7c7bc2eda41212e8fe9"),
        "2 decks",
        7,
        2,
        "9H JD JC 7H 3H 2H 4C",
    ),
]


@pytest.mark.parametrize("vector", FAIRNESS_VECTORS, ids=["v1", "v5-rejection", "v7"])
def test_the_deal_reproduces_the_documented_vectors(vector: tuple) -> None:
    seed, client, nonce, decks, cards = vector
    assert verifier.deal(seed, client, nonce, decks) == cards.split()


def test_the_deal_is_the_engines_for_every_deck_count() -> None:
    for n in range(400):
        seed = hashlib.sha256(f"deal {n}".encode()).digest()
        decks = 1 + n % 8
        expected = [card.code for card in engine_deal(seed, f"c {n}", n * 7919, decks).cards]
        assert verifier.deal(seed, f"c {n}", n * 7919, decks) == expected


def test_the_merkle_root_is_the_ledgers() -> None:
    for size in [*range(0, 70), 127, 128, 129, 1000]:
        leaves = [
            f"{n}:{hashlib.sha256(str(n).encode()).hexdigest()}".encode() for n in range(size)
        ]
        tree = verifier.MerkleTree()
        for leaf in leaves:
            tree.add(leaf)
        assert tree.root() == merkle_root(leaves), size


def test_the_hashes_are_the_ledgers() -> None:
    moment = datetime(2026, 5, 1, 12, 30, 15, 123456, tzinfo=UTC)
    postings = [[0, "wallet:p:EUR", -300], [1, "house:EUR", 300], [2, "house:EUR", -100]]
    fields = {
        "id": 42,
        "kind": "bet",
        "currency": "EUR",
        "player_id": "p",
        "round_id": "r",
        "reference": 'caf\u00e9 "quoted"',
        "wallet_balance_after": 700,
    }
    expected = content_digest(
        tx_id=42,
        kind="bet",
        currency="EUR",
        player_id="p",
        round_id="r",
        reference='caf\u00e9 "quoted"',
        wallet_balance_after=700,
        created_at=moment,
        postings=[(leg, account, amount) for leg, account, amount in postings],
    )
    line = {**fields, "created_at": moment.isoformat(timespec="microseconds"), "postings": postings}
    assert verifier.transaction_digest(line) == expected
    assert verifier.link_hash("0" * 64, 3, expected) == link_hash("0" * 64, 3, expected)
    checkpoint = {
        "seq": 2,
        "commit_from": 10,
        "commit_to": 20,
        "tx_count": 7,
        "total_count": 12,
        "root": "ab" * 32,
        "balances": {"house:EUR": -5, "cash:EUR": 9},
        "created_at": moment.isoformat(timespec="microseconds"),
        "prev_hash": "cd" * 32,
    }
    assert verifier.checkpoint_hash(checkpoint) == checkpoint_hash(
        seq=2,
        commit_from=10,
        commit_to=20,
        tx_count=7,
        total_count=12,
        root="ab" * 32,
        balances={"house:EUR": -5, "cash:EUR": 9},
        created_at=moment,
        prev_hash="cd" * 32,
    )


@settings(max_examples=300, deadline=None)
@given(
    tx_id=st.integers(min_value=1, max_value=2**63 - 1),
    reference=st.none() | st.text(max_size=40),
    round_id=st.none() | st.uuids().map(str),
    after=st.integers(min_value=0, max_value=10**15),
    amounts=st.lists(st.integers(min_value=-(10**12), max_value=10**12).filter(bool), min_size=1),
    micros=st.integers(min_value=0, max_value=10**12),
)
def test_the_written_out_digest_is_the_ledgers_for_any_transaction(
    tx_id: int, reference: str | None, round_id: str | None, after: int, amounts: list[int],
    micros: int,
) -> None:  # fmt: skip
    """The verifier writes a transaction's canonical JSON field by field (for speed); it is
    byte for byte the ledger's, whatever the texts hold (quotes, escapes, any script)."""
    moment = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(microseconds=micros)
    postings = [[n, f'house:E\u00dcR{n}"', amount] for n, amount in enumerate(amounts)]
    line = {
        "id": tx_id,
        "kind": "bet",
        "currency": "EUR",
        "player_id": "p\u00e9",
        "round_id": round_id,
        "reference": reference,
        "wallet_balance_after": after,
        "created_at": moment.isoformat(timespec="microseconds"),
        "postings": postings,
    }
    expected = content_digest(
        tx_id=tx_id,
        kind="bet",
        currency="EUR",
        player_id="p\u00e9",
        round_id=round_id,
        reference=reference,
        wallet_balance_after=after,
        created_at=moment,
        postings=[(leg, account, amount) for leg, account, amount in postings],
    )
    assert verifier.transaction_digest(line) == expected


def test_the_written_out_digest_refuses_values_of_other_types() -> None:
    line = {
        "id": 1,
        "kind": "bet",
        "currency": "EUR",
        "player_id": "p",
        "round_id": None,
        "reference": None,
        "wallet_balance_after": 0,
        "created_at": "2026-01-01T00:00:00.000000+00:00",
        "postings": [[0, "house:EUR", 5]],
    }
    verifier.transaction_digest(line)
    for field, value in (("id", "1"), ("wallet_balance_after", 1.5), ("kind", None)):
        with pytest.raises((TypeError, ValueError)):
            verifier.transaction_digest({**line, field: value})
    for posting in ([0, "house:EUR", 5.0], [0, 7, 5], ["0", "house:EUR", 5]):
        with pytest.raises((TypeError, ValueError)):
            verifier.transaction_digest({**line, "postings": [posting]})


RULE_VARIANTS = [
    TableRules(),
    TableRules(tie_pays=11, war_tie_bonus=True),
    TableRules(decks=1, tie_pays=12, surrender_allowed=False),
]


@pytest.mark.parametrize("rules", RULE_VARIANTS, ids=["classic", "bonus", "no-surrender"])
def test_the_payouts_are_the_engines(rules: TableRules) -> None:
    """Every kind of round: won, lost, tie undecided, surrendered, war won, tied, lost."""
    seen: set[tuple[str, str | None, str]] = set()
    for n in range(6000):
        seed = hashlib.sha256(f"round {n}".encode()).digest()
        deal = engine_deal(seed, "client", n, rules.decks)
        choices: list[Decision | None] = [None]
        if deal.is_tie:
            choices += [Decision.WAR] + ([Decision.SURRENDER] if rules.surrender_allowed else [])
        for decision in choices:
            game = CasinoWarRound.start(rules, deal, 200, 100)
            if decision is not None:
                game.decide(decision)
            cards = [card.code for card in deal.cards]
            settled = verifier.settle(
                rules.to_dict(), cards, 200, 100, None if decision is None else decision.value
            )
            assert settled.illegal is None
            assert settled.status == game.status.value
            if game.status is RoundStatus.AWAITING_DECISION:
                assert settled.payouts == (0, game.tie_bet_payout, 0)
                kind = "open"
            else:
                result = game.result
                assert settled.payouts == (
                    result.payouts.ante,
                    result.payouts.tie_bet,
                    result.payouts.raise_,
                )
                assert settled.raise_amount == result.bets.raise_
                assert settled.war_shown == (result.war is not None)
                kind = result.outcome.value
            seen.add((kind, None if decision is None else decision.value, str(deal.is_tie)))
    kinds = {kind for kind, _, _ in seen}
    assert {"win", "loss", "open", "war_win", "war_loss"} <= kinds
    assert ("surrender" in kinds) == rules.surrender_allowed


def test_decisions_the_table_or_the_cards_forbid_are_flagged() -> None:
    rules = TableRules(surrender_allowed=False).to_dict()
    tie = ["5C", "5D", "2C", "3C", "4C", "9C", "9D"]
    assert verifier.settle(rules, tie, 100, 0, "surrender").illegal
    assert verifier.settle(rules, ["AC", "5D", *tie[2:]], 100, 0, "war").illegal
    assert verifier.settle(rules, tie, 100, 0, "fold").illegal


def test_rules_and_bets_the_engine_refuses_are_flagged() -> None:
    good = TableRules().to_dict()
    assert verifier.rules_problem(good) is None
    assert verifier.rules_problem({**good, "decks": 9})
    assert verifier.rules_problem({**good, "tie_pays": 13})
    assert verifier.rules_problem({**good, "war_tie_bonus": 1})
    assert verifier.rules_problem({**good, "extra": 1})
    assert verifier.bet_problem(good, 100, 0) is None
    assert verifier.bet_problem(good, 150, 0)
    assert verifier.bet_problem(good, 100, 10**9)


def test_the_verifier_imports_only_the_standard_library() -> None:
    path = Path(verifier.__file__)
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0 and node.module is not None
            names.add(node.module.split(".")[0])
    assert names - {"__future__"} <= set(sys.stdlib_module_names), names


def test_a_shared_rounds_transactions_are_named_by_their_reference() -> None:
    from casino.audit_export.casino_audit_export import is_shared_reference

    assert is_shared_reference("shared:live-1:3:42")
    for other in (None, "", "shared:live:3", "shared::1:2", "shared:t:x:1", "dep-1", 7):
        assert not is_shared_reference(other)
