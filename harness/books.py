"""A large, valid ledger written straight into a database, for benches and big tests.

Playing 100k rounds through the API takes minutes; this deals them through the same engine
and books them through the same pure bookkeeping (casino.ledger), then inserts the rows in
bulk. The result passes ``casino audit``: it is what the service would have written, only
faster (one deposit per player, then bets; ties are decided, alternately war and surrender).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import insert
from sqlalchemy.engine import Engine

from casino.engine import fairness
from casino.engine.casino_war import Decision, RoundStatus, TableRules, replay_round
from casino.ledger.accounts import SystemAccounts, wallet_key
from casino.ledger.chain import GENESIS_HASH
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
from casino.store.models import (
    Account,
    CasinoTable,
    LedgerTransaction,
    Player,
    Posting,
    Round,
    ServerSeed,
)

RULES = TableRules()
START = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass
class Filled:
    players: int
    rounds: int
    transactions: int


def _chunks(rows: list[dict[str, Any]], size: int = 5_000) -> Iterator[list[dict[str, Any]]]:
    for i in range(0, len(rows), size):
        yield rows[i : i + size]


class _Booker:
    """Books one player's transactions into its wallet's chain, row by row."""

    def __init__(
        self,
        rows: dict[Any, list[dict[str, Any]]],
        ids: dict[str, int],
        player_id: str,
        wallet_id: int,
        tx_id: int,
        moment: datetime,
    ) -> None:
        self.rows, self.ids = rows, ids
        self.player_id, self.wallet_id = player_id, wallet_id
        self.tx_id, self.moment = tx_id, moment
        self.state = WalletState(0, 0, GENESIS_HASH)

    def __call__(
        self, kind: str, legs: Any, round_id: str | None = None, reference: str | None = None
    ) -> None:
        self.tx_id += 1
        self.moment += timedelta(microseconds=1)
        tx = new_transaction(
            kind,
            "EUR",
            self.player_id,
            legs,
            created_at=self.moment,
            round_id=round_id,
            reference=reference,
        )
        chained: ChainedTransaction = link(tx, self.tx_id, self.state)
        self.state = chained.after
        self.rows[LedgerTransaction].append(
            {
                "id": self.tx_id,
                "kind": kind,
                "currency": "EUR",
                "player_id": self.player_id,
                "wallet_id": self.wallet_id,
                "round_id": round_id,
                "reference": reference,
                "wallet_balance_after": chained.wallet_balance_after,
                "created_at": self.moment,
                "wallet_seq": chained.wallet_seq,
                "prev_hash": chained.prev_hash,
                "hash": chained.hash,
                "commit_seq": self.tx_id,
            }
        )
        self.rows[Posting].extend(
            {
                "transaction_id": self.tx_id,
                "leg": n,
                "account_id": self.ids[leg.account],
                "amount": leg.amount,
            }
            for n, leg in enumerate(tx.legs)
        )


def fill(engine: Engine, *, players: int, rounds_per_player: int, ante: int = 100) -> Filled:
    """Players with one deposit each and ``rounds_per_player`` settled rounds each."""
    accounts = SystemAccounts("EUR")
    rows: dict[Any, list[dict[str, Any]]] = {
        t: [] for t in (Player, ServerSeed, Account, CasinoTable, Round, LedgerTransaction, Posting)
    }
    rows[CasinoTable].append(
        {
            "id": "classic",
            "currency": "EUR",
            "rules": RULES.to_dict(),
            "active": True,
            "created_at": START,
            "updated_at": START,
        }
    )
    next_account = 1
    for kind in ("house", "in_play", "cash"):
        rows[Account].append(
            {
                "id": next_account,
                "key": f"{kind}:EUR",
                "kind": kind,
                "currency": "EUR",
                "player_id": None,
                "balance": None,
                "chain_length": 0,
                "chain_hash": GENESIS_HASH,
                "created_at": START,
            }
        )
        next_account += 1
    ids = {row["key"]: row["id"] for row in rows[Account]}
    tx_id = 0
    moment = START
    for p in range(players):
        player_id = str(uuid.UUID(int=p + 1))
        seed, successor = fairness.new_server_seed(), fairness.new_server_seed()
        rows[Player].append(
            {
                "id": player_id,
                "external_ref": f"bulk-{p}",
                "display_name": None,
                "token_hash": f"{p:064x}",
                "created_at": START,
            }
        )
        rows[ServerSeed].append(
            {
                "id": p + 1,
                "player_id": player_id,
                "seed": seed,
                "seed_hash": fairness.commitment(seed),
                "client_seed": "bulk",
                "active": True,
                "first_nonce": 0,
                "next_nonce": rounds_per_player,
                "created_at": START,
                "revealed_at": None,
                "next_seed": successor,
                "next_seed_hash": fairness.commitment(successor),
                "client_seed_chosen": False,
            }
        )
        wallet = wallet_key(player_id, "EUR")
        wallet_id = next_account
        next_account += 1
        ids[wallet] = wallet_id
        book = _Booker(rows, ids, player_id, wallet_id, tx_id, moment)
        book(DEPOSIT, transfer(accounts.cash, wallet, 10**9), reference="bulk")
        for nonce in range(rounds_per_player):
            round_id = str(uuid.uuid4())
            game = replay_round(RULES, seed, "bulk", nonce, ante, 0)
            decision = None
            if game.status is RoundStatus.AWAITING_DECISION:
                decision = Decision.WAR if nonce % 2 else Decision.SURRENDER
                book(STAKE, opened_round_legs(accounts, wallet, ante, 0, 0), round_id)
                game.decide(decision)
                result = game.result
                returned = result.payouts.ante + result.payouts.raise_
                book(
                    DECISION,
                    decided_round_legs(accounts, wallet, ante, result.bets.raise_, returned),
                    round_id,
                )
            else:
                result = game.result
                book(BET, settled_round_legs(accounts, wallet, ante, result.payouts.ante), round_id)
            rows[Round].append(
                {
                    "id": round_id,
                    "player_id": player_id,
                    "table_id": "classic",
                    "currency": "EUR",
                    "rules": RULES.to_dict(),
                    "status": "settled",
                    "server_seed_id": p + 1,
                    "client_seed": "bulk",
                    "nonce": nonce,
                    "ante": ante,
                    "tie_bet": 0,
                    "raise_amount": result.bets.raise_,
                    "player_card": game.deal.player.code,
                    "dealer_card": game.deal.dealer.code,
                    "war": None if result.war is None else result.war.to_dict(),
                    "decision": None if decision is None else decision.value,
                    "decided_by": None if decision is None else "player",
                    "ante_payout": result.payouts.ante,
                    "tie_bet_payout": result.payouts.tie_bet,
                    "raise_payout": result.payouts.raise_,
                    "net": result.net,
                    "balance_after": book.state.balance,
                    "created_at": book.moment,
                    "settled_at": book.moment,
                }
            )
        rows[Account].append(
            {
                "id": wallet_id,
                "key": wallet,
                "kind": "wallet",
                "currency": "EUR",
                "player_id": player_id,
                "balance": book.state.balance,
                "chain_length": book.state.chain_length,
                "chain_hash": book.state.chain_hash,
                "created_at": START,
            }
        )
        tx_id, moment = book.tx_id, book.moment
    with engine.begin() as conn:
        for table in (Player, ServerSeed, CasinoTable, Account, Round, LedgerTransaction, Posting):
            for chunk in _chunks(rows[table]):
                conn.execute(insert(table.__table__), chunk)  # type: ignore[arg-type]
        if engine.dialect.name == "postgresql":
            # The rows came with their ids; the sequences and serials carry on after them.
            conn.exec_driver_sql(f"SELECT setval('ledger_transaction_id_seq', {max(tx_id, 1)})")
            for name in ("accounts", "server_seeds"):
                conn.exec_driver_sql(
                    f"SELECT setval(pg_get_serial_sequence('{name}', 'id'), "
                    f"(SELECT max(id) FROM {name}))"
                )
    return Filled(players, players * rounds_per_player, tx_id)
