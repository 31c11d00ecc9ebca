"""Room for sealed wallet secrets: a secret of 256 characters is some 400 once sealed
(casino.store.secret_box: prefix, key id, nonce, tag, base64).

Revision ID: 0023
Revises: 0022
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None

COLUMNS = ("wallet_secret", "wallet_previous_secret")


def upgrade() -> None:
    with op.batch_alter_table("operators") as batch:
        for column in COLUMNS:
            batch.alter_column(
                column, existing_type=sa.String(256), type_=sa.String(512), existing_nullable=True
            )


def downgrade() -> None:
    with op.batch_alter_table("operators") as batch:
        for column in COLUMNS:
            batch.alter_column(
                column, existing_type=sa.String(512), type_=sa.String(256), existing_nullable=True
            )
