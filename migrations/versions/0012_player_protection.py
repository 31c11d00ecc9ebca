"""Player protection: account status, exclusions, limits with their usage, history, and
payment references used once

Revision ID: 0012
Revises: 0015

- ``player_protection``: a player's status, exclusion, time limits and play session;
  ``player_limits``: money limits per currency with the usage of the current period;
  ``limit_changes`` and ``account_events``: the history of every change;
  ``cash_references``: each deposit / withdrawal reference of a player once.
- Existing references are recorded, once each (the first transaction that used one).
- PostgreSQL: ``casino_commit`` also counts limit usage (refusing a movement that would
  exceed a limit, ``limit_guard``), keeps the play session of players with time limits and
  records the payment references, in the same statement as the money.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = '0012'
down_revision: str | None = '0015'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# 0004's function plus three sections, each skipped when the document has nothing for it
# (a bet of a player without limits runs none of them): limit usage after the wallets (rows
# are always locked wallet first, limits after), the session of players with time limits
# (already locked by the bet's claim; one row at a time by primary key, whatever the
# statistics say) and the payment references after the transactions.
# A usage row is refused when what the movement risks (``risk``: the stake, the raise, the
# deposit) would take the period's usage past the limit in force at ``now``, computed from
# the row as it stands; ``delta`` is what the movement really adds (a won bet reduces a
# loss). A new period starts its usage at 0.
CASINO_COMMIT = """
CREATE OR REPLACE FUNCTION casino_commit(doc json) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
    w record;
    u record;
    l record;
    s record;
BEGIN
    FOR w IN SELECT * FROM json_to_recordset(doc->'wallets') AS m(
            id integer, delta bigint, required bigint, prev_length bigint,
            chain_length bigint, chain_hash varchar) LOOP
        UPDATE accounts SET balance = balance + w.delta, chain_length = w.chain_length,
                chain_hash = w.chain_hash
            WHERE id = w.id AND kind = 'wallet' AND chain_length = w.prev_length
                AND balance >= w.required;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'casino_commit: wallet % moved meanwhile or cannot pay', w.id
                USING ERRCODE = '23514', CONSTRAINT = 'wallet_guard';
        END IF;
    END LOOP;
    IF doc->'limit_usage' IS NOT NULL THEN
    FOR l IN SELECT * FROM json_to_recordset(doc->'limit_usage') AS m(
            player_id varchar, currency varchar, kind varchar, period varchar,
            period_start timestamptz, delta bigint, risk bigint, as_of timestamptz) LOOP
        UPDATE player_limits AS p SET
                used = CASE WHEN p.period_start = l.period_start THEN p.used ELSE 0 END
                    + l.delta,
                period_start = l.period_start
            WHERE p.player_id = l.player_id AND p.currency = l.currency AND p.kind = l.kind
                AND p.period = l.period
                AND (l.risk <= 0
                    OR (CASE WHEN p.pending_at IS NOT NULL AND p.pending_at <= l.as_of
                            THEN p.pending_amount ELSE p.amount END) IS NULL
                    OR CASE WHEN p.period_start = l.period_start THEN p.used ELSE 0 END
                        + l.risk <= (CASE WHEN p.pending_at IS NOT NULL AND p.pending_at <= l.as_of
                            THEN p.pending_amount ELSE p.amount END));
        IF NOT FOUND THEN
            RAISE EXCEPTION 'casino_commit: % % limit of % reached', l.kind, l.period,
                l.player_id USING ERRCODE = '23514', CONSTRAINT = 'limit_guard';
        END IF;
    END LOOP;
    END IF;
    IF doc->'sessions' IS NOT NULL THEN
    FOR s IN SELECT * FROM json_populate_recordset(NULL::player_protection, doc->'sessions')
            LOOP
        UPDATE player_protection SET session_started_at = s.session_started_at,
                last_bet_at = s.last_bet_at, reality_check_acked_at = s.reality_check_acked_at
            WHERE player_id = s.player_id;
    END LOOP;
    END IF;
    INSERT INTO rounds
        SELECT * FROM json_populate_recordset(NULL::rounds, doc->'rounds');
    FOR u IN SELECT * FROM json_populate_recordset(NULL::rounds, doc->'round_updates') LOOP
        UPDATE rounds SET status = u.status, decision = u.decision, decided_by = u.decided_by,
                raise_amount = u.raise_amount, war = u.war, ante_payout = u.ante_payout,
                raise_payout = u.raise_payout, tie_bet_payout = u.tie_bet_payout,
                net = u.net, balance_after = u.balance_after, settled_at = u.settled_at
            WHERE id = u.id AND status = 'awaiting_decision';
        IF NOT FOUND THEN
            RAISE EXCEPTION 'casino_commit: round % does not await a decision', u.id
                USING ERRCODE = '23514', CONSTRAINT = 'round_not_open';
        END IF;
    END LOOP;
    INSERT INTO idempotency_records
        SELECT * FROM json_populate_recordset(NULL::idempotency_records,
                                              doc->'idempotency_records');
    INSERT INTO ledger_transactions (id, kind, currency, player_id, wallet_id, round_id,
            reference, wallet_balance_after, created_at, wallet_seq, prev_hash, hash,
            commit_seq)
        SELECT t.id, t.kind, t.currency, t.player_id, t.wallet_id, t.round_id, t.reference,
            t.wallet_balance_after, t.created_at, t.wallet_seq, t.prev_hash, t.hash,
            (pg_current_xact_id()::text)::bigint
        FROM json_populate_recordset(NULL::ledger_transactions, doc->'ledger_transactions')
            AS t;
    -- One index lookup per posting: a scalar subquery on the unique key.
    INSERT INTO postings (transaction_id, leg, account_id, amount)
        SELECT p.transaction_id, p.leg,
            (SELECT a.id FROM accounts AS a WHERE a.key = p.account), p.amount
        FROM json_to_recordset(doc->'postings')
            AS p(transaction_id bigint, leg integer, account varchar, amount bigint);
    IF doc->'cash_references' IS NOT NULL THEN
    INSERT INTO cash_references
        SELECT * FROM json_populate_recordset(NULL::cash_references, doc->'cash_references');
    END IF;
END
$fn$
"""


def _postgres() -> bool:
    return op.get_bind().dialect.name == 'postgresql'


def _sibling(name: str) -> Any:
    path = Path(__file__).with_name(name)
    spec = importlib.util.spec_from_file_location(f'_casino_migration_{path.stem}', path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def upgrade() -> None:
    op.create_table('player_protection',
    sa.Column('player_id', sa.String(length=36), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('status_reason', sa.String(length=500), nullable=True),
    sa.Column('exclusion_kind', sa.String(length=16), nullable=True),
    sa.Column('exclusion_started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('exclusion_ends_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('session_minutes', sa.Integer(), nullable=True),
    sa.Column('session_minutes_pending', sa.Integer(), nullable=True),
    sa.Column('session_minutes_pending_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('reality_check_minutes', sa.Integer(), nullable=True),
    sa.Column('reality_check_minutes_pending', sa.Integer(), nullable=True),
    sa.Column('reality_check_minutes_pending_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('session_started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_bet_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('reality_check_acked_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("exclusion_kind IS NULL OR exclusion_kind IN ('cool_off', 'self_exclusion')", name=op.f('ck_player_protection_exclusion_known')),
    sa.CheckConstraint("status IN ('active', 'suspended', 'closed')", name=op.f('ck_player_protection_status_known')),
    sa.CheckConstraint('(exclusion_kind IS NULL) = (exclusion_ends_at IS NULL)', name=op.f('ck_player_protection_exclusion_has_end')),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_player_protection_player_id_players')),
    sa.PrimaryKeyConstraint('player_id', name=op.f('pk_player_protection'))
    )
    op.create_table('player_limits',
    sa.Column('player_id', sa.String(length=36), nullable=False),
    sa.Column('currency', sa.String(length=3), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('period', sa.String(length=8), nullable=False),
    sa.Column('amount', sa.BigInteger(), nullable=True),
    sa.Column('pending_amount', sa.BigInteger(), nullable=True),
    sa.Column('pending_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('used', sa.BigInteger(), nullable=False),
    sa.Column('period_start', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("kind IN ('deposit', 'loss', 'wager')", name=op.f('ck_player_limits_kind_known')),
    sa.CheckConstraint("period IN ('day', 'week', 'month')", name=op.f('ck_player_limits_period_known')),
    sa.CheckConstraint('amount IS NULL OR amount > 0', name=op.f('ck_player_limits_amount_positive')),
    sa.CheckConstraint('pending_amount IS NULL OR pending_amount > 0', name=op.f('ck_player_limits_pending_amount_positive')),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_player_limits_player_id_players')),
    sa.PrimaryKeyConstraint('player_id', 'currency', 'kind', 'period', name=op.f('pk_player_limits'))
    )
    op.create_table('limit_changes',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('player_id', sa.String(length=36), nullable=False),
    sa.Column('currency', sa.String(length=3), nullable=True),
    sa.Column('name', sa.String(length=32), nullable=False),
    sa.Column('period', sa.String(length=8), nullable=True),
    sa.Column('old_value', sa.BigInteger(), nullable=True),
    sa.Column('new_value', sa.BigInteger(), nullable=True),
    sa.Column('requested_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('effective_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('changed_by', sa.String(length=16), nullable=False),
    sa.Column('actor', sa.String(length=120), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_limit_changes_player_id_players')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_limit_changes'))
    )
    op.create_index('ix_limit_changes_player_id_id', 'limit_changes', ['player_id', 'id'], unique=False)
    op.create_table('account_events',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('player_id', sa.String(length=36), nullable=False),
    sa.Column('action', sa.String(length=16), nullable=False),
    sa.Column('reason', sa.String(length=500), nullable=True),
    sa.Column('old_status', sa.String(length=16), nullable=False),
    sa.Column('new_status', sa.String(length=16), nullable=False),
    sa.Column('ends_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('changed_by', sa.String(length=16), nullable=False),
    sa.Column('actor', sa.String(length=120), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_account_events_player_id_players')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_account_events'))
    )
    op.create_index('ix_account_events_player_id_id', 'account_events', ['player_id', 'id'], unique=False)
    op.create_table('cash_references',
    sa.Column('player_id', sa.String(length=36), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('reference', sa.String(length=200), nullable=False),
    sa.Column('transaction_id', sa.BigInteger(), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_cash_references_player_id_players')),
    sa.PrimaryKeyConstraint('player_id', 'kind', 'reference', name=op.f('pk_cash_references'))
    )
    # References used before: each once, by the first transaction that used it.
    op.execute(
        "INSERT INTO cash_references (player_id, kind, reference, transaction_id) "
        "SELECT player_id, kind, reference, min(id) FROM ledger_transactions "
        "WHERE kind IN ('deposit', 'withdrawal') AND reference IS NOT NULL "
        "GROUP BY player_id, kind, reference"
    )
    if _postgres():
        op.execute(CASINO_COMMIT)


def downgrade() -> None:
    if _postgres():
        op.execute(_sibling('0004_wallet_chains.py').CASINO_COMMIT)
    op.drop_table('cash_references')
    op.drop_index('ix_account_events_player_id_id', table_name='account_events')
    op.drop_table('account_events')
    op.drop_index('ix_limit_changes_player_id_id', table_name='limit_changes')
    op.drop_table('limit_changes')
    op.drop_table('player_limits')
    op.drop_table('player_protection')
