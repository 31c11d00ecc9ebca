"""``casino time-out-rounds``: the decision clock's scheduler.

A round past its decision deadline is decided by the clock whenever it is next touched (the
player's request, any read, ``resolve-stale``); this command does it for the rounds nobody
touches, so the books close at the deadline. Run it in a loop (``--every 5``) beside the
API, or once from cron / a systemd timer (docs/api-rounds.md, docs/operations.md).
"""

from __future__ import annotations

import time

import click

from casino.cli.ops_cmds import _db_option, _unit_of_work


def time_out_once(url: str | None) -> int:
    from casino.service.operators import operator_ids
    from casino.service.rounds import time_out_due

    with _unit_of_work(url, None) as platform:
        operators = operator_ids(platform)
    total = 0
    for operator in operators:  # each operator's rounds in a transaction of its own
        with _unit_of_work(url, operator) as uow:
            rounds = time_out_due(uow)
            uow.commit()
        for view in rounds:
            click.echo(f"{view.id}  {operator}  player {view.player_id}  timeout  net {view.net}")
        total += len(rounds)
    return total


@click.command("time-out-rounds")
@_db_option
@click.option(
    "--every",
    type=click.FloatRange(min=0.5),
    default=None,
    help="Seconds between passes; without it, one pass.",
)
def time_out_rounds(url: str | None, every: float | None) -> None:
    """Let the decision clock decide every round past its deadline (surrender, recorded as
    decided by timeout, settled at the deadline)."""
    while True:
        total = time_out_once(url)
        if every is None:
            click.echo(f"{total} round(s) timed out")
            return
        time.sleep(every)


def register(group: click.Group) -> None:
    """Add this module's commands to ``group``."""
    group.add_command(time_out_rounds)
