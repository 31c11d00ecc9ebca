"""No grinding: every active server seed commits to its successor before its client seed exists

Revision ID: 0016
Revises: 0012

- ``server_seeds.next_seed`` / ``next_seed_hash``: the server seed the next rotation makes
  active, committed (its hash shown with the active pair) while the current pair is active,
  so before the player can choose the client seed that will go with it. Every active row gets
  one here: 32 bytes from the operating system's CSPRNG, as the service makes them. A revealed
  row keeps only the hash it committed to; rows revealed before this revision have none.
- ``server_seeds.client_seed_chosen``: the player chose the pair's client seed after the
  pair's server seed was committed. Nothing recorded that before, so it is false for every
  existing row (an unused active pair's first bet may then still bring a client seed).
- ``ck_server_seeds_next_committed``: an active row has its successor, a revealed one does not
  keep the successor's secret.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0016'
down_revision: str | None = '0012'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_CHUNK = 5_000
_NEXT_COMMITTED = (
    "(active AND next_seed IS NOT NULL AND next_seed_hash IS NOT NULL)"
    " OR (NOT active AND next_seed IS NULL)"
)
_seeds = sa.table(
    'server_seeds',
    sa.column('id', sa.Integer()),
    sa.column('active', sa.Boolean()),
    sa.column('next_seed', sa.LargeBinary()),
    sa.column('next_seed_hash', sa.String()),
    sa.column('client_seed_chosen', sa.Boolean()),
)


def _commit_successors() -> None:
    bind = op.get_bind()
    bind.execute(_seeds.update().values(client_seed_chosen=False))
    active = bind.execute(sa.select(_seeds.c.id).where(_seeds.c.active)).scalars().all()
    fill = (
        _seeds.update()
        .where(_seeds.c.id == sa.bindparam('seed_id'))
        .values(next_seed=sa.bindparam('seed'), next_seed_hash=sa.bindparam('seed_hash'))
    )
    for start in range(0, len(active), _CHUNK):
        rows = []
        for seed_id in active[start : start + _CHUNK]:
            successor = secrets.token_bytes(32)
            rows.append(
                {
                    'seed_id': seed_id,
                    'seed': successor,
                    'seed_hash': hashlib.sha256(successor).hexdigest(),
                }
            )
        bind.execute(fill, rows)


def upgrade() -> None:
    op.add_column('server_seeds', sa.Column('next_seed', sa.LargeBinary(length=32), nullable=True))
    op.add_column(
        'server_seeds', sa.Column('next_seed_hash', sa.String(length=64), nullable=True)
    )
    op.add_column('server_seeds', sa.Column('client_seed_chosen', sa.Boolean(), nullable=True))
    _commit_successors()
    with op.batch_alter_table('server_seeds') as batch:
        batch.alter_column('client_seed_chosen', existing_type=sa.Boolean(), nullable=False)
        batch.create_check_constraint(op.f('ck_server_seeds_next_committed'), _NEXT_COMMITTED)


def downgrade() -> None:
    with op.batch_alter_table('server_seeds') as batch:
        batch.drop_constraint(op.f('ck_server_seeds_next_committed'), type_='check')
        batch.drop_column('client_seed_chosen')
        batch.drop_column('next_seed_hash')
        batch.drop_column('next_seed')
