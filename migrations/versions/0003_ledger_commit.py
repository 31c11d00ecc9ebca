"""ledger_commit: a bet's row inserts and its ledger append in one statement (PostgreSQL).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The last statement of a bet or a decision before its COMMIT (casino.service.uow): the new
# round and the idempotency record, given as JSON rows, then ledger_append. Each statement
# costs the server a bind and an execution and the client a trip through its driver; three
# became one. ``json`` rather than ``jsonb``, so a JSON column keeps the exact text sent (an
# idempotency record replays byte for byte). The rows go in before the append, which locks
# the chain head: the hot rows wait for nothing else.
LEDGER_COMMIT = """
CREATE OR REPLACE FUNCTION ledger_commit(rows_json json, txs jsonb, legs jsonb, shared jsonb)
RETURNS TABLE (tx_id bigint, tx_seq bigint, tx_hash varchar)
LANGUAGE plpgsql AS $fn$
BEGIN
    INSERT INTO rounds
        SELECT * FROM json_populate_recordset(NULL::rounds, rows_json->'rounds');
    INSERT INTO idempotency_records
        SELECT * FROM json_populate_recordset(NULL::idempotency_records,
                                              rows_json->'idempotency_records');
    RETURN QUERY SELECT * FROM ledger_append(txs, legs, shared);
END
$fn$
"""


def upgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        op.execute(LEDGER_COMMIT)


def downgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        op.execute('DROP FUNCTION IF EXISTS ledger_commit(json, jsonb, jsonb, jsonb)')
