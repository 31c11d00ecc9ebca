"""The ledger audit: invariants of the books and a replay of every settled round.

Checks (each reported separately):
- ``transactions_balanced``: every transaction has >= 2 non-zero postings summing to zero, all
  in accounts of the transaction's currency;
- ``currencies_balanced``: per currency, all postings and all balances sum to zero;
- ``balances_match_postings``: each account's cached balance = the sum of its postings;
- ``no_negative_wallet``;
- ``in_play_matches_open_stakes``: per currency, in-play = the antes of rounds awaiting a
  decision, and each round's in-play postings net to its open stake;
- ``hash_chain``: chain positions (``seq``) gapless from 1, each prev_hash = the previous
  hash, each hash recomputed from the stored rows, and the chain head (count, last id, last
  hash) matches the last row — so an edited row, a deleted row and a deleted last row are all
  caught;
- ``rounds_replay``: every round re-dealt from its seeds and re-played through the engine;
  cards, decision, bets, payouts and net must match the round row, and its wallet postings
  must add up to its net and its stake/raise transactions to its bets.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from casino.engine.casino_war import CasinoWarRound, Decision, TableRules, deal_casino_war
from casino.engine.errors import EngineError
from casino.ledger.accounts import IN_PLAY, WALLET
from casino.ledger.chain import GENESIS_HASH, content_digest, link_hash
from casino.store.models import (
    AWAITING_DECISION,
    SETTLED,
    Account,
    ChainHead,
    LedgerTransaction,
    Posting,
    Round,
    ServerSeed,
)

MAX_DETAILS = 10


@dataclass(frozen=True)
class CheckResult:
    name: str
    ok: bool
    detail: str


@dataclass(frozen=True)
class AuditReport:
    ok: bool
    checks: list[CheckResult]


class _Problems:
    def __init__(self) -> None:
        self.items: list[str] = []
        self.count = 0

    def add(self, message: str) -> None:
        self.count += 1
        if len(self.items) < MAX_DETAILS:
            self.items.append(message)

    def result(self, name: str, ok_detail: str) -> CheckResult:
        if not self.count:
            return CheckResult(name, True, ok_detail)
        more = f" (+{self.count - len(self.items)} more)" if self.count > len(self.items) else ""
        return CheckResult(name, False, "; ".join(self.items) + more)


@dataclass
class _Books:
    """Everything the checks need, read once in one consistent snapshot."""

    accounts: dict[int, tuple[str, str, str | None, int]]  # id -> kind, currency, player, bal
    keys: dict[int, str]  # account id -> key
    transactions: list[LedgerTransaction]  # in chain order
    postings: dict[int, list[tuple[int, int, int]]]  # tx id -> [(leg, account, amount)]


def _load(session: Session) -> _Books:
    accounts = {}
    keys = {}
    for row in session.execute(
        select(
            Account.id,
            Account.key,
            Account.kind,
            Account.currency,
            Account.player_id,
            Account.balance,
        )
    ):
        accounts[row.id] = (row.kind, row.currency, row.player_id, int(row.balance))
        keys[row.id] = row.key
    transactions = list(session.scalars(select(LedgerTransaction).order_by(LedgerTransaction.seq)))
    postings: dict[int, list[tuple[int, int, int]]] = defaultdict(list)
    for tx_id, leg, account_id, amount in session.execute(
        select(Posting.transaction_id, Posting.leg, Posting.account_id, Posting.amount).order_by(
            Posting.transaction_id, Posting.leg
        )
    ):
        postings[int(tx_id)].append((int(leg), int(account_id), int(amount)))
    return _Books(accounts, keys, transactions, postings)


def _check_transactions(books: _Books) -> CheckResult:
    problems = _Problems()
    known = {tx.id for tx in books.transactions}
    for tx in books.transactions:
        legs = books.postings.get(tx.id, [])
        if len(legs) < 2:
            problems.add(f"transaction {tx.id} has {len(legs)} posting(s)")
        if sum(amount for _, _, amount in legs) != 0:
            problems.add(f"transaction {tx.id} postings sum to {sum(a for _, _, a in legs)}")
        for leg, account_id, amount in legs:
            if amount == 0:
                problems.add(f"transaction {tx.id} leg {leg} is zero")
            account = books.accounts.get(account_id)
            if account is None or account[1] != tx.currency:
                problems.add(f"transaction {tx.id} leg {leg} posts to a foreign account")
    for tx_id in books.postings.keys() - known:
        problems.add(f"postings of missing transaction {tx_id}")
    return problems.result(
        "transactions_balanced", f"{len(books.transactions)} transactions, each sums to zero"
    )


def _posting_sums(books: _Books) -> dict[int, int]:
    sums: dict[int, int] = defaultdict(int)
    for legs in books.postings.values():
        for _, account_id, amount in legs:
            sums[account_id] += amount
    return sums


def _check_currencies(books: _Books, sums: dict[int, int]) -> CheckResult:
    problems = _Problems()
    by_currency_postings: dict[str, int] = defaultdict(int)
    by_currency_balances: dict[str, int] = defaultdict(int)
    for account_id, (_, currency, _, balance) in books.accounts.items():
        by_currency_postings[currency] += sums.get(account_id, 0)
        by_currency_balances[currency] += balance
    for currency in sorted(by_currency_balances):
        if by_currency_postings[currency]:
            problems.add(f"{currency} postings sum to {by_currency_postings[currency]}")
        if by_currency_balances[currency]:
            problems.add(f"{currency} balances sum to {by_currency_balances[currency]}")
    names = ", ".join(sorted(by_currency_balances)) or "none"
    return problems.result("currencies_balanced", f"currencies {names} each sum to zero")


def _check_balances(books: _Books, sums: dict[int, int]) -> CheckResult:
    problems = _Problems()
    for account_id, (kind, currency, player, balance) in sorted(books.accounts.items()):
        if balance != sums.get(account_id, 0):
            owner = f"{kind}:{player}" if player else kind
            problems.add(
                f"account {account_id} ({owner} {currency}) balance {balance} != postings "
                f"{sums.get(account_id, 0)}"
            )
    return problems.result(
        "balances_match_postings", f"{len(books.accounts)} accounts match their postings"
    )


def _check_wallets(books: _Books) -> CheckResult:
    problems = _Problems()
    wallets = 0
    for account_id, (kind, currency, player, balance) in books.accounts.items():
        if kind == WALLET:
            wallets += 1
            if balance < 0:
                problems.add(f"wallet {account_id} ({player} {currency}) is {balance}")
    return problems.result("no_negative_wallet", f"{wallets} wallets, none negative")


def _check_in_play(session: Session, books: _Books) -> CheckResult:
    problems = _Problems()
    open_stakes: dict[str, int] = defaultdict(int)
    for currency, ante in session.execute(
        select(Round.currency, func.coalesce(func.sum(Round.ante), 0))
        .where(Round.status == AWAITING_DECISION)
        .group_by(Round.currency)
    ):
        open_stakes[currency] += int(ante)
    in_play: dict[str, int] = defaultdict(int)
    for kind, currency, _, balance in books.accounts.values():
        if kind == IN_PLAY:
            in_play[currency] += balance
    for currency in sorted(set(open_stakes) | set(in_play)):
        if in_play[currency] != open_stakes[currency]:
            problems.add(
                f"{currency} in-play {in_play[currency]} != open stakes {open_stakes[currency]}"
            )
    total = sum(open_stakes.values())
    return problems.result(
        "in_play_matches_open_stakes", f"in-play equals the open stakes ({total} in total)"
    )


def _check_chain(session: Session, books: _Books) -> CheckResult:
    problems = _Problems()
    prev_hash = GENESIS_HASH
    expected_seq = 1
    for tx in books.transactions:
        if tx.seq != expected_seq:
            problems.add(f"chain positions jump from {expected_seq - 1} to {tx.seq}")
            expected_seq = tx.seq
        if tx.prev_hash != prev_hash:
            problems.add(f"transaction {tx.id} (#{tx.seq}) does not link to its predecessor")
        digest = content_digest(
            tx_id=int(tx.id),
            kind=tx.kind,
            currency=tx.currency,
            player_id=tx.player_id,
            round_id=tx.round_id,
            reference=tx.reference,
            wallet_balance_after=(
                None if tx.wallet_balance_after is None else int(tx.wallet_balance_after)
            ),
            created_at=tx.created_at,
            postings=[
                (leg, books.keys.get(account, f"?{account}"), amount)
                for leg, account, amount in books.postings.get(tx.id, [])
            ],
        )
        if link_hash(tx.prev_hash, int(tx.seq), digest) != tx.hash:
            problems.add(f"transaction {tx.id} (or its postings) differs from what was hashed")
        prev_hash = tx.hash
        expected_seq += 1
    head = session.get(ChainHead, 1)
    count = len(books.transactions)
    last_id = books.transactions[-1].id if books.transactions else 0
    if head is None:
        problems.add("the chain head row is missing")
    else:
        if head.count != count or head.last_id != last_id:
            problems.add(
                f"chain head records {head.count} transactions ending with id {head.last_id}, "
                f"found {count} ending with id {last_id}"
            )
        if head.last_hash != prev_hash:
            problems.add("chain head hash does not match the last transaction")
    return problems.result("hash_chain", f"{count} transactions chained, head matches")


def _check_rounds(session: Session, books: _Books, since: datetime | None = None) -> CheckResult:
    problems = _Problems()
    seeds = {
        row.id: bytes(row.seed) for row in session.execute(select(ServerSeed.id, ServerSeed.seed))
    }
    kinds = {account_id: info[0] for account_id, info in books.accounts.items()}
    by_round: dict[str, list[LedgerTransaction]] = defaultdict(list)
    for tx in books.transactions:
        if tx.round_id is not None:
            by_round[tx.round_id].append(tx)
    replayed = 0
    query = select(Round).order_by(Round.created_at, Round.id)
    older: set[str] = set()
    if since is not None:
        # Only the rounds started since then are replayed; the older ones still exist.
        query = query.where(Round.created_at >= since)
        older = set(session.scalars(select(Round.id).where(Round.created_at < since)))
    for row in session.scalars(query):
        replayed += 1
        try:
            mismatch = _replay_mismatch(row, seeds[row.server_seed_id])
        except (EngineError, KeyError, ValueError) as exc:
            mismatch = f"cannot be replayed: {exc}"
        if mismatch:
            problems.add(f"round {row.id}: {mismatch}")
        money = _money_mismatch(row, by_round.pop(row.id, []), books, kinds)
        if money:
            problems.add(f"round {row.id}: {money}")
    for round_id in by_round.keys() - older:
        problems.add(f"transactions refer to missing round {round_id}")
    scope = "" if since is None else f" (started since {since.isoformat()})"
    return problems.result(
        "rounds_replay", f"{replayed} rounds{scope} re-dealt and replayed, all match"
    )


def _replay_mismatch(row: Round, server_seed: bytes) -> str | None:
    rules = TableRules.from_dict(row.rules)
    deal = deal_casino_war(server_seed, row.client_seed, int(row.nonce), rules.decks)
    game = CasinoWarRound.start(rules, deal, int(row.ante), int(row.tie_bet))
    if (deal.player.code, deal.dealer.code) != (row.player_card, row.dealer_card):
        cards = f"{row.player_card}/{row.dealer_card}"
        return f"cards {cards} but the seeds deal {deal.player}/{deal.dealer}"
    if row.status == AWAITING_DECISION:
        if game.status.value != AWAITING_DECISION:
            return "awaits a decision but its cards are not a tie"
        if int(row.tie_bet_payout) != game.tie_bet_payout:
            return f"tie bet payout {row.tie_bet_payout} != {game.tie_bet_payout}"
        return None
    if row.status != SETTLED:
        return f"unknown status {row.status}"
    if row.decision is not None:
        game.decide(Decision(row.decision))
    result = game.result
    expected: dict[str, Any] = {
        "war": None if result.war is None else result.war.to_dict(),
        "decision": None if result.decision is None else result.decision.value,
        "bets": result.bets.to_dict(),
        "payouts": result.payouts.to_dict(),
        "net": result.net,
    }
    stored: dict[str, Any] = {
        "war": row.war,
        "decision": row.decision,
        "bets": {"ante": row.ante, "tie_bet": row.tie_bet, "raise": row.raise_amount},
        "payouts": {
            "ante": row.ante_payout,
            "tie_bet": row.tie_bet_payout,
            "raise": row.raise_payout,
        },
        "net": row.net,
    }
    for key, value in expected.items():
        if stored[key] != value:
            return f"{key} recorded as {stored[key]} but the replay gives {value}"
    return None


def _money_mismatch(
    row: Round, txs: list[LedgerTransaction], books: _Books, kinds: dict[int, str]
) -> str | None:
    wallet = in_play = staked = 0
    for tx in txs:
        for _, account_id, amount in books.postings.get(tx.id, []):
            kind = kinds.get(account_id)
            if kind == WALLET:
                wallet += amount
                if tx.kind in ("stake", "raise"):
                    staked -= amount
            elif kind == IN_PLAY:
                in_play += amount
    if staked != int(row.ante) + int(row.tie_bet) + int(row.raise_amount):
        return f"stakes in the ledger {staked} != bets {row.ante}+{row.tie_bet}+{row.raise_amount}"
    if wallet != int(row.net):
        return f"wallet postings {wallet} != net {row.net}"
    open_stake = int(row.ante) if row.status == AWAITING_DECISION else 0
    if in_play != open_stake:
        return f"in-play postings {in_play} != open stake {open_stake}"
    return None


def run_audit(session: Session, *, rounds_since: datetime | None = None) -> AuditReport:
    """Read the whole ledger and check it; read-only. ``rounds_since`` limits the replay of
    rounds to those started since then (the books are always checked whole).

    On PostgreSQL a session that has not started its transaction yet reads everything in one
    REPEATABLE READ snapshot, so the audit can run beside live traffic without seeing half
    of a request. (On SQLite the transaction takes the database lock, with the same effect.)
    """
    if not session.in_transaction() and session.get_bind().dialect.name == "postgresql":
        session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
    books = _load(session)
    sums = _posting_sums(books)
    checks = [
        _check_transactions(books),
        _check_currencies(books, sums),
        _check_balances(books, sums),
        _check_wallets(books),
        _check_in_play(session, books),
        _check_chain(session, books),
        _check_rounds(session, books, rounds_since),
    ]
    return AuditReport(ok=all(check.ok for check in checks), checks=checks)


def format_report(report: AuditReport) -> str:
    width = max(len(check.name) for check in report.checks) if report.checks else 0
    lines = [
        f"[{'ok' if check.ok else 'FAIL':>4}] {check.name:<{width}}  {check.detail}"
        for check in report.checks
    ]
    failed = sum(not check.ok for check in report.checks)
    lines.append("audit: all checks passed" if report.ok else f"audit: {failed} check(s) FAILED")
    return "\n".join(lines)
