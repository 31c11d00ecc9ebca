"""Free-play War games table.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0002'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('free_play_games',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('variant', sa.String(length=32), nullable=False),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('state', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("status IN ('in_progress', 'awaiting_decision', 'finished')", name=op.f('ck_free_play_games_status_known')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_free_play_games'))
    )
    op.create_index(op.f('ix_free_play_games_updated_at'), 'free_play_games', ['updated_at'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_free_play_games_updated_at'), table_name='free_play_games')
    op.drop_table('free_play_games')
