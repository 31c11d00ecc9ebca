"""Shared tables: made with their chain of shoe seeds and public value; their rules, shoes
and how a table shows its mode."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from casino.engine.casino_war import Decision, TableRules
from casino.engine.errors import InvalidRules
from casino.engine.shared import HashChain, PublicValue, SharedRules, SharedShoe
from casino.engine.shared.rules import DEFAULT_DECISION_SECONDS, DEFAULT_DECKS
from casino.service.errors import Conflict
from casino.store.shared import SharedTableRecord
from casino.store.types import utcnow
from casino.store.uow import UnitOfWork

#: Shoes per chain: deriving a seed costs up to this many SHA-256 (some 3 ms).
CHAIN_LENGTH = 10_000


def shared_rules_input(rules: dict[str, Any]) -> dict[str, Any]:
    """A shared table's rules with its defaults: 8 decks, a 10 second decision clock that
    surrenders for whoever does not decide (surrender allowed)."""
    return {
        "decks": DEFAULT_DECKS,
        "decision_seconds": DEFAULT_DECISION_SECONDS,
        "surrender_allowed": True,
        **rules,
    }


def make_shared(
    uow: UnitOfWork,
    table_id: str,
    rules: TableRules,
    clock: dict[str, Any],
    *,
    chain: HashChain | None = None,
    public_value: PublicValue | None = None,
) -> SharedTableRecord:
    """The shared part of a new table: its clock, a new chain (its commitment published
    now) and the public value, drawn after the commitment (``operator`` source unless one
    is given: docs/fairness.md section 17 says which sources resist grinding)."""
    shared = SharedRules(rules, clock.get("betting_seconds", 15), clock.get("pause_seconds", 5))
    chain = chain or HashChain.new(CHAIN_LENGTH)
    commitment = chain.commitment.hex()
    value = public_value or PublicValue.operator_drawn(reference=f"table {table_id}")
    record = SharedTableRecord(
        operator_id=uow.shared.operator_id,
        table_id=table_id,
        betting_seconds=shared.betting_seconds,
        pause_seconds=shared.pause_seconds,
        chain_secret=chain.secret,
        chain_length=chain.length,
        chain_commitment=commitment,
        public_value=value.to_dict(),
        state=None,
        seq=0,
        due_at=None,
        lease_holder=None,
        lease_until=None,
        created_at=utcnow(),
    )
    uow.shared.add_table(record)
    return record


def shared_rules(record: SharedTableRecord, table_rules: dict[str, Any]) -> SharedRules:
    return SharedRules(
        TableRules.from_dict(table_rules), record.betting_seconds, record.pause_seconds
    )


def chain_of(record: SharedTableRecord) -> HashChain:
    return HashChain(record.chain_secret, record.chain_length)


@lru_cache(maxsize=64)
def _shoe(secret: bytes, length: int, index: int, value: str, rules: TableRules) -> SharedShoe:
    return SharedShoe.deal(HashChain(secret, length).seed(index), value, index, rules)


def shoe_of(record: SharedTableRecord, index: int, rules: TableRules) -> SharedShoe:
    """Shoe ``index`` of the table's chain (dealt once per process, then cached)."""
    return _shoe(
        record.chain_secret, record.chain_length, index, record.public_value["value"], rules
    )


def clock_view(record: SharedTableRecord, rules: dict[str, Any]) -> dict[str, Any]:
    return {
        "betting_seconds": record.betting_seconds,
        "decision_seconds": rules.get("decision_seconds"),
        "pause_seconds": record.pause_seconds,
        "chain_commitment": record.chain_commitment,
        "public_value": dict(record.public_value),
    }


def require_shared(uow: UnitOfWork, table_id: str) -> SharedTableRecord:
    record = uow.shared.get(table_id)
    if record is None:
        raise Conflict("this table does not deal shared rounds", code="table_not_shared")
    return record


def refuse_private_bet(shared: bool) -> None:
    """A private bet (POST /rounds) at a shared table (``shared``: the bet's claim says) is
    refused."""
    if shared:
        raise Conflict("this table deals shared rounds only", code="table_is_shared")


def check_shared_rules(rules: TableRules) -> None:
    """Raises InvalidRules when the rules cannot run a shared table: those of
    ``SharedRules``, and a decision clock that surrenders (a clock that went to war would
    stake a raise the bettor never placed)."""
    SharedRules(rules)
    if rules.timeout_action is not Decision.SURRENDER or not rules.surrender_allowed:
        raise InvalidRules(
            "a shared table allows surrender and its decision clock surrenders",
            rule="surrender_allowed",
        )


__all__ = ["InvalidRules", "make_shared"]
