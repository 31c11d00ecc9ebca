"""Launches that can be cut off, and least-privilege operator tokens (issue 19)

Revision ID: 0018
Revises: 0016

- ``game_sessions.launch_code_hash`` / ``launch_code_expires_at``: the launch URL carries a
  one-time code (only its SHA-256 is kept), exchanged once for the session's token; the hash
  is cleared by the exchange, so a second one finds nothing. ``exchanged_at``: when.
- ``game_sessions.token_hash`` becomes nullable: a session has no token until its code is
  exchanged (the token is made then, shown once, and only its hash kept).
- ``game_sessions.language``: the client's language, carried into the launch URL.
- ``operator_tokens.scope``: admin (what every token could do until now), support or auditor.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0018'
down_revision: str | None = '0017'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('game_sessions') as batch:
        batch.alter_column('token_hash', existing_type=sa.String(length=64), nullable=True)
        batch.add_column(sa.Column('launch_code_hash', sa.String(length=64), nullable=True))
        batch.add_column(
            sa.Column('launch_code_expires_at', sa.DateTime(timezone=True), nullable=True)
        )
        batch.add_column(sa.Column('exchanged_at', sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column('language', sa.String(length=8), nullable=True))
        batch.create_unique_constraint(
            op.f('uq_game_sessions_launch_code_hash'), ['launch_code_hash']
        )
    with op.batch_alter_table('operator_tokens') as batch:
        batch.add_column(
            sa.Column('scope', sa.String(length=16), nullable=False, server_default='admin')
        )


def downgrade() -> None:
    with op.batch_alter_table('operator_tokens') as batch:
        batch.drop_column('scope')
    # Sessions never exchanged have no token: nothing could use them after the downgrade.
    op.execute("DELETE FROM game_sessions WHERE token_hash IS NULL")
    with op.batch_alter_table('game_sessions') as batch:
        batch.drop_constraint(op.f('uq_game_sessions_launch_code_hash'), type_='unique')
        batch.drop_column('language')
        batch.drop_column('exchanged_at')
        batch.drop_column('launch_code_expires_at')
        batch.drop_column('launch_code_hash')
        batch.alter_column('token_hash', existing_type=sa.String(length=64), nullable=False)
