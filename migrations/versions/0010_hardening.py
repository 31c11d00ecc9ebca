"""Hardening (issue 10): operator token ids never reused on SQLite and tokens that expire;
free-play games owned by a game token; free-play simulation jobs.

Revision ID: 0010
Revises: 0004
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0010'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _sqlite() -> bool:
    return op.get_bind().dialect.name == 'sqlite'


def _highest_operator_id_ever_used() -> int:
    """Ids of deleted tokens live on as idempotency callers ("operator:<id>"): the counter
    must start above those too, or a new token would inherit their stored responses."""
    rows = op.get_bind().execute(sa.text(
        "SELECT caller FROM idempotency_records WHERE caller LIKE 'operator:%'"
    ))
    highest = 0
    for (caller,) in rows:
        suffix = caller.split(':', 1)[1]
        if suffix.isdigit():
            highest = max(highest, int(suffix))
    current = op.get_bind().execute(sa.text('SELECT MAX(id) FROM operator_tokens')).scalar()
    return max(highest, int(current or 0))


def upgrade() -> None:
    if _sqlite():
        floor = _highest_operator_id_ever_used()
        # AUTOINCREMENT is a property of the table's definition: rebuild it.
        with op.batch_alter_table(
            'operator_tokens', recreate='always', table_kwargs={'sqlite_autoincrement': True}
        ) as batch:
            batch.add_column(sa.Column('expires_at', sa.DateTime(timezone=True), nullable=True))
        bind = op.get_bind()
        bind.execute(sa.text("DELETE FROM sqlite_sequence WHERE name = 'operator_tokens'"))
        bind.execute(
            sa.text("INSERT INTO sqlite_sequence (name, seq) VALUES ('operator_tokens', :seq)"),
            {'seq': floor},
        )
    else:
        op.add_column(
            'operator_tokens', sa.Column('expires_at', sa.DateTime(timezone=True), nullable=True)
        )
    op.add_column('free_play_games', sa.Column('owner_hash', sa.String(length=64), nullable=True))
    op.create_table('free_play_simulations',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('client_hash', sa.String(length=64), nullable=False),
    sa.Column('request', sa.JSON(), nullable=False),
    sa.Column('result', sa.JSON(), nullable=True),
    sa.Column('error', sa.String(length=200), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("status IN ('running', 'done', 'failed')", name=op.f('ck_free_play_simulations_status_known')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_free_play_simulations'))
    )
    op.create_index(op.f('ix_free_play_simulations_created_at'), 'free_play_simulations', ['created_at'], unique=False)
    op.create_index('ix_free_play_simulations_status_created_at', 'free_play_simulations', ['status', 'created_at'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_free_play_simulations_status_created_at', table_name='free_play_simulations')
    op.drop_index(op.f('ix_free_play_simulations_created_at'), table_name='free_play_simulations')
    op.drop_table('free_play_simulations')
    with op.batch_alter_table('free_play_games') as batch:
        batch.drop_column('owner_hash')
    if _sqlite():
        with op.batch_alter_table(
            'operator_tokens', recreate='always', table_kwargs={'sqlite_autoincrement': False}
        ) as batch:
            batch.drop_column('expires_at')
    else:
        op.drop_column('operator_tokens', 'expires_at')
