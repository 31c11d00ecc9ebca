"""A wallet call's round id as long as the protocol allows (200)

Revision ID: 0024
Revises: 0023

A shared table's bettor plays round ``shared:<table>:<shoe>:<round>:<player>`` at the
operator's wallet (casino.service.shared.money.wallet_round), longer than a private
round's UUID; 36 characters refused every seamless bet at a shared table on PostgreSQL.
Downgrading fails while such a call is stored.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("wallet_calls") as batch:
        batch.alter_column(
            "round_id", existing_type=sa.String(length=36), type_=sa.String(length=200)
        )


def downgrade() -> None:
    with op.batch_alter_table("wallet_calls") as batch:
        batch.alter_column(
            "round_id", existing_type=sa.String(length=200), type_=sa.String(length=36)
        )
