"""Won wars relabelled as the standard rule states them: the ante pushes, the raise wins

Revision ID: 0015
Revises: 0014

A war the player won or tied used to be stored as the ante paying even money and the raise
pushing (ante_payout = 2 x ante, raise_payout = ante, plus the bonus on a tied war at a bonus
table); the standard statement of the rule is the other way round (ante_payout = ante,
raise_payout = 2 x ante, the bonus still riding on the raise). Only the split between the two
bets changes: every total, net, balance, ledger posting and hash stays as it is, and the
audit's replay then matches these rounds again. Rounds already in the new form
(ante_payout = ante) are left alone, so running it twice changes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = '0015'
down_revision: str | None = '0014'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        "UPDATE rounds SET ante_payout = ante_payout - ante, raise_payout = raise_payout + ante "
        "WHERE status = 'settled' AND decision = 'war' AND ante_payout = 2 * ante"
    )


def downgrade() -> None:
    op.execute(
        "UPDATE rounds SET ante_payout = ante_payout + ante, raise_payout = raise_payout - ante "
        "WHERE status = 'settled' AND decision = 'war' AND ante_payout = ante AND raise_amount > 0"
    )
