"""Ledger at scale: per-wallet hash chains, signed checkpoints, no row shared by every bet

Revision ID: 0004
Revises: 0003

- The global chain (``seq``, the ``ledger_chain_head`` row every bet locked) becomes one chain
  per wallet (``wallet_seq``, the head on the wallet's own row); existing transactions are
  re-linked wallet by wallet in their old chain order, and their running wallet balance is
  filled in where it was missing (a lost round's settlement did not touch the wallet).
- House, in-play and cash keep no balance row any more: their balances are the sums of their
  postings, rolled up into ``ledger_checkpoints`` by the sealer.
- ``commit_seq`` orders transactions for the sealer (PostgreSQL: the inserting transaction's
  id; SQLite: the row id). Migrated transactions get 1 (PostgreSQL) or their id (SQLite), so
  the first checkpoint seals all of them.
- Foreign keys from postings to accounts and from rounds to tables are dropped: checking one
  locks the referenced row (KEY SHARE), which made the house account and each table row a
  lock every bet took. The audit checks those references instead.
- PostgreSQL: ``ledger_append`` / ``ledger_commit`` give way to ``casino_commit``, which
  writes everything a request hands to its commit in one statement (casino.store.writes).
"""

from __future__ import annotations

import importlib.util
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import op

from casino.ledger.chain import GENESIS_HASH, content_digest, link_hash

revision: str = '0004'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Everything a request hands to its commit, in one statement (see casino.store.writes).
# Wallets and round updates go one row at a time by primary key, so the plan is an index
# lookup whatever the statistics say; a guard that finds no row raises a constraint error
# named for the service to map. The link hashes were computed by the service
# (casino.ledger.chain) against the wallet row it holds locked.
CASINO_COMMIT = """
CREATE OR REPLACE FUNCTION casino_commit(doc json) RETURNS void
LANGUAGE plpgsql AS $fn$
DECLARE
    w record;
    u record;
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


_accounts = sa.table(
    'accounts',
    sa.column('id', sa.Integer()),
    sa.column('key', sa.String()),
    sa.column('kind', sa.String()),
    sa.column('currency', sa.String()),
    sa.column('player_id', sa.String()),
    sa.column('balance', sa.BigInteger()),
    sa.column('chain_length', sa.BigInteger()),
    sa.column('chain_hash', sa.String()),
)
_transactions = sa.table(
    'ledger_transactions',
    sa.column('id', sa.BigInteger()),
    sa.column('seq', sa.BigInteger()),
    sa.column('kind', sa.String()),
    sa.column('currency', sa.String()),
    sa.column('player_id', sa.String()),
    sa.column('round_id', sa.String()),
    sa.column('reference', sa.String()),
    sa.column('wallet_balance_after', sa.BigInteger()),
    sa.column('created_at', sa.DateTime(timezone=True)),
    sa.column('prev_hash', sa.String()),
    sa.column('hash', sa.String()),
    sa.column('wallet_id', sa.Integer()),
    sa.column('wallet_seq', sa.BigInteger()),
    sa.column('commit_seq', sa.BigInteger()),
)
_postings = sa.table(
    'postings',
    sa.column('transaction_id', sa.BigInteger()),
    sa.column('leg', sa.Integer()),
    sa.column('account_id', sa.Integer()),
    sa.column('amount', sa.BigInteger()),
)


def _relink(order: Any) -> None:
    """Give every transaction its wallet, its place in that wallet's chain and its link."""
    bind = op.get_bind()
    accounts = {row.id: row for row in bind.execute(sa.select(_accounts))}
    wallet_of = {row.key: row.id for row in accounts.values() if row.kind == 'wallet'}
    legs: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
    for tx_id, leg, account_id, amount in bind.execute(
        sa.select(_postings.c.transaction_id, _postings.c.leg, _postings.c.account_id,
                  _postings.c.amount).order_by(_postings.c.transaction_id, _postings.c.leg)
    ):
        legs[int(tx_id)].append((int(leg), int(account_id), int(amount)))
    heads: dict[int, tuple[int, int, str]] = {}  # wallet -> balance, length, hash
    postgres = _postgres()
    for tx in bind.execute(sa.select(_transactions).order_by(order)).all():
        wallet_id = wallet_of.get(f'wallet:{tx.player_id}:{tx.currency}')
        if wallet_id is None:
            raise RuntimeError(f'transaction {tx.id} has no wallet to join')
        balance, length, prev = heads.get(wallet_id, (0, 0, GENESIS_HASH))
        postings = legs.get(int(tx.id), [])
        balance += sum(amount for _, account, amount in postings if account == wallet_id)
        length += 1
        digest = content_digest(
            tx_id=int(tx.id), kind=tx.kind, currency=tx.currency, player_id=tx.player_id,
            round_id=tx.round_id, reference=tx.reference, wallet_balance_after=balance,
            created_at=tx.created_at,
            postings=[(leg, accounts[account].key, amount) for leg, account, amount in postings],
        )
        digest_hash = link_hash(prev, length, digest)
        bind.execute(
            _transactions.update().where(_transactions.c.id == tx.id).values(
                wallet_id=wallet_id, wallet_seq=length, wallet_balance_after=balance,
                prev_hash=prev, hash=digest_hash, commit_seq=1 if postgres else tx.id,
            )
        )
        heads[wallet_id] = (balance, length, digest_hash)
    for wallet_id, (_, length, last) in heads.items():
        bind.execute(
            _accounts.update().where(_accounts.c.id == wallet_id)
            .values(chain_length=length, chain_hash=last)
        )


def upgrade() -> None:
    postgres = _postgres()
    if postgres:
        op.execute('DROP FUNCTION IF EXISTS ledger_commit(json, jsonb, jsonb, jsonb)')
        op.execute('DROP FUNCTION IF EXISTS ledger_append(jsonb, jsonb, jsonb)')

    with op.batch_alter_table('accounts') as batch:
        batch.add_column(sa.Column('chain_length', sa.BigInteger(), nullable=False,
                                   server_default='0'))
        batch.add_column(sa.Column('chain_hash', sa.String(length=64), nullable=False,
                                   server_default=GENESIS_HASH))
        batch.alter_column('balance', existing_type=sa.BigInteger(), nullable=True)
    with op.batch_alter_table('ledger_transactions') as batch:
        batch.add_column(sa.Column('wallet_id', sa.Integer(), nullable=True))
        batch.add_column(sa.Column('wallet_seq', sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column('commit_seq', sa.BigInteger(), nullable=True))

    _relink(_transactions.c.seq)
    op.execute("UPDATE accounts SET balance = NULL WHERE kind <> 'wallet'")

    with op.batch_alter_table('accounts') as batch:
        batch.alter_column('chain_length', server_default=None)
        batch.alter_column('chain_hash', server_default=None)
        batch.drop_constraint(op.f('ck_accounts_wallet_not_negative'), type_='check')
        batch.create_check_constraint(
            op.f('ck_accounts_wallet_not_negative'),
            "kind <> 'wallet' OR (balance IS NOT NULL AND balance >= 0)",
        )
        batch.create_check_constraint(
            op.f('ck_accounts_only_wallets_keep_balance'), "kind = 'wallet' OR balance IS NULL"
        )
        batch.create_check_constraint(op.f('ck_accounts_chain_length_known'), 'chain_length >= 0')

    with op.batch_alter_table('postings') as batch:
        batch.drop_index(op.f('ix_postings_account_id'))
        batch.drop_constraint(op.f('fk_postings_account_id_accounts'), type_='foreignkey')

    with op.batch_alter_table('rounds') as batch:
        batch.drop_constraint(op.f('fk_rounds_table_id_casino_tables'), type_='foreignkey')
        batch.drop_index('ix_rounds_status_created_at')
        batch.create_index('ix_rounds_created_at', ['created_at'], unique=False)

    with op.batch_alter_table('ledger_transactions') as batch:
        batch.drop_constraint(op.f('uq_ledger_transactions_seq'), type_='unique')
        batch.drop_constraint(op.f('uq_ledger_transactions_hash'), type_='unique')
        batch.drop_column('seq')
        if not postgres:  # SQLite: the id becomes the rowid, assigned in commit order
            batch.alter_column('id', existing_type=sa.BigInteger(), type_=sa.Integer())
        batch.alter_column('player_id', existing_type=sa.String(length=36), nullable=False)
        batch.alter_column('wallet_id', existing_type=sa.Integer(), nullable=False)
        batch.alter_column('wallet_seq', existing_type=sa.BigInteger(), nullable=False)
        batch.alter_column('commit_seq', existing_type=sa.BigInteger(), nullable=False)
        batch.alter_column('wallet_balance_after', existing_type=sa.BigInteger(),
                           nullable=False)
        batch.create_foreign_key(op.f('fk_ledger_transactions_wallet_id_accounts'),
                                 'accounts', ['wallet_id'], ['id'])
        batch.create_check_constraint(op.f('ck_ledger_transactions_wallet_seq_positive'),
                                      'wallet_seq >= 1')
        batch.create_index('uq_ledger_transactions_wallet_seq', ['wallet_id', 'wallet_seq'],
                           unique=True)
        batch.create_index(op.f('ix_ledger_transactions_commit_seq'), ['commit_seq'],
                           unique=False)

    op.drop_table('ledger_chain_head')
    op.create_table('ledger_checkpoints',
    sa.Column('seq', sa.BigInteger(), autoincrement=False, nullable=False),
    sa.Column('commit_from', sa.BigInteger(), nullable=False),
    sa.Column('commit_to', sa.BigInteger(), nullable=False),
    sa.Column('tx_count', sa.BigInteger(), nullable=False),
    sa.Column('total_count', sa.BigInteger(), nullable=False),
    sa.Column('root', sa.String(length=64), nullable=False),
    sa.Column('balances', sa.JSON(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('prev_hash', sa.String(length=64), nullable=False),
    sa.Column('hash', sa.String(length=64), nullable=False),
    sa.Column('key_id', sa.String(length=64), nullable=False),
    sa.Column('signature', sa.String(length=128), nullable=False),
    sa.CheckConstraint('seq >= 1', name=op.f('ck_ledger_checkpoints_seq_positive')),
    sa.CheckConstraint('commit_to > commit_from', name=op.f('ck_ledger_checkpoints_range_not_empty')),
    sa.PrimaryKeyConstraint('seq', name=op.f('pk_ledger_checkpoints')),
    sa.UniqueConstraint('commit_to', name=op.f('uq_ledger_checkpoints_commit_to')),
    sa.UniqueConstraint('hash', name=op.f('uq_ledger_checkpoints_hash'))
    )
    if postgres:
        op.execute(CASINO_COMMIT)


def _relink_globally() -> None:
    """The old single chain, in id order (downgrade)."""
    bind = op.get_bind()
    keys = {row.id: row.key for row in bind.execute(sa.select(_accounts.c.id, _accounts.c.key))}
    legs: dict[int, list[tuple[int, str, int]]] = defaultdict(list)
    for tx_id, leg, account_id, amount in bind.execute(
        sa.select(_postings.c.transaction_id, _postings.c.leg, _postings.c.account_id,
                  _postings.c.amount).order_by(_postings.c.transaction_id, _postings.c.leg)
    ):
        legs[int(tx_id)].append((int(leg), keys[int(account_id)], int(amount)))
    prev, count, last_id = GENESIS_HASH, 0, 0
    for tx in bind.execute(sa.select(_transactions).order_by(_transactions.c.id)).all():
        count += 1
        digest = content_digest(
            tx_id=int(tx.id), kind=tx.kind, currency=tx.currency, player_id=tx.player_id,
            round_id=tx.round_id, reference=tx.reference,
            wallet_balance_after=tx.wallet_balance_after, created_at=tx.created_at,
            postings=legs.get(int(tx.id), []),
        )
        prev = link_hash(prev, count, digest)
        last_id = int(tx.id)
        bind.execute(_transactions.update().where(_transactions.c.id == tx.id)
                     .values(seq=count, prev_hash=None, hash=prev))
    # prev_hash is filled in a second pass (the previous row's hash)
    previous = GENESIS_HASH
    for tx_id, tx_hash in bind.execute(
        sa.select(_transactions.c.id, _transactions.c.hash).order_by(_transactions.c.seq)
    ).all():
        bind.execute(_transactions.update().where(_transactions.c.id == tx_id)
                     .values(prev_hash=previous))
        previous = tx_hash
    bind.execute(sa.text(
        'INSERT INTO ledger_chain_head (id, last_id, count, last_hash) '
        'VALUES (1, :last_id, :count, :hash)'), {'last_id': last_id, 'count': count, 'hash': prev})


def downgrade() -> None:
    postgres = _postgres()
    if postgres:
        op.execute('DROP FUNCTION IF EXISTS casino_commit(json)')
    op.drop_table('ledger_checkpoints')
    op.create_table('ledger_chain_head',
    sa.Column('id', sa.Integer(), autoincrement=False, nullable=False),
    sa.Column('last_id', sa.BigInteger(), nullable=False),
    sa.Column('count', sa.BigInteger(), nullable=False),
    sa.Column('last_hash', sa.String(length=64), nullable=False),
    sa.CheckConstraint('id = 1', name=op.f('ck_ledger_chain_head_single_row')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_ledger_chain_head'))
    )
    with op.batch_alter_table('ledger_transactions') as batch:
        batch.drop_index(op.f('ix_ledger_transactions_commit_seq'))
        batch.drop_index('uq_ledger_transactions_wallet_seq')
        batch.drop_constraint(op.f('ck_ledger_transactions_wallet_seq_positive'), type_='check')
        batch.drop_constraint(op.f('fk_ledger_transactions_wallet_id_accounts'),
                              type_='foreignkey')
        batch.add_column(sa.Column('seq', sa.BigInteger(), nullable=True))
        batch.alter_column('prev_hash', existing_type=sa.String(length=64), nullable=True)
    _relink_globally()
    with op.batch_alter_table('ledger_transactions') as batch:
        batch.alter_column('prev_hash', existing_type=sa.String(length=64), nullable=False)
        batch.alter_column('seq', existing_type=sa.BigInteger(), nullable=False)
        batch.drop_column('commit_seq')
        batch.drop_column('wallet_seq')
        batch.drop_column('wallet_id')
        if not postgres:
            batch.alter_column('id', existing_type=sa.Integer(), type_=sa.BigInteger())
        batch.alter_column('player_id', existing_type=sa.String(length=36), nullable=True)
        batch.alter_column('wallet_balance_after', existing_type=sa.BigInteger(),
                           nullable=True)
        batch.create_unique_constraint(op.f('uq_ledger_transactions_seq'), ['seq'])
        batch.create_unique_constraint(op.f('uq_ledger_transactions_hash'), ['hash'])
    with op.batch_alter_table('rounds') as batch:
        batch.drop_index('ix_rounds_created_at')
        batch.create_index('ix_rounds_status_created_at', ['status', 'created_at'], unique=False)
        batch.create_foreign_key(op.f('fk_rounds_table_id_casino_tables'), 'casino_tables',
                                 ['table_id'], ['id'])
    with op.batch_alter_table('postings') as batch:
        batch.create_foreign_key(op.f('fk_postings_account_id_accounts'), 'accounts',
                                 ['account_id'], ['id'])
        batch.create_index(op.f('ix_postings_account_id'), ['account_id'], unique=False)
    # The shared accounts' balances come back from their postings.
    op.execute(
        "UPDATE accounts SET balance = (SELECT coalesce(sum(p.amount), 0) FROM postings p "
        "WHERE p.account_id = accounts.id) WHERE kind <> 'wallet'"
    )
    with op.batch_alter_table('accounts') as batch:
        batch.drop_constraint(op.f('ck_accounts_chain_length_known'), type_='check')
        batch.drop_constraint(op.f('ck_accounts_only_wallets_keep_balance'), type_='check')
        batch.drop_constraint(op.f('ck_accounts_wallet_not_negative'), type_='check')
        batch.create_check_constraint(op.f('ck_accounts_wallet_not_negative'),
                                      "kind <> 'wallet' OR balance >= 0")
        batch.alter_column('balance', existing_type=sa.BigInteger(), nullable=False)
        batch.drop_column('chain_hash')
        batch.drop_column('chain_length')
    if postgres:
        op.execute(_sibling('0001_initial.py').LEDGER_APPEND)
        op.execute(_sibling('0003_ledger_commit.py').LEDGER_COMMIT)
