"""Checkpoints are append-only: the database refuses to update or delete a signed checkpoint

Revision ID: 0017
Revises: 0016

A checkpoint, once signed, is never changed: the sealer only inserts. Until now nothing but
the signature stopped a writer from deleting checkpoints from some number on and having the
sealer sign the history after it again (docs/audit.md, "Threat model"). Triggers now refuse
every UPDATE and DELETE of a ``ledger_checkpoints`` row, and on PostgreSQL a TRUNCATE:

- PostgreSQL: one function, raised from a row trigger (UPDATE, DELETE) and a statement
  trigger (TRUNCATE). Only a role that may disable triggers (the table's owner, a
  superuser: ``ALTER TABLE ... DISABLE TRIGGER``, ``session_replication_role = replica``)
  gets past it, so the app's role must not own the tables (docs/deployment.md).
- SQLite: ``RAISE(ABORT)`` triggers for UPDATE and DELETE (SQLite has no TRUNCATE; a
  ``DELETE`` without ``WHERE`` fires them too while triggers exist). A later migration that
  rebuilds the table in batch mode must create them again.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = '0017'
down_revision: str | None = '0016'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MESSAGE = 'ledger_checkpoints is append-only: a signed checkpoint is never changed or removed'

POSTGRES_UP = (
    f"""
CREATE FUNCTION ledger_checkpoints_append_only() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
    RAISE EXCEPTION '{MESSAGE} (% refused)', TG_OP USING ERRCODE = 'restrict_violation';
END
$fn$
""",
    """
CREATE TRIGGER ledger_checkpoints_append_only
BEFORE UPDATE OR DELETE ON ledger_checkpoints
FOR EACH ROW EXECUTE FUNCTION ledger_checkpoints_append_only()
""",
    """
CREATE TRIGGER ledger_checkpoints_no_truncate
BEFORE TRUNCATE ON ledger_checkpoints
FOR EACH STATEMENT EXECUTE FUNCTION ledger_checkpoints_append_only()
""",
)
POSTGRES_DOWN = (
    'DROP TRIGGER IF EXISTS ledger_checkpoints_no_truncate ON ledger_checkpoints',
    'DROP TRIGGER IF EXISTS ledger_checkpoints_append_only ON ledger_checkpoints',
    'DROP FUNCTION IF EXISTS ledger_checkpoints_append_only()',
)
SQLITE_UP = tuple(
    f"""
CREATE TRIGGER ledger_checkpoints_no_{operation.lower()}
BEFORE {operation} ON ledger_checkpoints
BEGIN
    SELECT RAISE(ABORT, '{MESSAGE} ({operation} refused)');
END
"""
    for operation in ('UPDATE', 'DELETE')
)
SQLITE_DOWN = (
    'DROP TRIGGER IF EXISTS ledger_checkpoints_no_update',
    'DROP TRIGGER IF EXISTS ledger_checkpoints_no_delete',
)


def upgrade() -> None:
    postgres = op.get_bind().dialect.name == 'postgresql'
    for statement in POSTGRES_UP if postgres else SQLITE_UP:
        op.execute(statement)


def downgrade() -> None:
    postgres = op.get_bind().dialect.name == 'postgresql'
    for statement in POSTGRES_DOWN if postgres else SQLITE_DOWN:
        op.execute(statement)
