"""Readiness: can the database serve a bet right now?

``SELECT 1`` answers while a long migration, a ``VACUUM FULL`` or a stuck session holds a
table a bet needs (the review held ``accounts`` for 40 s: ``SELECT 1`` was fine, every bet
hung). The probe names those tables instead: planning it takes the same light lock a read
needs on each, so it waits on whatever blocks them, bounded by the session's lock timeout,
and reads no row.
"""

from __future__ import annotations

from sqlalchemy import Connection, text

#: Every table a bet or a decision reads or writes.
HOT_TABLES = (
    "players",
    "server_seeds",
    "casino_tables",
    "accounts",
    "rounds",
    "ledger_transactions",
    "postings",
    "ledger_checkpoints",
    "idempotency_records",
)
_PROBE = text(f"SELECT 1 FROM {', '.join(HOT_TABLES)} WHERE 1 = 0")


def probe(connection: Connection) -> None:
    """Raises what the database raises when it cannot (lock timeout, connection lost...)."""
    connection.execute(_PROBE).all()
