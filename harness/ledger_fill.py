"""Fill a migrated database with a large, valid ledger quickly, for the export's memory test
and its bench: players, seeds (half revealed), deposits and Casino War rounds, with every
transaction linked into its wallet's chain by the ledger's own pure functions and every round
dealt and settled by the engine, bulk-inserted in batches (one database transaction each)
instead of one request per bet. ``seal`` then makes the signed checkpoints as ``casino seal``
does.

Commit order: ``commit_seq`` is what the service writes: on SQLite the row id, on PostgreSQL
the inserting transaction's id. So a database can be filled again after the API has played on
it (``bench/bench_growth.py`` grows one ledger to 1 M rounds and beyond between its runs), and
everything stays sealable and verifiable. On PostgreSQL the rows go in by COPY (some twenty
times faster than INSERTs); a batch is one database transaction either way.
Server seeds are derived from a label, not drawn: this is test data.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from sqlalchemy import Engine, Table, func, insert, select, text, update

from casino.engine.casino_war import CasinoWarRound, Decision, RoundStatus, TableRules
from casino.engine.casino_war import deal_casino_war as deal
from casino.ledger.accounts import SYSTEM_KINDS, SystemAccounts, system_key, wallet_key
from casino.ledger.checkpoints import SigningKey
from casino.ledger.legs import transfer
from casino.ledger.settlement import decided_round_legs, opened_round_legs, settled_round_legs
from casino.ledger.transactions import (
    BET,
    DECISION,
    DEPOSIT,
    STAKE,
    ChainedTransaction,
    WalletState,
    link,
    new_transaction,
)
from casino.service.sealing import seal_pending
from casino.store.models import (
    GENESIS_HASH,
    Account,
    LedgerTransaction,
    Player,
    Posting,
    Round,
    ServerSeed,
)
from casino.store.session import make_session_factory
from casino.store.uow import UnitOfWork

_PLAYERS = cast(Table, Player.__table__)
_SEEDS = cast(Table, ServerSeed.__table__)
_ACCOUNTS = cast(Table, Account.__table__)
_TRANSACTIONS = cast(Table, LedgerTransaction.__table__)
_POSTINGS = cast(Table, Posting.__table__)
_ROUNDS = cast(Table, Round.__table__)
CURRENCY = "EUR"
START = datetime(2026, 1, 1, tzinfo=UTC)
STEP = timedelta(milliseconds=10)  # between two transactions' creation times
FUNDING = 10**9
RULES = TableRules()


@dataclass
class _Player:
    id: str
    wallet_id: int
    key: str
    state: WalletState
    seeds: list[tuple[int, bytes, str]]  # (seed id, seed, commitment): revealed, then active
    switch_at: int  # the nonce from which the active seed deals
    nonce: int = 0
    open: bool = False  # a round awaits its decision: the player plays no more


@dataclass
class Filled:
    """What was inserted: counts and the time every transaction was created in."""

    transactions: int = 0
    rounds: int = 0
    open_rounds: int = 0
    first: datetime = START
    last: datetime = START
    batches: int = 0

    def time_at(self, fraction: float) -> datetime:
        """The creation time a ``fraction`` of the way through the transactions."""
        return self.first + (self.last - self.first) * fraction


def fill(
    engine: Engine,
    *,
    transactions: int,
    players: int = 200,
    batch: int = 10_000,
    label: str = "fill",
) -> Filled:
    """Insert about ``transactions`` ledger transactions (deposits, then rounds dealt round
    robin across ``players``; each player's last round may stay awaiting its decision)."""
    postgres = engine.dialect.name == "postgresql"
    factory = make_session_factory(engine)
    # Filling a database that holds a ledger already: ids and times go on after it.
    with factory() as session:
        last_id, last_time = session.execute(
            select(func.max(_TRANSACTIONS.c.id), func.max(_TRANSACTIONS.c.created_at))
        ).one()
    start = START if last_time is None else max(START, last_time)
    people = _players(factory, players, label, transactions)
    filled = Filled()
    clock = iter(range(1, 1 << 62))
    rows: dict[str, list[dict[str, Any]]] = {"rounds": [], "txs": [], "postings": []}
    accounts = _account_ids(factory)
    next_id = int(last_id or 0) + 1

    def flush() -> None:
        filled.batches += 1
        with factory() as session, session.begin():
            if postgres:
                commit_seq = session.execute(
                    text("SELECT pg_current_xact_id()::text::bigint")
                ).scalar_one()
                for row in rows["txs"]:
                    row["commit_seq"] = commit_seq
                _copy(session, "rounds", rows["rounds"])
                _copy(session, "ledger_transactions", rows["txs"])
                _copy(session, "postings", rows["postings"])
            else:
                if rows["rounds"]:
                    session.execute(insert(_ROUNDS), rows["rounds"])
                for row in rows["txs"]:
                    row["commit_seq"] = row["id"]
                session.execute(insert(_TRANSACTIONS), rows["txs"])
                session.execute(insert(_POSTINGS), rows["postings"])
        for values in rows.values():
            values.clear()

    def add(chained: ChainedTransaction, player: _Player) -> None:
        nonlocal next_id
        new = chained.tx
        rows["txs"].append(
            {
                "id": chained.id,
                "kind": new.kind,
                "currency": new.currency,
                "player_id": new.player_id,
                "wallet_id": player.wallet_id,
                "round_id": new.round_id,
                "reference": new.reference,
                "wallet_balance_after": chained.wallet_balance_after,
                "created_at": new.created_at,
                "wallet_seq": chained.wallet_seq,
                "prev_hash": chained.prev_hash,
                "hash": chained.hash,
            }
        )
        rows["postings"].extend(
            {
                "transaction_id": chained.id,
                "leg": n,
                "account_id": accounts[leg.account],
                "amount": leg.amount,
            }
            for n, leg in enumerate(new.legs)
        )
        player.state = chained.after
        next_id += 1
        filled.transactions += 1
        filled.last = new.created_at

    def post(
        player: _Player, kind: str, legs: Any, round_id: str | None, **extra: Any
    ) -> ChainedTransaction:
        moment = start + STEP * next(clock)
        tx = new_transaction(
            kind, CURRENCY, player.id, legs, created_at=moment, round_id=round_id, **extra
        )
        chained = link(tx, next_id, player.state)
        add(chained, player)
        return chained

    for player in people:
        accounts[player.key] = player.wallet_id
        funding = transfer(SystemAccounts(CURRENCY).cash, player.key, FUNDING)
        post(player, DEPOSIT, funding, None, reference="funding")
    filled.first = start + STEP
    turn = 0
    playing = list(people)
    while filled.transactions < transactions and playing:
        player = playing[turn % len(playing)]
        turn += 1
        # Toward the end, a tie stays open (in play) until the export: some must be.
        closing = filled.transactions + 2 * len(people) > transactions
        _play(player, post, rows["rounds"], filled, keep_open=closing)
        if player.open:
            playing.remove(player)
        if len(rows["txs"]) >= batch:
            flush()
    if rows["txs"]:
        flush()
    _finish(factory, people, postgres, next_id)
    return filled


def _play(
    player: _Player,
    post: Any,
    rounds: list[dict[str, Any]],
    filled: Filled,
    *,
    keep_open: bool,
) -> None:
    """One round of ``player``: ante 100 and a tie bet of 100, dealt by the engine; a tie is
    decided at once (war or surrender) unless ``keep_open``."""
    seed_id, seed, _ = player.seeds[0 if player.nonce < player.switch_at else 1]
    nonce = player.nonce
    player.nonce += 1
    client_seed = f"client-{player.id[:8]}"
    game = CasinoWarRound.start(RULES, deal(seed, client_seed, nonce, RULES.decks), 100, 100)
    name = hashlib.sha256(f"{player.id}:{nonce}".encode()).digest()[:16]
    round_id = str(uuid.UUID(bytes=name))
    accounts = SystemAccounts(CURRENCY)
    row: dict[str, Any] = {
        "id": round_id,
        "player_id": player.id,
        "table_id": "classic",
        "currency": CURRENCY,
        "rules": RULES.to_dict(),
        "server_seed_id": seed_id,
        "client_seed": client_seed,
        "nonce": nonce,
        "ante": 100,
        "tie_bet": 100,
        "raise_amount": 0,
        "player_card": game.deal.player.code,
        "dealer_card": game.deal.dealer.code,
        "war": None,
        "decision": None,
        "decided_by": None,
        "ante_payout": 0,
        "tie_bet_payout": game.tie_bet_payout,
        "raise_payout": 0,
        "settled_at": None,
    }
    rounds.append(row)  # inserted before its transactions, which refer to it
    if game.status is RoundStatus.SETTLED:
        result = game.result
        returned = result.payouts.ante + result.payouts.tie_bet
        placed = post(
            player, BET, settled_round_legs(accounts, player.key, 200, returned), round_id
        )
        row.update(status="settled", ante_payout=result.payouts.ante, net=result.net)
        row.update(balance_after=placed.wallet_balance_after, settled_at=placed.tx.created_at)
    else:
        legs = opened_round_legs(accounts, player.key, 100, 100, game.tie_bet_payout)
        placed = post(player, STAKE, legs, round_id)
        row.update(status="awaiting_decision", net=game.tie_bet_payout - 200)
        row.update(balance_after=placed.wallet_balance_after)
        if keep_open:
            filled.open_rounds += 1
            player.open = True
        else:
            choice = Decision.WAR if nonce % 3 else Decision.SURRENDER
            game.decide(choice)
            result = game.result
            returned = result.payouts.ante + result.payouts.raise_
            legs = decided_round_legs(accounts, player.key, 100, result.bets.raise_, returned)
            decided = post(player, DECISION, legs, round_id)
            row.update(
                status="settled",
                decision=choice.value,
                decided_by="player",
                raise_amount=result.bets.raise_,
                war=None if result.war is None else result.war.to_dict(),
                ante_payout=result.payouts.ante,
                raise_payout=result.payouts.raise_,
                net=result.net,
                balance_after=decided.wallet_balance_after,
                settled_at=decided.tx.created_at,
            )
    row["created_at"] = placed.tx.created_at
    filled.rounds += 1


def _players(factory: Any, count: int, label: str, transactions: int) -> list[_Player]:
    now = START
    people: list[_Player] = []
    rounds_each = max(1, transactions // max(1, count))
    with factory() as session, session.begin():
        existing = set(session.execute(select(_ACCOUNTS.c.key)).scalars())
        for kind in SYSTEM_KINDS:
            if system_key(kind, CURRENCY) in existing:
                continue  # a ledger there already
            session.execute(
                insert(_ACCOUNTS).values(
                    key=system_key(kind, CURRENCY),
                    kind=kind,
                    currency=CURRENCY,
                    player_id=None,
                    balance=None,
                    chain_length=0,
                    chain_hash=GENESIS_HASH,
                    created_at=now,
                )
            )
        for n in range(count):
            player_id = str(uuid.UUID(bytes=hashlib.sha256(f"{label}:{n}".encode()).digest()[:16]))
            session.execute(
                insert(_PLAYERS).values(
                    id=player_id,
                    external_ref=f"{label}-{n}",
                    display_name=None,
                    token_hash=hashlib.sha256(f"{label}:{n}:token".encode()).hexdigest(),
                    created_at=now,
                )
            )
            switch_at = rounds_each // 2  # the first half of its rounds: a seed revealed later
            seeds = []
            phases = ((0, 0, switch_at, False), (1, switch_at, rounds_each * 2, True))
            for phase, first, after, active in phases:
                seed = hashlib.sha256(f"{label}:{n}:seed:{phase}".encode()).digest()
                commitment = hashlib.sha256(seed).hexdigest()
                # Each seed committed to the next phase's (the active one to a third).
                successor = hashlib.sha256(f"{label}:{n}:seed:{phase + 1}".encode()).digest()
                seed_id = session.execute(
                    insert(_SEEDS)
                    .values(
                        player_id=player_id,
                        seed=seed,
                        seed_hash=commitment,
                        client_seed=f"client-{player_id[:8]}",
                        active=active,
                        first_nonce=first,
                        next_nonce=after,
                        created_at=now,
                        revealed_at=None if active else now,
                        next_seed=successor if active else None,
                        next_seed_hash=hashlib.sha256(successor).hexdigest(),
                        client_seed_chosen=False,
                    )
                    .returning(_SEEDS.c.id)
                ).scalar_one()
                seeds.append((int(seed_id), seed, commitment))
            key = wallet_key(player_id, CURRENCY)
            wallet_id = session.execute(
                insert(_ACCOUNTS)
                .values(
                    key=key,
                    kind="wallet",
                    currency=CURRENCY,
                    player_id=player_id,
                    balance=0,
                    chain_length=0,
                    chain_hash=GENESIS_HASH,
                    created_at=now,
                )
                .returning(_ACCOUNTS.c.id)
            ).scalar_one()
            people.append(
                _Player(
                    player_id,
                    int(wallet_id),
                    key,
                    WalletState(0, 0, GENESIS_HASH),
                    seeds,
                    switch_at,
                )
            )
    return people


def _copy(session: Any, table: str, rows: list[dict[str, Any]]) -> None:
    """COPY the rows (each with the same keys) into ``table``; JSON columns as text."""
    if not rows:
        return
    columns = list(rows[0])
    cursor = session.connection().connection.cursor()
    with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(
                [
                    json.dumps(value) if isinstance(value, dict) else value
                    for value in (row[name] for name in columns)
                ]
            )


def _account_ids(factory: Any) -> dict[str, int]:
    with factory() as session:
        return {key: int(i) for i, key in session.execute(select(_ACCOUNTS.c.id, _ACCOUNTS.c.key))}


def _finish(factory: Any, people: list[_Player], postgres: bool, next_id: int) -> None:
    """The wallets' heads and the seeds' next nonces as the transactions left them."""
    with factory() as session, session.begin():
        for player in people:
            session.execute(
                update(_ACCOUNTS)
                .where(_ACCOUNTS.c.id == player.wallet_id)
                .values(
                    balance=player.state.balance,
                    chain_length=player.state.chain_length,
                    chain_hash=player.state.chain_hash,
                )
            )
            revealed, active = player.seeds
            session.execute(
                update(_SEEDS)
                .where(_SEEDS.c.id == active[0])
                .values(next_nonce=max(player.nonce, player.switch_at))
            )
            session.execute(
                update(_SEEDS)
                .where(_SEEDS.c.id == revealed[0])
                .values(next_nonce=min(player.nonce, player.switch_at))
            )
        if postgres:
            # Transactions the service writes later take ids after these.
            session.execute(
                text("SELECT setval('ledger_transaction_id_seq', :last)"), {"last": next_id - 1}
            )


def seal(engine: Engine, key: SigningKey) -> int:
    """Seal everything, as ``casino seal`` does; the number of checkpoints made."""
    made = 0
    factory = make_session_factory(engine)
    while True:
        with UnitOfWork(factory, operator="default") as uow:
            checkpoints = seal_pending(uow, key)
            uow.commit()
        if not checkpoints:
            return made
        made += len(checkpoints)
