"""Settled Casino War rounds dealt by the engine and inserted straight into ``rounds``.

Reports read only the rounds table, so tests of reports (and their statistics over 100k
rounds) make rounds this way in seconds instead of through 100k HTTP requests. Each row is
a real round: dealt by the provably fair path from a server seed, client seed and nonce, and
played by the engine; no ledger transactions are written, so the audit does not apply to
such a database.

A ``rig`` lets a test build an unfair table: it sees each nonce's deal and may refuse it, in
which case the next nonce is dealt instead (a dealer who re-deals some player wins).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import MISSING, dataclass, fields
from datetime import datetime
from typing import Any

from sqlalchemy import insert
from sqlalchemy.orm import Session

from casino.engine.casino_war import CasinoWarDeal, CasinoWarRound, Decision, TableRules
from casino.engine.casino_war import deal_casino_war as deal
from casino.store.models import SETTLED, Round
from casino.store.records import ROUND_COLUMNS, RoundRecord

Rig = Callable[[int, CasinoWarDeal], bool]


@dataclass(frozen=True)
class Seat:
    """Whose rounds: a player, its server seed row, and the table."""

    player_id: str
    seed_id: int
    server_seed: bytes
    table_id: str
    currency: str
    rules: TableRules
    client_seed: str = "synthetic"


def played(
    seat: Seat, nonce: int, ante: int, tie_bet: int, war: bool, when: datetime, *, rig: Rig | None
) -> tuple[dict[str, Any], int]:
    """One settled round's row, and the next unused nonce."""
    rules = seat.rules
    cards = deal(seat.server_seed, seat.client_seed, nonce, rules.decks)
    while rig is not None and not rig(nonce, cards):
        nonce += 1
        cards = deal(seat.server_seed, seat.client_seed, nonce, rules.decks)
    game = CasinoWarRound.start(rules, cards, ante, tie_bet)
    if cards.is_tie:
        game.decide(Decision.WAR if war or not rules.surrender_allowed else Decision.SURRENDER)
    result = game.result
    row = {
        "id": str(uuid.uuid4()),
        "player_id": seat.player_id,
        "table_id": seat.table_id,
        "currency": seat.currency,
        "rules": rules.to_dict(),
        "status": SETTLED,
        "server_seed_id": seat.seed_id,
        "client_seed": seat.client_seed,
        "nonce": nonce,
        "ante": ante,
        "tie_bet": tie_bet,
        "raise_amount": result.bets.raise_,
        "player_card": cards.player.code,
        "dealer_card": cards.dealer.code,
        "war": None if result.war is None else result.war.to_dict(),
        "decision": None if result.decision is None else result.decision.value,
        "decided_by": None if result.decision is None else "player",
        "ante_payout": result.payouts.ante,
        "tie_bet_payout": result.payouts.tie_bet,
        "raise_payout": result.payouts.raise_,
        "net": result.net,
        "balance_after": 0,
        "created_at": when,
        "settled_at": when,
    }
    return row, nonce + 1


def rounds(
    seat: Seat,
    count: int,
    *,
    bets: Sequence[tuple[int, int]],
    war: Callable[[int], bool],
    when: Callable[[int], datetime],
    first_nonce: int = 0,
    rig: Rig | None = None,
) -> Iterator[dict[str, Any]]:
    """``count`` settled rounds; round i bets ``bets[i % len(bets)]``, goes to war on a tie
    when ``war(i)`` and is settled at ``when(i)``."""
    nonce = first_nonce
    for i in range(count):
        ante, tie_bet = bets[i % len(bets)]
        row, nonce = played(seat, nonce, ante, tie_bet, war(i), when(i), rig=rig)
        yield row


def insert_rounds(session: Session, rows: Iterator[dict[str, Any]], batch: int = 5_000) -> int:
    """Insert the rows (COPY on PostgreSQL, batched executemany elsewhere); the caller
    commits."""
    if session.get_bind().dialect.name == "postgresql":
        return _copy_rounds(session, rows)
    table = Round.__table__
    inserted = 0
    chunk: list[dict[str, Any]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) >= batch:
            session.execute(insert(table), chunk)
            inserted += len(chunk)
            chunk = []
    if chunk:
        session.execute(insert(table), chunk)
        inserted += len(chunk)
    return inserted


def _copy_rounds(session: Session, rows: Iterator[dict[str, Any]]) -> int:
    """COPY is some twenty times faster than INSERTs for 100k rows."""
    # A round's own columns; the operator is the database's default (``default``).
    columns = list(ROUND_COLUMNS)
    json_columns = {"rules", "war", "hands"}
    # The columns added since the rows here were designed take their record's defaults.
    defaults = {f.name: f.default for f in fields(RoundRecord) if f.default is not MISSING}
    cursor = session.connection().connection.cursor()
    inserted = 0
    with cursor.copy(f"COPY rounds ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(
                [
                    json.dumps(value) if name in json_columns and value is not None else value
                    for name, value in ((n, row.get(n, defaults.get(n))) for n in columns)
                ]
            )
            inserted += 1
    return inserted
