"""The ledger export and its offline verifier: ``casino export`` and ``casino verify-export``
(docs/audit.md)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import click

from casino.cli.ledger_cmds import signing_settings
from casino.cli.ops_cmds import _db_option, _unit_of_work


class _Moment(click.ParamType):
    """An ISO 8601 date or time (``2026-11-30``, ``2026-11-30T12:00:00+01:00``); UTC when it
    gives no offset."""

    name = "ISO-8601"

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> datetime:
        if isinstance(value, datetime):
            return value
        try:
            return datetime.fromisoformat(str(value))
        except ValueError:
            self.fail(f"not an ISO 8601 date or time: {value!r}", param, ctx)


@click.command("export")
@_db_option
@click.option("--since", type=_Moment(), default=None, help="From this time (included).")
@click.option("--until", type=_Moment(), default=None, help="To this time (excluded).")
@click.option(
    "--from-checkpoint",
    "from_checkpoint",
    type=click.IntRange(min=1),
    default=None,
    help="Only what follows checkpoint N: the next part of an incremental audit, checked "
    "with casino verify-export --state FILE (the state a run saved at checkpoint N).",
)
@click.option(
    "--output",
    "-o",
    default="-",
    show_default=True,
    help="The file to write (- for standard output); written under FILE.part, then renamed.",
)
@click.option(
    "--operator",
    "operator",
    default="default",
    show_default=True,
    help="Whose ledger: each operator's export holds its own books and checkpoints only.",
)
def export(
    url: str | None,
    since: datetime | None,
    until: datetime | None,
    output: str,
    operator: str,
    from_checkpoint: int | None,
) -> None:
    """Export an operator's ledger for auditors (NDJSON, docs/audit.md): every account,
    transaction, round, revealed server seed and signed checkpoint of it, from one snapshot.
    --since/--until make a partial export, --from-checkpoint N the part after checkpoint N.
    Check it with `casino verify-export FILE`."""
    from casino.service.errors import ServiceError
    from casino.service.export import export as export_ledger
    from casino.service.ledger_reads import check_range
    from casino.store.export_plan import NoSuchCheckpoint

    try:
        since, until = check_range(since, until)
    except ServiceError as error:
        raise click.BadParameter(str(error)) from None
    if from_checkpoint is not None and (since is not None or until is not None):
        raise click.BadParameter("--from-checkpoint does not go with --since or --until")
    keys = signing_settings().trusted()
    written = 0

    def run(uow: Any) -> Iterator[bytes]:
        try:
            yield from export_ledger(
                uow, since=since, until=until, keys=keys, from_checkpoint=from_checkpoint
            )
        except NoSuchCheckpoint as error:
            raise click.ClickException(str(error)) from None

    with _unit_of_work(url, operator) as uow:
        if output == "-":
            for chunk in run(uow):
                sys.stdout.buffer.write(chunk)
            sys.stdout.buffer.flush()
            return
        partial = f"{output}.part"
        try:
            with open(partial, "wb") as sink:
                for chunk in run(uow):
                    sink.write(chunk)
                    written += len(chunk)
        except BaseException:
            # Never leave a file that looks finished but is not.
            if os.path.exists(partial):
                os.unlink(partial)
            raise
        os.replace(partial, output)
    click.echo(f"exported {written} bytes to {output}", err=True)


@click.command(
    "verify-export",
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
    add_help_option=False,
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def verify_export(args: tuple[str, ...]) -> None:
    """Check an export offline: FILE [--json] [--key PUBLIC_KEY ...] (--help for more).

    Runs casino/audit_export/casino_audit_export.py, the one standard-library file an
    auditor can run alone: python3 casino_audit_export.py FILE."""
    from casino.audit_export.casino_audit_export import main

    sys.exit(main(list(args)))


def register(group: click.Group) -> None:
    for command in (export, verify_export):
        group.add_command(command)
