"""Rounds of several hands, repeated wars, the war tie bet, tie-only bets, the decision clock
(issue 21)

Revision ID: 0020
Revises: 0019

- ``rounds.war_tie_bet`` / ``war_tie_bet_payout``: the round's war tie bets and what they
  returned, all hands together (0 for every round before).
- ``rounds.hands``: the round in the hands shape (docs/fairness.md section 14) for a table
  whose rounds need it (several hands, repeated wars, a war tie bet); null for a round in the
  one-hand shape, which its flat columns hold as before.
- ``rounds.decision_deadline``: when the table's decision clock decides a round awaiting a
  decision; null without a clock.
- the bets check allows an ante of 0 (a tie-only hand) and checks the war tie bet.
- PostgreSQL: ``casino_commit`` writes a decision's new columns as well.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = '0020'
down_revision: str | None = '0019'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_DECISION_UPDATE = "net = u.net, balance_after = u.balance_after, settled_at = u.settled_at"
_DECISION_UPDATE_WITH_HANDS = (
    "net = u.net, balance_after = u.balance_after, settled_at = u.settled_at,\n"
    "                war_tie_bet = u.war_tie_bet, war_tie_bet_payout = u.war_tie_bet_payout,\n"
    "                hands = u.hands, decision_deadline = u.decision_deadline"
)
_OLD_BETS = 'ante > 0 AND tie_bet >= 0 AND raise_amount >= 0'
_NEW_BETS = 'ante >= 0 AND tie_bet >= 0 AND raise_amount >= 0 AND war_tie_bet >= 0'


def _sibling(name: str) -> Any:
    path = Path(__file__).with_name(name)
    spec = importlib.util.spec_from_file_location(f'_casino_migration_{path.stem}', path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _postgres() -> bool:
    return op.get_bind().dialect.name == 'postgresql'


def casino_commit(*, with_hands: bool) -> str:
    """0019's function; with the hands, a decision also writes the columns of 0020."""
    before: str = _sibling('0019_operators.py').casino_commit()
    assert _DECISION_UPDATE in before
    if not with_hands:
        return before
    return before.replace(_DECISION_UPDATE, _DECISION_UPDATE_WITH_HANDS)


def upgrade() -> None:
    with op.batch_alter_table('rounds') as batch:
        batch.add_column(
            sa.Column('war_tie_bet', sa.BigInteger(), server_default=sa.text('0'), nullable=False)
        )
        batch.add_column(
            sa.Column(
                'war_tie_bet_payout', sa.BigInteger(), server_default=sa.text('0'), nullable=False
            )
        )
        batch.add_column(sa.Column('hands', sa.JSON(), nullable=True))
        batch.add_column(sa.Column('decision_deadline', sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table('rounds') as batch:
        batch.drop_constraint(op.f('ck_rounds_bets_positive'), type_='check')
        batch.create_check_constraint(op.f('ck_rounds_bets_positive'), _NEW_BETS)
        batch.create_index(
            'ix_rounds_decision_deadline',
            ['decision_deadline'],
            unique=False,
            sqlite_where=sa.text("status = 'awaiting_decision'"),
            postgresql_where=sa.text("status = 'awaiting_decision'"),
        )
    if _postgres():
        op.execute(casino_commit(with_hands=True))


def downgrade() -> None:
    if _postgres():
        op.execute(casino_commit(with_hands=False))
    with op.batch_alter_table('rounds') as batch:
        batch.drop_index(
            'ix_rounds_decision_deadline',
            sqlite_where=sa.text("status = 'awaiting_decision'"),
            postgresql_where=sa.text("status = 'awaiting_decision'"),
        )
        batch.drop_constraint(op.f('ck_rounds_bets_positive'), type_='check')
        batch.create_check_constraint(op.f('ck_rounds_bets_positive'), _OLD_BETS)
    with op.batch_alter_table('rounds') as batch:
        batch.drop_column('decision_deadline')
        batch.drop_column('hands')
        batch.drop_column('war_tie_bet_payout')
        batch.drop_column('war_tie_bet')
