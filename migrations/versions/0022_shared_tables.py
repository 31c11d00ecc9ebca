"""Shared tables (issue 22): one round for every bettor, on the table's clock

Revision ID: 0022
Revises: 0021

- ``shared_tables``: a shared table's clock, hash chain, public value, current round state
  and the dealer's lease (docs/shared-tables.md).
- ``shared_bets``: a bettor's stakes, decision and result in one round.
- ``shared_events``: every event of a table (the SSE ids), kept for resuming followers.
- ``shared_shoes``: the shoes dealt, each seed once revealed.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0022'
down_revision: str | None = '0021'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('shared_tables',
    sa.Column('operator_id', sa.String(length=64), nullable=False),
    sa.Column('table_id', sa.String(length=64), nullable=False),
    sa.Column('betting_seconds', sa.Integer(), nullable=False),
    sa.Column('pause_seconds', sa.Integer(), nullable=False),
    sa.Column('chain_secret', sa.LargeBinary(length=32), nullable=False),
    sa.Column('chain_length', sa.Integer(), nullable=False),
    sa.Column('chain_commitment', sa.String(length=64), nullable=False),
    sa.Column('public_value', sa.JSON(), nullable=False),
    sa.Column('state', sa.JSON(), nullable=True),
    sa.Column('seq', sa.BigInteger(), nullable=False),
    sa.Column('due_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('lease_holder', sa.String(length=120), nullable=True),
    sa.Column('lease_until', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('operator_id', 'table_id', name=op.f('pk_shared_tables'))
    )
    op.create_index('ix_shared_tables_due_at', 'shared_tables', ['due_at'], unique=False)
    op.create_table('shared_bets',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('operator_id', sa.String(length=64), nullable=False),
    sa.Column('table_id', sa.String(length=64), nullable=False),
    sa.Column('shoe', sa.Integer(), nullable=False),
    sa.Column('round', sa.Integer(), nullable=False),
    sa.Column('player_id', sa.String(length=36), nullable=False),
    sa.Column('wallet_id', sa.Integer(), nullable=False),
    sa.Column('currency', sa.String(length=3), nullable=False),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('ante', sa.BigInteger(), nullable=False),
    sa.Column('tie_bet', sa.BigInteger(), nullable=False),
    sa.Column('raise_amount', sa.BigInteger(), nullable=False),
    sa.Column('war_tie_bet', sa.BigInteger(), nullable=False),
    sa.Column('decision', sa.String(length=16), nullable=True),
    sa.Column('decided_by', sa.String(length=16), nullable=True),
    sa.Column('payouts', sa.JSON(), nullable=True),
    sa.Column('returned', sa.BigInteger(), nullable=True),
    sa.Column('net', sa.BigInteger(), nullable=True),
    sa.Column('transaction_ids', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('settled_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("status IN ('open', 'awaiting_decision', 'settled', 'refunded')", name=op.f('ck_shared_bets_status_known')),
    sa.CheckConstraint('ante >= 0 AND tie_bet >= 0 AND raise_amount >= 0 AND war_tie_bet >= 0', name=op.f('ck_shared_bets_stakes_not_negative')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_shared_bets')),
    sa.UniqueConstraint('operator_id', 'table_id', 'shoe', 'round', 'player_id', name=op.f('uq_shared_bets_operator_id'))
    )
    op.create_index('ix_shared_bets_round_status', 'shared_bets', ['operator_id', 'table_id', 'shoe', 'round', 'status'], unique=False)
    op.create_index(op.f('ix_shared_bets_player_id'), 'shared_bets', ['player_id'], unique=False)
    op.create_table('shared_events',
    sa.Column('operator_id', sa.String(length=64), nullable=False),
    sa.Column('table_id', sa.String(length=64), nullable=False),
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('type', sa.String(length=20), nullable=False),
    sa.Column('shoe', sa.Integer(), nullable=False),
    sa.Column('round', sa.Integer(), nullable=False),
    sa.Column('at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('data', sa.JSON(), nullable=False),
    sa.PrimaryKeyConstraint('operator_id', 'table_id', 'id', name=op.f('pk_shared_events'))
    )
    op.create_table('shared_shoes',
    sa.Column('operator_id', sa.String(length=64), nullable=False),
    sa.Column('table_id', sa.String(length=64), nullable=False),
    sa.Column('shoe', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('commitment', sa.String(length=64), nullable=False),
    sa.Column('seed', sa.String(length=64), nullable=True),
    sa.Column('rules', sa.JSON(), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('revealed_at', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('operator_id', 'table_id', 'shoe', name=op.f('pk_shared_shoes'))
    )


def downgrade() -> None:
    op.drop_table('shared_shoes')
    op.drop_table('shared_events')
    op.drop_index(op.f('ix_shared_bets_player_id'), table_name='shared_bets')
    op.drop_index('ix_shared_bets_round_status', table_name='shared_bets')
    op.drop_table('shared_bets')
    op.drop_index('ix_shared_tables_due_at', table_name='shared_tables')
    op.drop_table('shared_tables')
