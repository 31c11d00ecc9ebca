"""What a shared table publishes of a shoe: the document ``casino verify --shoe`` checks.

While the shoe is dealt, its ``public()`` part: index, commitment (SHA-256 of its seed, the
chain's previous link), public value, decks, the burn's face-up card and count, the cut
card. Once the cut card has come out and the last round is settled, everything: the seed,
the order, the burnt cards and every round with its wars (burns included), so that anyone can
re-deal the shoe. A bettor's own results may ride along (``bets``: a hand in the hands shape
of docs/fairness.md section 14 with its ``round``), and are re-settled by the verifier.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from casino.engine.casino_war import HandResult
from casino.engine.shared.chain import HashChain
from casino.engine.shared.public_value import PublicValue
from casino.engine.shared.rules import SharedRules
from casino.engine.shared.shoe import SharedShoe


def chain_record(
    chain: HashChain, public_value: PublicValue | None, *, revealed: bool = False
) -> dict[str, Any]:
    """A table's chain as published: its commitment and length, with the public value once
    it is fixed (announce its source and reference with the commitment, its value once out),
    and the secret only when the chain is retired (docs/fairness.md section 17.3)."""
    return {
        "commitment": chain.commitment.hex(),
        "length": chain.length,
        "public_value": None if public_value is None else public_value.to_dict(),
        "secret": chain.secret.hex() if revealed else None,
    }


def shoe_record(
    shoe: SharedShoe,
    rules: SharedRules,
    chain_commitment: bytes,
    public_value: PublicValue,
    *,
    revealed: bool,
    chain_length: int | None = None,
) -> dict[str, Any]:
    """The shoe as published: ``revealed`` once it is over (never before: the seed gives away
    every card still in the shoe)."""
    if public_value.value != shoe.public_value:
        raise ValueError("the shoe was dealt with another public value")
    record: dict[str, Any] = {
        "shoe": shoe.index,
        "chain": {"commitment": chain_commitment.hex(), "length": chain_length},
        "public_value": public_value.to_dict(),
        "rules": rules.table.to_dict(),
        **{key: value for key, value in shoe.public().items() if key != "public_value"},
        "seed": None,
    }
    if revealed:
        full = shoe.revealed()
        record.update(
            seed=full["seed"], order=full["order"], burnt=full["burnt"], rounds=full["rounds"]
        )
    return record


def bettor_results(results: Iterable[tuple[int, HandResult]]) -> list[dict[str, Any]]:
    """A bettor's results as a shoe record carries them: (round number, result) pairs."""
    return [{"round": number, **result.to_dict()} for number, result in results]


def with_bets(record: Mapping[str, Any], bets: list[dict[str, Any]]) -> dict[str, Any]:
    return {**record, "bets": bets}
