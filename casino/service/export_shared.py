"""The export's shared-table lines (docs/audit.md, "Shared tables"): a ``shoe`` line for
each shoe a bet of the export was placed on, right before that shoe's ``shared_bet`` lines.

A shoe line carries what docs/fairness.md section 17 needs to re-deal it: the table's chain
commitment and length, the shoe's index, its commitment, its seed once revealed (None
before: the seed gives away every card still in the shoe), the public value and the rules.
A bet line carries the bet as the table recorded it; the verifier re-settles it on the
cards of its round and checks the wallet's transactions of its reference
(``shared:<table>:<shoe>:<round>``).
"""

from __future__ import annotations

from collections.abc import Container, Iterator
from typing import Any

from casino.store import export as store
from casino.store.export_shared import SharedBetExport, SharedShoeExport


def shoe_line(shoe: SharedShoeExport) -> dict[str, Any]:
    return {
        "type": "shoe",
        "table_id": shoe.table_id,
        "shoe": shoe.shoe,
        "chain": {"commitment": shoe.chain_commitment, "length": shoe.chain_length},
        "commitment": shoe.commitment,
        "seed": shoe.seed,
        "public_value": shoe.public_value,
        "rules": shoe.rules,
    }


def bet_line(bet: SharedBetExport) -> dict[str, Any]:
    return {
        "type": "shared_bet",
        "id": bet.id,
        "table_id": bet.table_id,
        "shoe": bet.shoe,
        "round": bet.round,
        "player_id": bet.player_id,
        "currency": bet.currency,
        "status": bet.status,
        "bets": {
            "ante": bet.ante,
            "tie_bet": bet.tie_bet,
            "raise": bet.raise_amount,
            "war_tie_bet": bet.war_tie_bet,
        },
        "decision": bet.decision,
        "decided_by": bet.decided_by,
        "payouts": bet.payouts,
        "returned": bet.returned,
        "net": bet.net,
        "transaction_ids": sorted(bet.transaction_ids),
    }


def shared_lines(
    reads: store.ExportStore, plan: store.Plan, exported: Container[int] | None
) -> Iterator[dict[str, Any]]:
    """The shoe and bet lines; ``exported``: the shared transactions a partial export holds
    (None for a full export: every bet)."""
    since = plan.anchor.created_at if plan.anchor is not None else plan.since
    current: tuple[str, int] | None = None
    for shoe, bet in reads.shared_bets(
        transaction_ids=exported, revealed_since=since, revealed_until=plan.until
    ):
        if (shoe.table_id, shoe.shoe) != current:
            current = (shoe.table_id, shoe.shoe)
            yield shoe_line(shoe)
        yield bet_line(bet)
