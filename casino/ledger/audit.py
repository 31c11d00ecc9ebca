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
- ``checkpoints`` and ``unsealed``: the signed checkpoints, and what they leave unsealed
  (casino.ledger.audit_seals);
- ``rounds_replay``: every round re-dealt and re-played (casino.ledger.audit_rounds).

Each operator's books are audited on their own (its accounts, transactions, checkpoint chain
and rounds); ``merge_reports`` puts several operators' audits into one report.
"""

from __future__ import annotations

import bisect
import os
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from casino.ledger.accounts import IN_PLAY, WALLET
from casino.ledger.audit_rounds import check_rounds, replay_mismatch
from casino.ledger.audit_seals import check_checkpoints, check_unsealed, sealing
from casino.ledger.books import (
    AccountRow,
    Books,
    CheckResult,
    Problems,
    RoundRowForAudit,
    TransactionRow,
)
from casino.ledger.chain import GENESIS_HASH, content_digest, link_hash
from casino.ledger.checkpoints import TrustedKey, VerifyingKey, as_trusted

__all__ = [
    "AccountRow",
    "AuditReport",
    "Books",
    "CheckResult",
    "RoundRowForAudit",
    "TransactionRow",
    "audit_books",
    "format_report",
    "merge_reports",
    "replay_mismatch",
    "transaction_digest",
]


@dataclass(frozen=True)
class AuditReport:
    ok: bool
    checks: list[CheckResult]
    sealed: int = 0  # transactions a checkpoint seals
    unsealed: int = 0  # and those none seals yet

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "transactions": {"sealed": self.sealed, "unsealed": self.unsealed},
            "checks": [check.to_dict() for check in self.checks],
        }


def _check_transactions(books: Books) -> CheckResult:
    problems = Problems()
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
    problems = Problems()
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
    problems = Problems()
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
    problems = Problems()
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
    problems = Problems()
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
    problems = Problems()
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


def audit_books(
    books: Books,
    trusted: Sequence[VerifyingKey | TrustedKey],
    *,
    workers: int | None = None,
    now: datetime | None = None,
    unsealed_max_age: timedelta | None = None,
) -> AuditReport:
    """Every check of the books; the rounds are replayed on ``workers`` processes (default:
    one per CPU). A transaction still unsealed ``unsealed_max_age`` after it was made, at
    ``now``, fails the audit (no bound: the unsealed ones are only counted)."""
    if workers is None:
        workers = os.cpu_count() or 1
    sums = _posting_sums(books)
    chains = _wallet_chains(books)
    seals = sealing(books)
    checks = [
        _check_transactions(books),
        _check_currencies(books, sums),
        _check_balances(books, sums, chains),
        _check_wallets(books),
        _check_in_play(books, sums, books.open_stakes),
        _check_chains(books, chains),
        check_checkpoints(books, chains, as_trusted(trusted), seals.sealed_until),
        check_unsealed(seals, now=now, max_age=unsealed_max_age),
        check_rounds(books, workers),
    ]
    return AuditReport(
        ok=all(check.ok for check in checks),
        checks=checks,
        sealed=seals.sealed,
        unsealed=seals.unsealed,
    )


def merge_reports(reports: Mapping[str, AuditReport]) -> AuditReport:
    """The audit of several operators' books (docs/operators.md) as one report: a check
    passes when it passes for every operator; its detail names each operator's. The report
    of one operator alone is that operator's report."""
    if len(reports) == 1:
        return next(iter(reports.values()))
    checks = []
    names = [check.name for check in next(iter(reports.values()), AuditReport(True, [])).checks]
    for n, name in enumerate(names):
        found = {operator: report.checks[n] for operator, report in reports.items()}
        checks.append(
            CheckResult(
                name,
                all(check.ok for check in found.values()),
                "; ".join(f"{operator}: {check.detail}" for operator, check in found.items()),
                sum(check.failures for check in found.values()),
            )
        )
    return AuditReport(
        ok=all(report.ok for report in reports.values()),
        checks=checks,
        sealed=sum(report.sealed for report in reports.values()),
        unsealed=sum(report.unsealed for report in reports.values()),
    )


def format_report(report: AuditReport) -> str:
    width = max(len(check.name) for check in report.checks) if report.checks else 0
    lines = [
        f"[{'ok' if check.ok else 'FAIL':>4}] {check.name:<{width}}  {check.detail}"
        for check in report.checks
    ]
    failed = sum(not check.ok for check in report.checks)
    lines.append("audit: all checks passed" if report.ok else f"audit: {failed} check(s) FAILED")
    return "\n".join(lines)
