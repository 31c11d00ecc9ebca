"""Operators are tenants (issue 20)

Revision ID: 0019
Revises: 0018

- ``operators``: one row per tenant (docs/operators.md): name, currencies (NULL: the
  deployment's configured ones), wallet mode and the seamless wallet's settings. The
  operator ``default`` (transfer mode, the configured currencies) is created here and holds
  everything that exists, so every existing call, token and export keeps working.
- ``operator_id`` on every tenant-owned table that reads filter directly: players, operator
  tokens, tables, game sessions, accounts, ledger transactions and rounds. Filled with
  ``default`` (on PostgreSQL ``ADD COLUMN ... DEFAULT`` does not rewrite the table), which
  stays the default: a row written without its operator by a tool that predates operators is
  ``default``'s; the service always names the operator. A token names no operator only as a
  platform token, which says so (``operator_tokens.platform``); its column has no default.
- ``external_ref`` is unique per operator; a table's id is unique per operator (the primary
  key of ``casino_tables`` is (operator_id, id), and a game session's table is its
  operator's own).
- ``game_sessions.operator_session``: the operator's own session token given at launch
  (``POST /api/v1/sessions``), which a seamless wallet's calls carry back.
- ``ledger_checkpoints``: one chain per operator (key (operator_id, seq), ``commit_to``
  unique per operator); the checkpoints there are are ``default``'s chain, unchanged.
  ``ix_ledger_transactions_commit_seq`` becomes ``(operator_id, commit_seq)``: the sealer
  and the export read one operator's transactions in commit order.
- ``ix_rounds_created_at`` becomes ``ix_rounds_operator_id_created_at`` (an operator's rounds
  by time; the same number of indexes on the bet's path).
- PostgreSQL: ``casino_commit`` writes each ledger transaction's operator.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = '0019'
down_revision: str | None = '0018'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DEFAULT = 'default'
_TX_INSERT = """    INSERT INTO ledger_transactions (id, kind, currency, player_id, wallet_id, round_id,
            reference, wallet_balance_after, created_at, wallet_seq, prev_hash, hash,
            commit_seq)
        SELECT t.id, t.kind, t.currency, t.player_id, t.wallet_id, t.round_id, t.reference,
            t.wallet_balance_after, t.created_at, t.wallet_seq, t.prev_hash, t.hash,
            (pg_current_xact_id()::text)::bigint"""
_TX_INSERT_WITH_OPERATOR = """    INSERT INTO ledger_transactions (id, operator_id, kind, currency, player_id, wallet_id,
            round_id, reference, wallet_balance_after, created_at, wallet_seq, prev_hash, hash,
            commit_seq)
        SELECT t.id, t.operator_id, t.kind, t.currency, t.player_id, t.wallet_id, t.round_id,
            t.reference, t.wallet_balance_after, t.created_at, t.wallet_seq, t.prev_hash,
            t.hash, (pg_current_xact_id()::text)::bigint"""


def _postgres() -> bool:
    return op.get_bind().dialect.name == 'postgresql'


def _sqlite() -> bool:
    return op.get_bind().dialect.name == 'sqlite'


def _sibling(name: str) -> Any:
    path = Path(__file__).with_name(name)
    spec = importlib.util.spec_from_file_location(f'_casino_migration_{path.stem}', path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def casino_commit() -> str:
    """0012's function, writing each transaction's operator as well."""
    before = _sibling('0012_player_protection.py').CASINO_COMMIT
    assert _TX_INSERT in before
    return before.replace(_TX_INSERT, _TX_INSERT_WITH_OPERATOR)


def _operator_column(*, nullable: bool = False) -> sa.Column[Any]:
    """``operator_id``: ``default`` for the rows there are and for rows written without one."""
    return sa.Column(
        'operator_id', sa.String(length=64), nullable=nullable, server_default=sa.text(f"'{DEFAULT}'")
    )


def _add_operator(table: str) -> None:
    with op.batch_alter_table(table) as batch:
        batch.add_column(_operator_column())


@contextmanager
def _tokens_table() -> Iterator[Any]:
    """Alter ``operator_tokens``. SQLite rebuilds it: as AUTOINCREMENT again (0010), with its
    counter where it was, so a new token never takes a deleted one's id (its idempotency
    caller)."""
    if not _sqlite():
        with op.batch_alter_table('operator_tokens') as batch:
            yield batch
        return
    bind = op.get_bind()
    counter = bind.execute(
        sa.text("SELECT seq FROM sqlite_sequence WHERE name = 'operator_tokens'")
    ).scalar()
    with op.batch_alter_table(
        'operator_tokens', recreate='always', table_kwargs={'sqlite_autoincrement': True}
    ) as batch:
        yield batch
    if counter is not None:
        bind.execute(sa.text("DELETE FROM sqlite_sequence WHERE name = 'operator_tokens'"))
        bind.execute(
            sa.text("INSERT INTO sqlite_sequence (name, seq) VALUES ('operator_tokens', :seq)"),
            {'seq': counter},
        )


@contextmanager
def _checkpoints_unlocked() -> Iterator[None]:
    """SQLite rebuilds ``ledger_checkpoints`` to change its key, which drops 0017's triggers
    with the old table: they are made again on the new one. (PostgreSQL alters it in place;
    its triggers refuse no ALTER.)"""
    append_only = _sibling('0017_append_only_checkpoints.py')
    if _sqlite():
        for statement in append_only.SQLITE_DOWN:
            op.execute(statement)
    yield
    if _sqlite():
        for statement in append_only.SQLITE_UP:
            op.execute(statement)


def _checkpoints_per_operator() -> None:
    """One chain of checkpoints per operator: ``default``'s are the ones there are."""
    with _checkpoints_unlocked():
        _add_operator('ledger_checkpoints')
        with op.batch_alter_table('ledger_checkpoints') as batch:
            batch.drop_constraint('pk_ledger_checkpoints', type_='primary')
            batch.create_primary_key('pk_ledger_checkpoints', ['operator_id', 'seq'])
            batch.drop_constraint('uq_ledger_checkpoints_commit_to', type_='unique')
            batch.create_unique_constraint(
                op.f('uq_ledger_checkpoints_operator_id'), ['operator_id', 'commit_to']
            )


def upgrade() -> None:
    operators = op.create_table('operators',
    sa.Column('id', sa.String(length=64), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('currencies', sa.JSON(), nullable=True),
    sa.Column('wallet_mode', sa.String(length=16), nullable=False),
    sa.Column('wallet_url', sa.String(length=500), nullable=True),
    sa.Column('wallet_secret', sa.String(length=256), nullable=True),
    sa.Column('wallet_previous_secret', sa.String(length=256), nullable=True),
    sa.Column('wallet_previous_secret_until', sa.DateTime(timezone=True), nullable=True),
    sa.Column('wallet_timeout_ms', sa.Integer(), nullable=False),
    sa.Column('close_losing_round_with_zero_win', sa.Boolean(), nullable=False),
    sa.Column('active', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("wallet_mode <> 'seamless' OR (wallet_url IS NOT NULL AND wallet_secret IS NOT NULL)", name=op.f('ck_operators_seamless_has_wallet')),
    sa.CheckConstraint("wallet_mode IN ('transfer', 'seamless')", name=op.f('ck_operators_wallet_mode_known')),
    sa.CheckConstraint('wallet_timeout_ms > 0', name=op.f('ck_operators_timeout_positive')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_operators'))
    )
    now = datetime.now(UTC)
    op.bulk_insert(operators, [{
        'id': DEFAULT,
        'name': 'Default operator',
        'currencies': None,
        'wallet_mode': 'transfer',
        'wallet_url': None,
        'wallet_secret': None,
        'wallet_previous_secret': None,
        'wallet_previous_secret_until': None,
        'wallet_timeout_ms': 3000,
        'close_losing_round_with_zero_win': True,
        'active': True,
        'created_at': now,
        'updated_at': now,
    }])

    _add_operator('players')
    with op.batch_alter_table('players') as batch:
        batch.drop_constraint('uq_players_external_ref', type_='unique')
        batch.create_unique_constraint(
            op.f('uq_players_operator_id'), ['operator_id', 'external_ref']
        )
        batch.create_foreign_key(
            op.f('fk_players_operator_id_operators'), 'operators', ['operator_id'], ['id']
        )

    with _tokens_table() as batch:
        # Existing tokens are default's; a platform token says so (``platform``).
        batch.add_column(_operator_column(nullable=True))
        batch.add_column(
            sa.Column('platform', sa.Boolean(), nullable=False, server_default=sa.text('false'))
        )
        batch.create_check_constraint(
            op.f('ck_operator_tokens_platform_or_operator'), 'platform = (operator_id IS NULL)'
        )
        batch.create_index(op.f('ix_operator_tokens_operator_id'), ['operator_id'], unique=False)
        batch.create_foreign_key(
            op.f('fk_operator_tokens_operator_id_operators'), 'operators', ['operator_id'], ['id']
        )
    with _tokens_table() as batch:  # no default: the service always names one, or none
        batch.alter_column(
            'operator_id', existing_type=sa.String(length=64), server_default=None
        )

    # The session's table reference moves to the table's new key (operator_id, id).
    with op.batch_alter_table('game_sessions') as batch:
        batch.drop_constraint('fk_game_sessions_table_id_casino_tables', type_='foreignkey')
    _add_operator('game_sessions')
    _add_operator('casino_tables')
    with op.batch_alter_table('casino_tables') as batch:
        batch.drop_constraint('pk_casino_tables', type_='primary')
        batch.create_primary_key(op.f('pk_casino_tables'), ['operator_id', 'id'])
        batch.create_foreign_key(
            op.f('fk_casino_tables_operator_id_operators'), 'operators', ['operator_id'], ['id']
        )
    with op.batch_alter_table('game_sessions') as batch:
        batch.add_column(sa.Column('operator_session', sa.String(length=255), nullable=True))
        batch.create_foreign_key(
            op.f('fk_game_sessions_operator_id_operators'), 'operators', ['operator_id'], ['id']
        )
        batch.create_foreign_key(
            op.f('fk_game_sessions_operator_id_casino_tables'),
            'casino_tables',
            ['operator_id', 'table_id'],
            ['operator_id', 'id'],
        )

    # No foreign keys from these (a bet's rows): see casino.store.models.
    _add_operator('accounts')
    _add_operator('ledger_transactions')
    with op.batch_alter_table('ledger_transactions') as batch:
        batch.drop_index('ix_ledger_transactions_commit_seq')
        batch.create_index(
            'ix_ledger_transactions_operator_id_commit_seq',
            ['operator_id', 'commit_seq'],
            unique=False,
        )
    _checkpoints_per_operator()
    _add_operator('rounds')
    with op.batch_alter_table('rounds') as batch:
        batch.drop_index('ix_rounds_created_at')
        batch.create_index(
            'ix_rounds_operator_id_created_at', ['operator_id', 'created_at'], unique=False
        )
    if _postgres():
        op.execute(casino_commit())


def downgrade() -> None:
    bind = op.get_bind()
    others = bind.execute(
        sa.text("SELECT count(*) FROM operators WHERE id <> :default"), {'default': DEFAULT}
    ).scalar_one()
    if others:
        # Before operators there is one casino: other operators' rows have nowhere to go.
        raise RuntimeError(
            f"{others} operator(s) besides '{DEFAULT}' exist; remove them before downgrading"
        )
    if _postgres():
        op.execute(_sibling('0012_player_protection.py').CASINO_COMMIT)
    with op.batch_alter_table('rounds') as batch:
        batch.drop_index('ix_rounds_operator_id_created_at')
        batch.create_index('ix_rounds_created_at', ['created_at'], unique=False)
        batch.drop_column('operator_id')
    with _checkpoints_unlocked():
        with op.batch_alter_table('ledger_checkpoints') as batch:
            batch.drop_constraint(op.f('uq_ledger_checkpoints_operator_id'), type_='unique')
            batch.create_unique_constraint('uq_ledger_checkpoints_commit_to', ['commit_to'])
            batch.drop_constraint('pk_ledger_checkpoints', type_='primary')
            batch.create_primary_key('pk_ledger_checkpoints', ['seq'])
        with op.batch_alter_table('ledger_checkpoints') as batch:
            batch.drop_column('operator_id')
    with op.batch_alter_table('ledger_transactions') as batch:
        batch.drop_index('ix_ledger_transactions_operator_id_commit_seq')
        batch.create_index('ix_ledger_transactions_commit_seq', ['commit_seq'], unique=False)
        batch.drop_column('operator_id')
    with op.batch_alter_table('accounts') as batch:
        batch.drop_column('operator_id')
    with op.batch_alter_table('game_sessions') as batch:
        batch.drop_constraint('fk_game_sessions_operator_id_casino_tables', type_='foreignkey')
        batch.drop_constraint('fk_game_sessions_operator_id_operators', type_='foreignkey')
    with op.batch_alter_table('casino_tables') as batch:
        batch.drop_constraint('fk_casino_tables_operator_id_operators', type_='foreignkey')
        batch.drop_constraint('pk_casino_tables', type_='primary')
        batch.create_primary_key('pk_casino_tables', ['id'])
        batch.drop_column('operator_id')
    with op.batch_alter_table('game_sessions') as batch:
        batch.drop_column('operator_session')
        batch.drop_column('operator_id')
        batch.create_foreign_key(
            'fk_game_sessions_table_id_casino_tables', 'casino_tables', ['table_id'], ['id']
        )
    op.execute(sa.text("DELETE FROM operator_tokens WHERE platform"))
    with _tokens_table() as batch:
        batch.drop_constraint(op.f('ck_operator_tokens_platform_or_operator'), type_='check')
        batch.drop_column('platform')
        batch.drop_constraint('fk_operator_tokens_operator_id_operators', type_='foreignkey')
        batch.drop_index('ix_operator_tokens_operator_id')
        batch.drop_column('operator_id')
    with op.batch_alter_table('players') as batch:
        batch.drop_constraint('fk_players_operator_id_operators', type_='foreignkey')
        batch.drop_constraint('uq_players_operator_id', type_='unique')
        batch.create_unique_constraint('uq_players_external_ref', ['external_ref'])
        batch.drop_column('operator_id')
    op.drop_table('operators')
