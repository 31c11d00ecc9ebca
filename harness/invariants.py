"""What must hold after any run, however many faults and retries it saw.

Checked three ways: ``casino audit`` run as a subprocess on the database; SQL over the ledger
(no wallet ever negative, per-round money, no half-settled round, no stake without its round);
and the clients' own ledger of API answers against both the API's wallets and the database
(no retry charged twice, no charge the client never heard of).
"""

from __future__ import annotations

import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from harness import pg
from harness.load import ClientLedger, Player
from harness.sealer import casino_command, new_record, sealer_environment

REPO_ROOT = Path(__file__).resolve().parents[1]


@dataclass
class AuditResult:
    returncode: int
    output: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def run_audit(database_url: str, timeout: float = 300.0) -> AuditResult:
    """Seal what the run left unsealed (as a new sealer host would: ``--init`` trusts the
    checkpoints it finds after checking their chain and signatures), then ``casino audit``,
    which checks them all."""
    env = sealer_environment(database_url, new_record())
    sealed = subprocess.run(
        [*casino_command(), "seal", "--init"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if sealed.returncode:
        return AuditResult(sealed.returncode, (sealed.stdout + sealed.stderr).strip())
    done = subprocess.run(
        [*casino_command(), "audit"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return AuditResult(done.returncode, (done.stdout + done.stderr).strip())


@dataclass
class InvariantReport:
    failures: list[str] = field(default_factory=list)
    audit: AuditResult | None = None
    rounds_in_db: int = 0
    settled_in_db: int = 0
    open_in_db: int = 0
    transactions_in_db: int = 0

    @property
    def ok(self) -> bool:
        return not self.failures and self.audit is not None and self.audit.ok

    def fail(self, text: str) -> None:
        self.failures.append(text)


def _rows(url: str, sql: str) -> list[tuple[object, ...]]:
    return pg.fetch_all(url, sql)


def check_ledger_sql(url: str, report: InvariantReport) -> None:
    """Database-only invariants: they hold whatever the clients saw."""
    (negative,) = _rows(url, "SELECT count(*) FROM accounts WHERE kind = 'wallet' AND balance < 0")
    if negative[0]:
        report.fail(f"{negative[0]} wallets are negative now")
    # Every wallet's running balance, replayed posting by posting in ledger order.
    (lowest,) = _rows(
        url,
        """
        SELECT coalesce(min(running), 0) FROM (
          SELECT sum(p.amount) OVER (PARTITION BY p.account_id ORDER BY p.transaction_id, p.leg)
                 AS running
          FROM postings p JOIN accounts a ON a.id = p.account_id WHERE a.kind = 'wallet') s""",
    )
    if int(lowest[0]) < 0:  # type: ignore[call-overload]
        report.fail(f"a wallet's running balance went to {lowest[0]}")
    (lowest_after,) = _rows(
        url, "SELECT coalesce(min(wallet_balance_after), 0) FROM ledger_transactions"
    )
    if int(lowest_after[0]) < 0:  # type: ignore[call-overload]
        report.fail(f"a transaction left a wallet at {lowest_after[0]}")

    wrong_net = _rows(
        url,
        """
        SELECT r.id, r.net, coalesce(sum(p.amount), 0)
        FROM rounds r
        LEFT JOIN ledger_transactions t ON t.round_id = r.id
        LEFT JOIN postings p ON p.transaction_id = t.id
             AND p.account_id IN (SELECT id FROM accounts WHERE kind = 'wallet')
        GROUP BY r.id, r.net HAVING r.net <> coalesce(sum(p.amount), 0)""",
    )
    for rid, net, moved in wrong_net[:10]:
        report.fail(f"round {rid}: net {net} but its wallet postings sum to {moved}")

    in_play = _rows(
        url,
        """
        SELECT r.id, r.status, r.settled_at IS NOT NULL, coalesce(sum(p.amount), 0)
        FROM rounds r
        LEFT JOIN ledger_transactions t ON t.round_id = r.id
        LEFT JOIN postings p ON p.transaction_id = t.id
             AND p.account_id IN (SELECT id FROM accounts WHERE kind = 'in_play')
        GROUP BY r.id, r.status, r.settled_at""",
    )
    for rid, status, has_settled_at, held in in_play:
        if status == "settled" and (held != 0 or not has_settled_at):
            report.fail(
                f"half-settled round {rid}: in play {held}, settled_at set {has_settled_at}"
            )
        if status == "awaiting_decision" and (int(held) <= 0 or has_settled_at):  # type: ignore[call-overload]
            report.fail(f"open round {rid} holds {held} in play, settled_at set {has_settled_at}")
    report.rounds_in_db = len(in_play)
    report.settled_in_db = sum(1 for row in in_play if row[1] == "settled")
    report.open_in_db = report.rounds_in_db - report.settled_in_db

    (orphans,) = _rows(
        url,
        """
        SELECT count(*) FROM ledger_transactions
        WHERE kind NOT IN ('deposit', 'withdrawal') AND round_id IS NULL""",
    )
    if orphans[0]:
        report.fail(f"{orphans[0]} game transactions have no round")
    # One transaction opens each round: a bet settled at once, or the stake of a tie.
    stakes = _rows(
        url,
        """
        SELECT r.id, count(t.id) FROM rounds r
        LEFT JOIN ledger_transactions t ON t.round_id = r.id AND t.kind IN ('bet', 'stake')
        GROUP BY r.id HAVING count(t.id) <> 1""",
    )
    for rid, count in stakes[:10]:
        report.fail(f"round {rid} has {count} opening transactions")
    foreign = _rows(
        url,
        """
        SELECT t.id FROM ledger_transactions t JOIN rounds r ON r.id = t.round_id
        WHERE t.player_id IS DISTINCT FROM r.player_id""",
    )
    if foreign:
        report.fail(f"{len(foreign)} round transactions belong to another player than the round")
    (count,) = _rows(url, "SELECT count(*) FROM ledger_transactions")
    report.transactions_in_db = int(count[0])  # type: ignore[call-overload]


def db_balances(url: str) -> dict[str, tuple[int, int]]:
    """Per player: (wallet balance, deposits - withdrawals + settled nets + open rounds' effect)."""
    rows = _rows(
        url,
        """
        SELECT a.player_id, a.balance,
          coalesce((SELECT sum(p.amount) FROM postings p
                    JOIN ledger_transactions t ON t.id = p.transaction_id
                    WHERE p.account_id = a.id AND t.kind IN ('deposit', 'withdrawal')), 0),
          coalesce((SELECT sum(r.net) FROM rounds r WHERE r.player_id = a.player_id
                    AND r.currency = a.currency AND r.status = 'settled'), 0),
          coalesce((SELECT sum(r.tie_bet_payout - r.ante - r.tie_bet - r.raise_amount)
                    FROM rounds r WHERE r.player_id = a.player_id
                    AND r.currency = a.currency AND r.status = 'awaiting_decision'), 0)
        FROM accounts a WHERE a.kind = 'wallet' AND a.currency = 'EUR'""",
    )
    return {
        str(pid): (int(bal), int(cash) + int(settled) + int(open_))  # type: ignore[call-overload]
        for pid, bal, cash, settled, open_ in rows
    }


def check_against_clients(
    url: str,
    ledger: ClientLedger,
    players: list[Player],
    api_balances: dict[str, int],
    report: InvariantReport,
) -> None:
    expected = ledger.expected_balances()
    in_db = db_balances(url)
    for p in players:
        model = expected.get(p.id, 0)
        served = api_balances.get(p.id)
        stored, formula = in_db.get(p.id, (0, 0))
        if not model == served == stored == formula:
            report.fail(
                f"player {p.index} {p.id}: clients' ledger {model}, API wallet {served}, "
                f"DB wallet {stored}, DB deposits-withdrawals+nets {formula}"
            )
    db_rounds = Counter(str(pid) for (pid,) in _rows(url, "SELECT player_id FROM rounds"))
    seen_rounds = Counter(v["player_id"] for v in ledger.rounds.values())
    for p in players:
        if db_rounds[p.id] != seen_rounds[p.id]:
            report.fail(
                f"player {p.index}: {db_rounds[p.id]} rounds in the database, "
                f"{seen_rounds[p.id]} known to its clients (a retry charged twice, or a lost one)"
            )
    db_money = Counter(
        (str(pid), str(kind))
        for pid, kind in _rows(
            url,
            """SELECT player_id, kind FROM ledger_transactions
                                       WHERE kind IN ('deposit', 'withdrawal')""",
        )
    )
    for p in players:
        deposits = sum(1 for k in ledger.deposits if ledger.owner[k] == p.id)
        withdrawals = sum(1 for k in ledger.withdrawals if ledger.owner[k] == p.id)
        if (db_money[p.id, "deposit"], db_money[p.id, "withdrawal"]) != (deposits, withdrawals):
            report.fail(
                f"player {p.index}: database has {db_money[p.id, 'deposit']} deposits and "
                f"{db_money[p.id, 'withdrawal']} withdrawals, clients got {deposits} and "
                f"{withdrawals}"
            )
    if ledger.lowest_balance_seen is not None and ledger.lowest_balance_seen < 0:
        report.fail(f"a response showed balance_after {ledger.lowest_balance_seen}")


def check_all(
    url: str, ledger: ClientLedger, players: list[Player], api_balances: dict[str, int]
) -> InvariantReport:
    report = InvariantReport()
    check_ledger_sql(url, report)
    check_against_clients(url, ledger, players, api_balances, report)
    report.audit = run_audit(url)
    if not report.audit.ok:
        report.fail(
            f"casino audit exited {report.audit.returncode}:\n{report.audit.output[-2000:]}"
        )
    return report
