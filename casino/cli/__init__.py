"""The ``casino`` command. Each group of subcommands lives in its own module."""

from __future__ import annotations

import click

from casino.cli import (
    backup_cmds,
    clock_cmds,
    engine_cmds,
    export_cmds,
    ledger_cmds,
    operator_cmds,
    ops_cmds,
    report_cmds,
    wallet_cmds,
    war_cmds,
)


@click.group()
def main() -> None:
    """Casino War: provably fair dealing, exact odds, the betting service and free-play War."""


for module in (
    engine_cmds,
    ops_cmds,
    ledger_cmds,
    operator_cmds,
    export_cmds,
    report_cmds,
    war_cmds,
    backup_cmds,
    wallet_cmds,
    clock_cmds,
):
    module.register(main)
