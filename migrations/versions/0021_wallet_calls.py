"""Seamless wallet calls and their outbox (issue 20)

Revision ID: 0021
Revises: 0020

- ``wallet_calls``: every transaction sent to a seamless operator's wallet (``bet``, ``win``,
  ``rollback``), keyed by our ``transaction_id``; the pending wins and rollbacks are the
  outbox a round's settlement commits with, which ``casino wallet-worker`` sends until done
  (docs/integration.md §6).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0021'
down_revision: str | None = '0020'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('wallet_calls',
    sa.Column('transaction_id', sa.String(length=64), nullable=False),
    sa.Column('operator_id', sa.String(length=64), nullable=False),
    sa.Column('player_id', sa.String(length=36), nullable=False),
    sa.Column('round_id', sa.String(length=36), nullable=False),
    sa.Column('endpoint', sa.String(length=16), nullable=False),
    sa.Column('currency', sa.String(length=3), nullable=False),
    sa.Column('amount', sa.BigInteger(), nullable=False),
    sa.Column('reference_transaction_id', sa.String(length=64), nullable=True),
    sa.Column('call', sa.JSON(), nullable=False),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('wallet_status', sa.String(length=32), nullable=True),
    sa.Column('operator_transaction_id', sa.String(length=200), nullable=True),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('last_error', sa.String(length=300), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('next_attempt_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("state IN ('pending', 'ok', 'final', 'unknown', 'needs_attention')", name=op.f('ck_wallet_calls_wallet_call_state_known')),
    sa.CheckConstraint("endpoint IN ('bet', 'win', 'rollback')", name=op.f('ck_wallet_calls_wallet_call_endpoint')),
    sa.CheckConstraint('amount >= 0', name=op.f('ck_wallet_calls_wallet_call_amount')),
    sa.ForeignKeyConstraint(['operator_id'], ['operators.id'], name=op.f('fk_wallet_calls_operator_id_operators')),
    sa.PrimaryKeyConstraint('transaction_id', name=op.f('pk_wallet_calls'))
    )
    op.create_index('ix_wallet_calls_due', 'wallet_calls', ['state', 'next_attempt_at'])
    op.create_index('ix_wallet_calls_operator_created', 'wallet_calls', ['operator_id', 'created_at'])
    op.create_index('ix_wallet_calls_round', 'wallet_calls', ['round_id'])


def downgrade() -> None:
    op.drop_table('wallet_calls')
