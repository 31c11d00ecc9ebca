"""``casino backup``: base backups and point-in-time restores (docs/operations.md)."""

from __future__ import annotations

from pathlib import Path

import click

_db_option = click.option(
    "--database-url",
    "url",
    default=None,
    help="Database URL (default: env DATABASE_URL, else sqlite:///instance/casino.store).",
)


@click.group("backup")
def backup() -> None:
    """Base backups (pg_basebackup, verified) and point-in-time restores from a WAL archive."""


@backup.command("base")
@_db_option
@click.option(
    "--to",
    "target",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="New (or empty) directory for the backup.",
)
@click.option("--label", default=None, help="Backup label (default: casino-<UTC time>).")
def base(url: str | None, target: Path, label: str | None) -> None:
    """Take a base backup: PostgreSQL with its WAL and a verified manifest, SQLite a copy."""
    from datetime import UTC, datetime

    from casino.store import database_url
    from casino.store.backup import BackupError, base_backup

    label = label or "casino-" + datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    try:
        taken = base_backup(url or database_url(), target, label)
    except BackupError as error:
        raise click.ClickException(str(error)) from None
    where = f", WAL from {taken.start_lsn}" if taken.start_lsn else ""
    click.echo(
        f"{taken.backend} base backup {taken.label} in {taken.path}{where}: "
        f"{taken.size_bytes / 1e6:.1f} MB in {taken.seconds:.1f}s"
    )


@backup.command("restore")
@click.option(
    "--from",
    "source",
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="A PostgreSQL base backup made by 'casino backup base'.",
)
@click.option(
    "--wal-archive",
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="The directory archive_command copies WAL segments to.",
)
@click.option(
    "--pgdata",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="New data directory for the restored server.",
)
@click.option(
    "--target-time",
    default=None,
    help="Restore up to this moment, ISO 8601 with a time zone "
    "(e.g. '2026-12-01 09:30:00+00:00'); default: the end of the archive.",
)
def restore(source: Path, wal_archive: Path, pgdata: Path, target_time: str | None) -> None:
    """Prepare a new data directory that replays the WAL archive up to a moment, then opens
    for writes. Start it with pg_ctl, then check it with 'casino audit'."""
    from casino.store.backup import BackupError, parse_target_time, prepare_restore

    try:
        moment = parse_target_time(target_time) if target_time else None
        prepare_restore(source, pgdata, wal_archive, moment)
    except BackupError as error:
        raise click.ClickException(str(error)) from None
    until = moment.isoformat(sep=" ") if moment else "the end of the archive"
    click.echo(f"{pgdata} restores the backup up to {until}. Next, as the postgres user:")
    click.echo(f"  pg_ctl -D {pgdata} -o '-p PORT' -w start   # replays WAL, then promotes")
    click.echo("  DATABASE_URL=postgresql+psycopg://…:PORT/DBNAME casino audit")


def register(group: click.Group) -> None:
    group.add_command(backup)
