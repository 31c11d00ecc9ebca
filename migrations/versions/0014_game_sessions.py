"""Game sessions: short-lived player credentials for the launch flow (issue 14).

Revision ID: 0014
Revises: 0010
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0014'
down_revision: str | None = '0010'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('game_sessions',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('player_id', sa.String(length=36), nullable=False),
    sa.Column('table_id', sa.String(length=64), nullable=True),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_game_sessions_player_id_players')),
    sa.ForeignKeyConstraint(['table_id'], ['casino_tables.id'], name=op.f('fk_game_sessions_table_id_casino_tables')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_game_sessions')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_game_sessions_token_hash'))
    )
    op.create_index(op.f('ix_game_sessions_player_id'), 'game_sessions', ['player_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_game_sessions_player_id'), table_name='game_sessions')
    op.drop_table('game_sessions')
