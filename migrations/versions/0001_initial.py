"""Initial schema: players, tokens, tables, seeds, rounds, ledger, idempotency

Revision ID: 0001
Revises: (none)
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# The chain append on PostgreSQL, one round trip at commit time (casino.ledger.posting).
# It locks the chain head before anything else, so the shared accounts (house, in-play,
# cash) are only ever locked by the one transaction holding the head: no deadlocks, and the
# hot rows stay locked only for this call and the COMMIT. The link hash must equal
# casino.ledger.chain.link_hash: sha256(prev_hash || ':' || seq || ':' || digest), hex.
LEDGER_APPEND = """
CREATE OR REPLACE FUNCTION ledger_append(txs jsonb, legs jsonb, shared jsonb)
RETURNS TABLE (tx_id bigint, tx_seq bigint, tx_hash varchar)
LANGUAGE plpgsql AS $fn$
DECLARE
    chain_count bigint;
    prev varchar;
    last_tx bigint;
    tx jsonb;
    moved bigint;
BEGIN
    SELECT h.count, h.last_id, h.last_hash INTO chain_count, last_tx, prev
        FROM ledger_chain_head h WHERE h.id = 1 FOR UPDATE;
    UPDATE accounts a SET balance = a.balance + s.delta
        FROM jsonb_to_recordset(shared) AS s(key varchar, delta bigint)
        WHERE a.key = s.key;
    GET DIAGNOSTICS moved = ROW_COUNT;
    IF moved <> jsonb_array_length(shared) THEN
        RAISE EXCEPTION 'ledger_append: unknown shared account' USING ERRCODE = '23503';
    END IF;
    FOR tx IN SELECT value FROM jsonb_array_elements(txs) LOOP
        chain_count := chain_count + 1;
        tx_id := (tx->>'id')::bigint;
        tx_seq := chain_count;
        tx_hash := encode(sha256(convert_to(
            prev || ':' || chain_count::text || ':' || (tx->>'digest'), 'UTF8')), 'hex');
        INSERT INTO ledger_transactions (id, seq, kind, currency, player_id, round_id,
                reference, wallet_balance_after, created_at, prev_hash, hash)
            VALUES (tx_id, chain_count, tx->>'kind', tx->>'currency', tx->>'player_id',
                tx->>'round_id', tx->>'reference', (tx->>'wallet_balance_after')::bigint,
                (tx->>'created_at')::timestamptz, prev, tx_hash);
        prev := tx_hash;
        last_tx := tx_id;
        RETURN NEXT;
    END LOOP;
    INSERT INTO postings (transaction_id, leg, account_id, amount)
        SELECT p.transaction_id, p.leg, a.id, p.amount
        FROM jsonb_to_recordset(legs) AS p(transaction_id bigint, leg integer,
                                           account varchar, amount bigint)
        JOIN accounts a ON a.key = p.account;
    GET DIAGNOSTICS moved = ROW_COUNT;
    IF moved <> jsonb_array_length(legs) THEN
        RAISE EXCEPTION 'ledger_append: unknown account in postings' USING ERRCODE = '23503';
    END IF;
    UPDATE ledger_chain_head SET count = chain_count, last_id = last_tx, last_hash = prev
        WHERE id = 1;
END
$fn$
"""

revision: str = '0001'
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('casino_tables',
    sa.Column('id', sa.String(length=64), nullable=False),
    sa.Column('currency', sa.String(length=3), nullable=False),
    sa.Column('rules', sa.JSON(), nullable=False),
    sa.Column('active', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_casino_tables'))
    )
    op.create_table('idempotency_records',
    sa.Column('caller', sa.String(length=120), nullable=False),
    sa.Column('key', sa.String(length=255), nullable=False),
    sa.Column('fingerprint', sa.String(length=128), nullable=False),
    sa.Column('status', sa.Integer(), nullable=False),
    sa.Column('body', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('caller', 'key', name=op.f('pk_idempotency_records'))
    )
    op.create_index(op.f('ix_idempotency_records_created_at'), 'idempotency_records', ['created_at'], unique=False)

    op.create_table('ledger_chain_head',
    sa.Column('id', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('last_id', sa.BigInteger(), nullable=False),
    sa.Column('count', sa.BigInteger(), nullable=False),
    sa.Column('last_hash', sa.String(length=64), nullable=False),
    sa.CheckConstraint('id = 1', name=op.f('ck_ledger_chain_head_single_row')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_ledger_chain_head'))
    )
    chain_head = sa.table(
        'ledger_chain_head',
        sa.column('id', sa.Integer()),
        sa.column('last_id', sa.BigInteger()),
        sa.column('count', sa.BigInteger()),
        sa.column('last_hash', sa.String()),
    )
    # The genesis of the hash chain: no transaction yet, previous hash all zeros.
    op.bulk_insert(chain_head, [{'id': 1, 'last_id': 0, 'count': 0, 'last_hash': '0' * 64}])
    op.create_table('operator_tokens',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_operator_tokens')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_operator_tokens_token_hash'))
    )
    op.create_table('players',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('external_ref', sa.String(length=200), nullable=False),
    sa.Column('display_name', sa.String(length=200), nullable=True),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_players')),
    sa.UniqueConstraint('external_ref', name=op.f('uq_players_external_ref')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_players_token_hash'))
    )
    op.create_table('accounts',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('key', sa.String(length=120), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('currency', sa.String(length=3), nullable=False),
    sa.Column('player_id', sa.String(length=36), nullable=True),
    sa.Column('balance', sa.BigInteger(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("(kind = 'wallet') = (player_id IS NOT NULL)", name=op.f('ck_accounts_wallet_has_player')),
    sa.CheckConstraint("kind <> 'wallet' OR balance >= 0", name=op.f('ck_accounts_wallet_not_negative')),
    sa.CheckConstraint("kind IN ('wallet', 'house', 'in_play', 'cash')", name=op.f('ck_accounts_kind_known')),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_accounts_player_id_players')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_accounts')),
    sa.UniqueConstraint('key', name=op.f('uq_accounts_key'))
    )
    op.create_index(op.f('ix_accounts_player_id'), 'accounts', ['player_id'], unique=False)

    op.create_table('server_seeds',
    sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('player_id', sa.String(length=36), nullable=False),
    sa.Column('seed', sa.LargeBinary(length=32), nullable=False),
    sa.Column('seed_hash', sa.String(length=64), nullable=False),
    sa.Column('client_seed', sa.String(length=64), nullable=False),
    sa.Column('active', sa.Boolean(), nullable=False),
    sa.Column('first_nonce', sa.BigInteger(), nullable=False),
    sa.Column('next_nonce', sa.BigInteger(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('revealed_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint('next_nonce >= first_nonce', name=op.f('ck_server_seeds_nonce_range')),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_server_seeds_player_id_players')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_server_seeds'))
    )
    op.create_index(op.f('ix_server_seeds_player_id'), 'server_seeds', ['player_id'], unique=False)
    op.create_index('uq_server_seeds_one_active', 'server_seeds', ['player_id'], unique=True, sqlite_where=sa.text('active'), postgresql_where=sa.text('active'))

    op.create_table('rounds',
    sa.Column('id', sa.String(length=36), nullable=False),
    sa.Column('player_id', sa.String(length=36), nullable=False),
    sa.Column('table_id', sa.String(length=64), nullable=False),
    sa.Column('currency', sa.String(length=3), nullable=False),
    sa.Column('rules', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(length=20), nullable=False),
    sa.Column('server_seed_id', sa.Integer(), nullable=False),
    sa.Column('client_seed', sa.String(length=64), nullable=False),
    sa.Column('nonce', sa.BigInteger(), nullable=False),
    sa.Column('ante', sa.BigInteger(), nullable=False),
    sa.Column('tie_bet', sa.BigInteger(), nullable=False),
    sa.Column('raise_amount', sa.BigInteger(), nullable=False),
    sa.Column('player_card', sa.String(length=4), nullable=False),
    sa.Column('dealer_card', sa.String(length=4), nullable=False),
    sa.Column('war', sa.JSON(), nullable=True),
    sa.Column('decision', sa.String(length=16), nullable=True),
    sa.Column('decided_by', sa.String(length=16), nullable=True),
    sa.Column('ante_payout', sa.BigInteger(), nullable=False),
    sa.Column('tie_bet_payout', sa.BigInteger(), nullable=False),
    sa.Column('raise_payout', sa.BigInteger(), nullable=False),
    sa.Column('net', sa.BigInteger(), nullable=False),
    sa.Column('balance_after', sa.BigInteger(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('settled_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("status IN ('awaiting_decision', 'settled')", name=op.f('ck_rounds_status_known')),
    sa.CheckConstraint('ante > 0 AND tie_bet >= 0 AND raise_amount >= 0', name=op.f('ck_rounds_bets_positive')),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_rounds_player_id_players')),
    sa.ForeignKeyConstraint(['server_seed_id'], ['server_seeds.id'], name=op.f('fk_rounds_server_seed_id_server_seeds')),
    sa.ForeignKeyConstraint(['table_id'], ['casino_tables.id'], name=op.f('fk_rounds_table_id_casino_tables')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_rounds'))
    )
    op.create_index('ix_rounds_player_id_created_at', 'rounds', ['player_id', 'created_at'], unique=False)
    op.create_index('ix_rounds_status_created_at', 'rounds', ['status', 'created_at'], unique=False)
    op.create_index('uq_rounds_one_open_per_player', 'rounds', ['player_id'], unique=True, sqlite_where=sa.text("status = 'awaiting_decision'"), postgresql_where=sa.text("status = 'awaiting_decision'"))

    if op.get_bind().dialect.name == 'postgresql':
        op.execute(sa.schema.CreateSequence(sa.Sequence('ledger_transaction_id_seq')))
    op.create_table('ledger_transactions',
    sa.Column('id', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('seq', sa.BigInteger(), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('currency', sa.String(length=3), nullable=False),
    sa.Column('player_id', sa.String(length=36), nullable=True),
    sa.Column('round_id', sa.String(length=36), nullable=True),
    sa.Column('reference', sa.String(length=200), nullable=True),
    sa.Column('wallet_balance_after', sa.BigInteger(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('prev_hash', sa.String(length=64), nullable=False),
    sa.Column('hash', sa.String(length=64), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_ledger_transactions_player_id_players')),
    sa.ForeignKeyConstraint(['round_id'], ['rounds.id'], name=op.f('fk_ledger_transactions_round_id_rounds')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_ledger_transactions')),
    sa.UniqueConstraint('hash', name=op.f('uq_ledger_transactions_hash')),
    sa.UniqueConstraint('seq', name=op.f('uq_ledger_transactions_seq'))
    )
    if op.get_bind().dialect.name == 'postgresql':
        op.execute('ALTER SEQUENCE ledger_transaction_id_seq OWNED BY ledger_transactions.id')
    op.create_index('ix_ledger_transactions_player_id_id', 'ledger_transactions', ['player_id', 'id'], unique=False)
    op.create_index(op.f('ix_ledger_transactions_round_id'), 'ledger_transactions', ['round_id'], unique=False)

    op.create_table('postings',
    sa.Column('transaction_id', sa.BigInteger(), nullable=False),
    sa.Column('leg', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('account_id', sa.Integer(), nullable=False),
    sa.Column('amount', sa.BigInteger(), nullable=False),
    sa.CheckConstraint('amount <> 0', name=op.f('ck_postings_amount_not_zero')),
    sa.ForeignKeyConstraint(['account_id'], ['accounts.id'], name=op.f('fk_postings_account_id_accounts')),
    sa.ForeignKeyConstraint(['transaction_id'], ['ledger_transactions.id'], name=op.f('fk_postings_transaction_id_ledger_transactions')),
    sa.PrimaryKeyConstraint('transaction_id', 'leg', name=op.f('pk_postings'))
    )
    op.create_index(op.f('ix_postings_account_id'), 'postings', ['account_id'], unique=False)
    if op.get_bind().dialect.name == 'postgresql':
        op.execute(LEDGER_APPEND)



def downgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        op.execute('DROP FUNCTION IF EXISTS ledger_append(jsonb, jsonb, jsonb)')
    op.drop_index(op.f('ix_postings_account_id'), table_name='postings')

    op.drop_table('postings')
    op.drop_index(op.f('ix_ledger_transactions_round_id'), table_name='ledger_transactions')
    op.drop_index('ix_ledger_transactions_player_id_id', table_name='ledger_transactions')

    op.drop_table('ledger_transactions')  # drops its sequence too on PostgreSQL
    op.drop_index('uq_rounds_one_open_per_player', table_name='rounds')
    op.drop_index('ix_rounds_status_created_at', table_name='rounds')
    op.drop_index('ix_rounds_player_id_created_at', table_name='rounds')

    op.drop_table('rounds')
    op.drop_index('uq_server_seeds_one_active', table_name='server_seeds')
    op.drop_index(op.f('ix_server_seeds_player_id'), table_name='server_seeds')

    op.drop_table('server_seeds')
    op.drop_index(op.f('ix_accounts_player_id'), table_name='accounts')

    op.drop_table('accounts')
    op.drop_table('players')
    op.drop_table('operator_tokens')
    op.drop_table('ledger_chain_head')
    op.drop_index(op.f('ix_idempotency_records_created_at'), table_name='idempotency_records')

    op.drop_table('idempotency_records')
    op.drop_table('casino_tables')
