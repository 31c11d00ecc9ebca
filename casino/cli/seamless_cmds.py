"""Seamless-wallet operations: the worker that sends pending wins and rollbacks, and the
reconciliation of a day against the operator's own records (docs/integration.md §6-§7)."""

from __future__ import annotations

import logging
import signal
import sys
import time
from datetime import timedelta
from pathlib import Path
from types import FrameType

import click

from casino.cli.ops_cmds import _db_option, _unit_of_work, _url, parse_duration
from config import wallet_retry_window


@click.command("wallet-worker")
@_db_option
@click.option(
    "--every",
    default=0.5,
    show_default=True,
    type=click.FloatRange(0.01, 60),
    help="Seconds between scans when nothing was due.",
)
@click.option(
    "--retry-window",
    default=None,
    help="How long a win or rollback is retried before it needs attention "
    "(default: env CASINO_WALLET_RETRY_WINDOW, else 24h).",
)
@click.option("--batch", default=50, show_default=True, type=click.IntRange(1, 1000))
@click.option("--once", is_flag=True, help="One scan, then exit (cron, tests).")
def wallet_worker(
    url: str | None, every: float, retry_window: str | None, batch: int, once: bool
) -> None:
    """Send every pending win and rollback of every seamless operator until the wallet
    answers, with backoff (1 s, 2 s, 4 s … at most 5 min); run as many as you like."""
    import os

    from casino.service.wallet_outbox import run_once
    from casino.store.database import Database

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    window = (
        parse_duration(retry_window)
        if retry_window
        else timedelta(seconds=wallet_retry_window(os.environ))
    )
    database = Database.open(_url(url))
    stopping = False

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        while not stopping:
            sent = run_once(database.unit_of_work, limit=batch, window=window)
            if once:
                click.echo(f"{sent} call(s) sent")
                return
            if sent == 0:
                time.sleep(every)
    finally:
        database.dispose()


@click.command("reconcile")
@_db_option
@click.option("--operator", "operator", required=True, help="The operator's id.")
@click.option("--date", "day", required=True, help="The UTC day, YYYY-MM-DD.")
@click.option(
    "--against",
    "against",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The operator's records of its wallet calls (CSV; docs/integration.md §7).",
)
def reconcile(url: str | None, operator: str, day: str, against: Path) -> None:
    """Compare a day of an operator's wallet calls with its own records; list every
    difference, exit 1 if there is any."""
    from casino.service.errors import ServiceError
    from casino.service.reconciliation import compare, day_summary, read_theirs

    try:
        with against.open(newline="") as handle:
            theirs = read_theirs(handle)
    except (KeyError, ValueError) as error:
        raise click.BadParameter(f"not the records' CSV: {error}", param_hint="--against") from None
    try:
        with _unit_of_work(url, operator) as uow:
            if uow.operators.get(operator) is None:
                raise click.BadParameter(f"no operator {operator!r}", param_hint="--operator")
            summary = day_summary(uow, day)
            differences = compare(uow, day, theirs)
    except ServiceError as error:
        raise click.BadParameter(error.detail, param_hint="--date") from None
    for entry in summary["currencies"]:
        parts = [
            f"{name} {entry[name]['count']}/{entry[name]['amount']}"
            for name in ("bets", "wins", "rollbacks", "unknown_bets", "pending", "needs_attention")
        ]
        click.echo(f"{entry['currency']}: " + ", ".join(parts))
    for difference in differences:
        click.echo(f"DIFFERENCE {difference}")
    click.echo(f"{len(differences)} difference(s)")
    if differences:
        sys.exit(1)


def register(group: click.Group) -> None:
    group.add_command(wallet_worker)
    group.add_command(reconcile)
