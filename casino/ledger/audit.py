"""The ledger audit: every invariant of docs/ledger.md, checked from the rows alone.

The store reads the books (casino.store.books) in one consistent snapshot; everything here is
pure and needs no database. Checks, each reported on its own:

- ``transactions_balanced``: each transaction has >= 2 non-zero postings summing to zero, to
  known accounts of its currency, and moves no wallet but its own player's;
- ``currencies_balanced``: per currency, all postings sum to zero;
- ``balances_match_postings``: each wallet's balance is the sum of its postings, each
  transaction's ``wallet_balance_after`` is the running sum along its wallet's chain, and
  each checkpoint's balances of the shared accounts are the sums of their postings sealed
  so far;
- ``no_negative_wallet``: no wallet balance, now or after any transaction, is below zero;
- ``in_play_matches_open_stakes``: per currency, the in-play account (the sum of its
  postings) holds exactly the antes of the rounds awaiting a decision;
- ``wallet_chains``: each wallet's chain is gapless from 1, every link points at its
  predecessor and hashes its row and postings, and the wallet's head is its last link;
- ``checkpoints``: the checkpoints chain from 1, their commit ranges follow one another,
  each is signed by a trusted key over its recomputed hash, the transactions in its range are
  exactly the ones it counted and hashed into its Merkle root, and in every wallet's chain
  the sealed transactions come before the unsealed ones;
- ``rounds_replay``: every round re-dealt from its seeds and re-played through the engine
  (``replay_round``): cards, decision, bets, payouts and net must match the round, and its
  transactions must take its stakes and pay its payouts.
"""

from __future__ import annotations

import bisect
import multiprocessing
import os
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from casino.engine.casino_war import Decision, RoundStatus, TableRules, replay_round
from casino.engine.errors import EngineError
from casino.ledger.accounts import IN_PLAY, WALLET
from casino.ledger.chain import GENESIS_HASH, content_digest, link_hash
from casino.ledger.checkpoints import Checkpoint, VerifyingKey, recomputed_hash
from casino.ledger.merkle import merkle_root, transaction_leaf

MAX_DETAILS = 10
AWAITING_DECISION = RoundStatus.AWAITING_DECISION.value
SETTLED = RoundStatus.SETTLED.value


@dataclass(frozen=True)
class AccountRow:
    id: int
    key: str
    kind: str
    currency: str
    player_id: str | None
    balance: int | None
    chain_length: int
    chain_hash: str


@dataclass(frozen=True)
class TransactionRow:
    id: int
    kind: str
    currency: str
    player_id: str
    wallet_id: int
    round_id: str | None
    reference: str | None
    wallet_balance_after: int
    created_at: Any
    wallet_seq: int
    prev_hash: str
    hash: str
    commit_seq: int
    postings: list[tuple[int, int, int]] = field(default_factory=list)  # leg, account, amount


@dataclass(frozen=True)
class RoundRowForAudit:
    id: str
    player_id: str
    currency: str
    rules: TableRules
    status: str
    server_seed: bytes
    client_seed: str
    nonce: int
    ante: int
    tie_bet: int
    raise_amount: int
    player_card: str
    dealer_card: str
    war: Mapping[str, Any] | None
    decision: str | None
    ante_payout: int
    tie_bet_payout: int
    raise_payout: int
    net: int


@dataclass
class Books:
    accounts: dict[int, AccountRow]
    transactions: list[TransactionRow]
    checkpoints: list[Checkpoint]
    rounds: Iterable[RoundRowForAudit]
    open_stakes: dict[str, int] = field(default_factory=dict)  # currency -> antes in play
    rounds_since: datetime | None = None  # ``rounds`` holds only those started since then
    orphan_postings: list[int] = field(default_factory=list)  # tx ids with no transaction


@dataclass(frozen=True)
class CheckResult:
    name: str
    ok: bool
    detail: str
    failures: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "detail": self.detail, "failures": self.failures}


@dataclass(frozen=True)
class AuditReport:
    ok: bool
    checks: list[CheckResult]

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "checks": [check.to_dict() for check in self.checks]}


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
        return CheckResult(name, False, "; ".join(self.items) + more, self.count)


# --- the books -------------------------------------------------------------------------


def _check_transactions(books: Books) -> CheckResult:
    problems = _Problems()
    for tx in books.transactions:
        legs = tx.postings
        if len(legs) < 2:
            problems.add(f"transaction {tx.id} has {len(legs)} posting(s)")
        total = sum(amount for _, _, amount in legs)
        if total != 0:
            problems.add(f"transaction {tx.id} postings sum to {total}")
        wallets = set()
        for leg, account_id, amount in legs:
            if amount == 0:
                problems.add(f"transaction {tx.id} leg {leg} is zero")
            account = books.accounts.get(account_id)
            if account is None:
                problems.add(f"transaction {tx.id} leg {leg} posts to unknown account {account_id}")
                continue
            if account.currency != tx.currency:
                problems.add(f"transaction {tx.id} leg {leg} posts to a foreign account")
            if account.kind == WALLET:
                wallets.add(account_id)
        wallet = books.accounts.get(tx.wallet_id)
        # Every transaction belongs to its player's wallet chain and moves no other wallet
        # (a lost round's settlement written before per-wallet chains moved none at all).
        if not wallets <= {tx.wallet_id} or wallet is None or wallet.player_id != tx.player_id:
            problems.add(f"transaction {tx.id} moves a wallet other than its player's")
    for tx_id in books.orphan_postings:
        problems.add(f"postings of missing transaction {tx_id}")
    return problems.result(
        "transactions_balanced", f"{len(books.transactions)} transactions, each sums to zero"
    )


def _posting_sums(books: Books) -> dict[int, int]:
    sums: dict[int, int] = defaultdict(int)
    for tx in books.transactions:
        for _, account_id, amount in tx.postings:
            sums[account_id] += amount
    return sums


def _check_currencies(books: Books, sums: Mapping[int, int]) -> CheckResult:
    problems = _Problems()
    by_currency: dict[str, int] = defaultdict(int)
    for account in books.accounts.values():
        by_currency[account.currency] += sums.get(account.id, 0)
    for currency in sorted(by_currency):
        if by_currency[currency]:
            problems.add(f"{currency} postings sum to {by_currency[currency]}")
    names = ", ".join(sorted(by_currency)) or "none"
    return problems.result("currencies_balanced", f"currencies {names} each sum to zero")


def _wallet_chains(books: Books) -> dict[int, list[TransactionRow]]:
    chains: dict[int, list[TransactionRow]] = defaultdict(list)
    for tx in books.transactions:
        chains[tx.wallet_id].append(tx)
    for chain in chains.values():
        chain.sort(key=lambda tx: tx.wallet_seq)
    return chains


def _wallet_delta(tx: TransactionRow) -> int:
    return sum(amount for _, account_id, amount in tx.postings if account_id == tx.wallet_id)


def _check_balances(
    books: Books, sums: Mapping[int, int], chains: Mapping[int, list[TransactionRow]]
) -> CheckResult:
    problems = _Problems()
    wallets = 0
    for account in sorted(books.accounts.values(), key=lambda a: a.id):
        if account.kind != WALLET:
            continue
        wallets += 1
        if account.balance != sums.get(account.id, 0):
            problems.add(
                f"wallet {account.id} ({account.player_id} {account.currency}) balance "
                f"{account.balance} != postings {sums.get(account.id, 0)}"
            )
        running = 0
        for tx in chains.get(account.id, []):
            running += _wallet_delta(tx)
            if tx.wallet_balance_after != running:
                problems.add(
                    f"transaction {tx.id} says the wallet held {tx.wallet_balance_after} after "
                    f"it, its postings say {running}"
                )
                running = tx.wallet_balance_after
    # The shared accounts' balances rolled up by each checkpoint.
    by_seq = sorted(books.transactions, key=lambda tx: tx.commit_seq)
    commit_seqs = [tx.commit_seq for tx in by_seq]
    keys = {account.id: account.key for account in books.accounts.values()}
    kinds = {account.id: account.kind for account in books.accounts.values()}
    rolled: dict[str, int] = defaultdict(int)
    done = 0
    for checkpoint in books.checkpoints:
        end = bisect.bisect_left(commit_seqs, checkpoint.commit_to)
        for tx in by_seq[done:end]:
            for _, account_id, amount in tx.postings:
                if kinds.get(account_id, WALLET) != WALLET:
                    rolled[keys[account_id]] += amount
        done = max(done, end)
        expected = {key: value for key, value in rolled.items() if value}
        recorded = {key: value for key, value in checkpoint.balances.items() if value}
        if expected != recorded:
            problems.add(
                f"checkpoint {checkpoint.seq} records balances {recorded}, "
                f"the postings it sealed give {expected}"
            )
    return problems.result(
        "balances_match_postings",
        f"{wallets} wallets and {len(books.checkpoints)} checkpoints match their postings",
    )


def _check_wallets(books: Books) -> CheckResult:
    problems = _Problems()
    wallets = 0
    for account in books.accounts.values():
        if account.kind == WALLET:
            wallets += 1
            if account.balance is None or account.balance < 0:
                problems.add(f"wallet {account.id} ({account.player_id}) is {account.balance}")
    for tx in books.transactions:
        if tx.wallet_balance_after < 0:
            problems.add(f"transaction {tx.id} leaves its wallet at {tx.wallet_balance_after}")
    return problems.result("no_negative_wallet", f"{wallets} wallets, none ever negative")


def _check_in_play(
    books: Books, sums: Mapping[int, int], open_stakes: Mapping[str, int]
) -> CheckResult:
    problems = _Problems()
    in_play: dict[str, int] = defaultdict(int)
    for account in books.accounts.values():
        if account.kind == IN_PLAY:
            in_play[account.currency] += sums.get(account.id, 0)
    for currency in sorted(set(open_stakes) | set(in_play)):
        if in_play[currency] != open_stakes.get(currency, 0):
            problems.add(
                f"{currency} in-play {in_play[currency]} != open stakes "
                f"{open_stakes.get(currency, 0)}"
            )
    total = sum(open_stakes.values())
    return problems.result(
        "in_play_matches_open_stakes", f"in-play equals the open stakes ({total} in total)"
    )


def transaction_digest(tx: TransactionRow, keys: Mapping[int, str]) -> str:
    return content_digest(
        tx_id=tx.id,
        kind=tx.kind,
        currency=tx.currency,
        player_id=tx.player_id,
        round_id=tx.round_id,
        reference=tx.reference,
        wallet_balance_after=tx.wallet_balance_after,
        created_at=tx.created_at,
        postings=[
            (leg, keys.get(account, f"?{account}"), amount) for leg, account, amount in tx.postings
        ],
    )


def _check_chains(books: Books, chains: Mapping[int, list[TransactionRow]]) -> CheckResult:
    problems = _Problems()
    keys = {account.id: account.key for account in books.accounts.values()}
    linked = 0
    for account in books.accounts.values():
        if account.kind != WALLET:
            if account.chain_length:
                problems.add(f"shared account {account.key} claims a chain")
            continue
        prev_hash = GENESIS_HASH
        expected_seq = 1
        for tx in chains.get(account.id, []):
            linked += 1
            if tx.wallet_seq != expected_seq:
                problems.add(
                    f"wallet {account.id}: chain jumps from {expected_seq - 1} to {tx.wallet_seq}"
                )
                expected_seq = tx.wallet_seq
            if tx.prev_hash != prev_hash:
                problems.add(f"transaction {tx.id} does not link to its wallet's previous one")
            if link_hash(tx.prev_hash, tx.wallet_seq, transaction_digest(tx, keys)) != tx.hash:
                problems.add(f"transaction {tx.id} (or its postings) differs from what was hashed")
            prev_hash = tx.hash
            expected_seq += 1
        if (account.chain_length, account.chain_hash) != (expected_seq - 1, prev_hash):
            problems.add(
                f"wallet {account.id}: head says {account.chain_length} links, the chain has "
                f"{expected_seq - 1} (or its last hash differs)"
            )
    for wallet_id in chains.keys() - books.accounts.keys():
        problems.add(f"transactions of unknown wallet {wallet_id}")
    return problems.result("wallet_chains", f"{linked} transactions chained in their wallets")


def _check_checkpoints(
    books: Books, chains: Mapping[int, list[TransactionRow]], trusted: Sequence[VerifyingKey]
) -> CheckResult:
    problems = _Problems()
    keys = {key.key_id: key for key in trusted}
    by_seq = sorted(books.transactions, key=lambda tx: (tx.commit_seq, tx.id))
    commit_seqs = [tx.commit_seq for tx in by_seq]
    prev_hash = GENESIS_HASH
    prev_to: int | None = None
    total = 0
    sealed_until = 0
    for n, checkpoint in enumerate(books.checkpoints, start=1):
        name = f"checkpoint {checkpoint.seq}"
        if checkpoint.seq != n:
            problems.add(f"{name} is not number {n}")
        if checkpoint.prev_hash != prev_hash:
            problems.add(f"{name} does not link to the previous checkpoint")
        if prev_to is not None and checkpoint.commit_from != prev_to:
            problems.add(f"{name} does not start where the previous one ended")
        if recomputed_hash(checkpoint) != checkpoint.hash:
            problems.add(f"{name} was edited after it was sealed")
        key = keys.get(checkpoint.key_id)
        if key is None:
            problems.add(f"{name} is signed by an untrusted key {checkpoint.key_id}")
        elif not key.verifies(checkpoint.hash, checkpoint.signature):
            problems.add(f"{name} has an invalid signature")
        lo = bisect.bisect_left(commit_seqs, checkpoint.commit_from)
        hi = bisect.bisect_left(commit_seqs, checkpoint.commit_to)
        batch = by_seq[lo:hi]
        total += len(batch)
        if len(batch) != checkpoint.tx_count or total != checkpoint.total_count:
            problems.add(
                f"{name} sealed {checkpoint.tx_count} transactions, its range now holds "
                f"{len(batch)}"
            )
        if merkle_root([transaction_leaf(tx.id, tx.hash) for tx in batch]) != checkpoint.root:
            problems.add(f"{name}: the transactions it sealed were changed, added or removed")
        prev_hash = checkpoint.hash
        prev_to = checkpoint.commit_to
        sealed_until = checkpoint.commit_to
    if books.checkpoints:
        first = books.checkpoints[0].commit_from
        early = bisect.bisect_left(commit_seqs, first)
        if early:
            problems.add(f"{early} transaction(s) lie before the first checkpoint's range")
    # In each wallet's chain, sealed transactions come first: one inserted behind a seal
    # (unsealed, but placed before sealed links) is caught even if it kept the links intact.
    for wallet_id, chain in chains.items():
        seen_unsealed = False
        for tx in chain:
            is_sealed = tx.commit_seq < sealed_until
            if is_sealed and seen_unsealed:
                problems.add(f"wallet {wallet_id}: an unsealed transaction precedes sealed ones")
                break
            seen_unsealed = seen_unsealed or not is_sealed
    sealed = bisect.bisect_left(commit_seqs, sealed_until) if books.checkpoints else 0
    return problems.result(
        "checkpoints",
        f"{len(books.checkpoints)} checkpoints signed and matching; {sealed} of "
        f"{len(by_seq)} transactions sealed",
    )


# --- rounds ----------------------------------------------------------------------------


def replay_mismatch(row: RoundRowForAudit) -> str | None:
    """What a stored round says that its seeds and rules do not give, if anything."""
    game = replay_round(
        row.rules,
        row.server_seed,
        row.client_seed,
        row.nonce,
        row.ante,
        row.tie_bet,
        None if row.decision is None else Decision(row.decision),
    )
    deal = game.deal
    if deal.player.code != row.player_card or deal.dealer.code != row.dealer_card:
        cards = f"{row.player_card}/{row.dealer_card}"
        return f"cards {cards} but the seeds deal {deal.player}/{deal.dealer}"
    if game.status.value != row.status:
        return f"recorded as {row.status} but the replay is {game.status.value}"
    if row.status == AWAITING_DECISION:
        if row.tie_bet_payout != game.tie_bet_payout:
            return f"tie bet payout {row.tie_bet_payout} != {game.tie_bet_payout}"
        return None
    result = game.result
    war = None if result.war is None else result.war.to_dict()
    if (None if row.war is None else dict(row.war)) != war:
        return f"war recorded as {row.war} but the replay gives {war}"
    bets, payouts = result.bets, result.payouts
    if (row.ante, row.tie_bet, row.raise_amount) != (bets.ante, bets.tie_bet, bets.raise_):
        return (
            f"bets recorded as {row.ante}/{row.tie_bet}/{row.raise_amount} but the replay "
            f"gives {bets.to_dict()}"
        )
    recorded = (row.ante_payout, row.tie_bet_payout, row.raise_payout)
    if recorded != (payouts.ante, payouts.tie_bet, payouts.raise_):
        return f"payouts recorded as {recorded} but the replay gives {payouts.to_dict()}"
    if row.net != result.net:
        return f"net recorded as {row.net} but the replay gives {result.net}"
    return None


def _replay_all(rows: list[RoundRowForAudit]) -> list[tuple[int, str]]:
    """(index, what is wrong) for the rounds of ``rows`` that do not replay."""
    found = []
    for index, row in enumerate(rows):
        try:
            mismatch = replay_mismatch(row)
        except (EngineError, KeyError, ValueError) as exc:
            mismatch = f"cannot be replayed: {exc}"
        if mismatch:
            found.append((index, mismatch))
    return found


#: Rounds per replay task, and fewer than this are replayed in this process.
_CHUNK = 5_000


def _replays(rows: list[RoundRowForAudit], workers: int) -> Iterator[list[tuple[int, str]]]:
    """The replay of ``rows`` in chunks: on ``workers`` processes when there are many (the
    replay is pure CPU; the books checks need one process, the rounds do not)."""
    chunks = [rows[i : i + _CHUNK] for i in range(0, len(rows), _CHUNK)]
    if workers <= 1 or len(chunks) < 2:
        yield from map(_replay_all, chunks)
        return
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        yield from pool.map(_replay_all, chunks)


def _money_mismatch(
    row: RoundRowForAudit, txs: list[TransactionRow], kinds: Mapping[int, str]
) -> str | None:
    """The round's transactions must take its stakes from its wallet, pay its payouts back
    and hold its ante in play exactly while it awaits a decision."""
    staked = paid = in_play = 0
    for tx in txs:
        for _, account_id, amount in tx.postings:
            kind = kinds.get(account_id)
            if kind == WALLET:
                if amount < 0:
                    staked -= amount
                else:
                    paid += amount
            elif kind == IN_PLAY:
                in_play += amount
    bets = row.ante + row.tie_bet + row.raise_amount
    if staked != bets:
        return f"stakes in the ledger {staked} != bets {row.ante}+{row.tie_bet}+{row.raise_amount}"
    settled_payouts = row.tie_bet_payout + (
        row.ante_payout + row.raise_payout if row.status == SETTLED else 0
    )
    if paid != settled_payouts:
        return f"payouts in the ledger {paid} != the round's {settled_payouts}"
    if paid - staked != row.net:
        return f"wallet postings {paid - staked} != net {row.net}"
    open_stake = row.ante if row.status == AWAITING_DECISION else 0
    if in_play != open_stake:
        return f"in-play postings {in_play} != open stake {open_stake}"
    return None


def _check_rounds(books: Books, workers: int) -> CheckResult:
    problems = _Problems()
    kinds = {account.id: account.kind for account in books.accounts.values()}
    by_round: dict[str, list[TransactionRow]] = defaultdict(list)
    for tx in books.transactions:
        if tx.round_id is not None:
            by_round[tx.round_id].append(tx)
    rows = list(books.rounds)
    replayed = len(rows)
    for chunk_start, found in enumerate(_replays(rows, workers)):
        for index, mismatch in found:
            problems.add(f"round {rows[chunk_start * _CHUNK + index].id}: {mismatch}")
    for row in rows:
        money = _money_mismatch(row, by_round.pop(row.id, []), kinds)
        if money:
            problems.add(f"round {row.id}: {money}")
    if books.rounds_since is None:
        for round_id in by_round:
            problems.add(f"transactions refer to missing round {round_id}")
        which = f"{replayed} rounds"
    else:
        which = f"{replayed} rounds (started since {books.rounds_since.isoformat()})"
    return problems.result("rounds_replay", f"{which} re-dealt and replayed, all match")


def audit_books(
    books: Books, trusted: Sequence[VerifyingKey], *, workers: int | None = None
) -> AuditReport:
    """Every check of the books; the rounds are replayed on ``workers`` processes (default:
    one per CPU)."""
    if workers is None:
        workers = os.cpu_count() or 1
    sums = _posting_sums(books)
    chains = _wallet_chains(books)
    checks = [
        _check_transactions(books),
        _check_currencies(books, sums),
        _check_balances(books, sums, chains),
        _check_wallets(books),
        _check_in_play(books, sums, books.open_stakes),
        _check_chains(books, chains),
        _check_checkpoints(books, chains, trusted),
        _check_rounds(books, workers),
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
