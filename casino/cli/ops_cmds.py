"""Operations commands: migrations, demo data, operator tokens, stale rounds, serving (the
ledger's audit and sealer: casino.cli.ledger_cmds)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

import click

from config import duration_seconds

if TYPE_CHECKING:
    from casino.store.uow import UnitOfWork


def parse_duration(text: str) -> timedelta:
    """``24h``, ``90m``, ``1d12h``, ``3600s`` (a bare number is seconds)."""
    try:
        return timedelta(seconds=duration_seconds(text))
    except ValueError as error:
        raise click.BadParameter(str(error)) from None


def _url(url: str | None) -> str:
    from casino.store import database_url

    return url or database_url()


@contextmanager
def _unit_of_work(
    url: str | None, operator: str | None = "default", *, every: bool = False
) -> Iterator[UnitOfWork]:
    """A unit of work acting for ``operator`` (None: for none yet, the platform's own use
    cases), or with ``every`` reading across every operator."""
    from casino.store.database import Database

    database = Database.open(_url(url))
    try:
        with database.unit_of_work(None if every else operator) as uow:
            if every:
                uow.all_operators()
            yield uow
    finally:
        database.dispose()


_db_option = click.option(
    "--database-url",
    "url",
    default=None,
    help="Database URL (default: env DATABASE_URL, else sqlite:///instance/casino.db).",
)


@click.command("db-upgrade")
@_db_option
@click.option("--revision", default="head", show_default=True)
def db_upgrade(url: str | None, revision: str) -> None:
    """Apply the database migrations."""
    from casino.store.migrate import upgrade

    target = _url(url)
    upgrade(target, revision)
    click.echo(f"database at {revision}: {_safe(target)}")


@click.command("seed-demo")
@_db_option
@click.option(
    "--credentials-file",
    "credentials_file",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where the demo tokens are kept between runs (default: instance/demo-credentials.json).",
)
@click.option("--force", is_flag=True, help="Run even where CASINO_ENV is production.")
def seed_demo(url: str | None, credentials_file: Path | None, force: bool) -> None:
    """Create the demo tables, an operator token and a funded demo player; print them.

    Running it again keeps everything that works: the same tokens, so the printed examples
    keep working (the tokens are kept in the credentials file, readable by its owner only).
    Refused in production (CASINO_ENV=production) unless --force: it writes a non-expiring
    operator token to disk and funds a player out of nothing.
    """
    import config

    if issubclass(config.resolve(None), config.ProductionConfig) and not force:
        raise click.ClickException(
            "seed-demo refuses to run in production (CASINO_ENV=production): it makes a "
            "non-expiring operator token, writes it to disk and funds a demo player. "
            "Add --force if this really is a demo."
        )
    from casino.cli import demo_credentials
    from casino.service.demo import DemoTokens
    from casino.service.demo import seed_demo as run_seed
    from casino.service.game_sessions import LAUNCH_CODE_SECONDS, create_session
    from casino.store.types import utcnow

    target = _url(url)
    path = credentials_file or demo_credentials.DEFAULT_PATH
    with _unit_of_work(target) as uow:
        data = run_seed(uow, demo_credentials.load(path, target))
        # The launch an operator's back end would make: the table opens in a browser.
        game = create_session(uow, data["player"]["id"], utcnow(), table_id="classic")
        uow.commit()
    issued = DemoTokens(data["operator_token"], data["player"]["token"])
    demo_credentials.save(path, target, issued)
    player = data["player"]
    wallet = data["wallet"]
    click.echo(f"tables:          {', '.join(data['tables'])}")
    click.echo(f"operator token:  {data['operator_token']}")
    click.echo(f"demo player:     {player['id']} ({player['external_ref']})")
    click.echo(f"player token:    {player['token']}")
    click.echo(f"wallet:          {wallet['balance']} {wallet['currency']} minor units")
    click.echo()
    click.echo("try it (once `make run` serves on 127.0.0.1:8000):")
    base = "http://127.0.0.1:8000/api/v1"
    click.echo(f"  curl -s {base}/tables -H 'Authorization: Bearer {player['token']}'")
    click.echo(
        f"  curl -s -X POST {base}/rounds -H 'Authorization: Bearer {player['token']}'"
        " -H 'Content-Type: application/json' -H \"Idempotency-Key: $(date +%s%N)\""
        """ -d '{"table_id": "classic", "ante": 1000, "tie_bet": 100}'"""
    )
    click.echo(
        f"  curl -s {base}/players/{player['id']}/wallets"
        f" -H 'Authorization: Bearer {data['operator_token']}'"
    )
    click.echo(f"  docs: {base}/docs")
    click.echo()
    site = "http://127.0.0.1:8000"
    click.echo(
        f"play at the table (open within {LAUNCH_CODE_SECONDS // 60} minutes, once; "
        "a fresh link: casino launch):"
    )
    click.echo(f"  {site}{game.launch_url}")
    click.echo(f"free-play War: {site}/play/free/")


@click.command("launch")
@_db_option
@click.option(
    "--external-ref",
    "external_ref",
    default="demo-player",
    show_default=True,
    help="The player, by your id for it.",
)
@click.option("--table", "table_id", default="classic", show_default=True)
@click.option("--language", default=None, help="The client's language: en, pt, nl, ca, it, el.")
@click.option(
    "--base-url", default="http://127.0.0.1:8000", show_default=True, help="Where it is served."
)
def launch(
    url: str | None, external_ref: str, table_id: str, language: str | None, base_url: str
) -> None:
    """Launch the game client for a player: print a launch URL with a one-time code (open it
    within two minutes; the session then lasts 8 hours)."""
    from casino.service.errors import ServiceError
    from casino.service.game_sessions import create_session
    from casino.service.players import find_players
    from casino.store.types import utcnow

    with _unit_of_work(url) as uow:
        try:
            found = find_players(uow, external_ref)
            if not found:
                raise click.ClickException(f"no player with external_ref {external_ref!r}")
            game = create_session(uow, found[0].id, utcnow(), table_id=table_id, language=language)
        except ServiceError as error:
            raise click.ClickException(str(error)) from None
        uow.commit()
    click.echo(f"{base_url.rstrip('/')}{game.launch_url}")


@click.command("create-operator-token")
@_db_option
@click.option("--name", default="operator", show_default=True, help="A label for the token.")
@click.option(
    "--expires-in",
    "expires_in",
    default=None,
    help="Refuse the token after this long, e.g. 90d, 12h (default: until revoked).",
)
@click.option(
    "--scope",
    type=click.Choice(["admin", "support", "auditor"]),
    default="admin",
    show_default=True,
    help="admin: everything; support: players, rounds, sessions, protection, no money; "
    "auditor: the ledger, export, checkpoints, reports, rounds (docs/security.md).",
)
@click.option(
    "--operator",
    "operator",
    default="default",
    show_default=True,
    help="The operator the token acts for.",
)
@click.option(
    "--platform", is_flag=True, help="A platform token instead: it manages the operators."
)
def create_operator_token(
    url: str | None,
    name: str,
    expires_in: str | None,
    scope: str,
    operator: str,
    platform: bool,
) -> None:
    """Create an operator (or platform) bearer token; it is printed once and stored only as
    a hash."""
    from casino.service.auth import create_operator_token as create
    from casino.service.operators import get_operator

    lifetime = None
    if expires_in is not None:
        try:
            lifetime = parse_duration(expires_in)
        except click.BadParameter as error:
            raise click.BadParameter(error.message, param_hint="--expires-in") from None
        if lifetime.total_seconds() <= 0:
            raise click.BadParameter("the lifetime must be positive", param_hint="--expires-in")
    from casino.service.errors import NotFound

    with _unit_of_work(url, None if platform else operator) as uow:
        if not platform:
            try:
                get_operator(uow, operator)
            except NotFound:
                raise click.BadParameter(
                    f"no operator {operator!r}", param_hint="--operator"
                ) from None
        token = create(uow, name, lifetime, scope, platform=platform)
        uow.commit()
    click.echo(token)


@click.command("list-operator-tokens")
@_db_option
@click.option("--operator", "operator", default=None, help="Only this operator's tokens.")
def list_operator_tokens(url: str | None, operator: str | None) -> None:
    """List the tokens stored in the database: id, name, created, expiry, the operator it
    acts for (or "platform") and its scope (never the tokens themselves)."""
    from casino.service.auth import list_operator_tokens as listed

    with _unit_of_work(url, operator, every=operator is None) as uow:
        tokens = listed(uow)
    for token in tokens:
        expires = token.expires_at.isoformat() if token.expires_at else "never"
        owner = token.operator_id or "platform"
        scope = "-" if token.operator_id is None else token.scope
        created = token.created_at.isoformat()
        click.echo(f"{token.id}\t{token.name}\t{created}\texpires {expires}\t{owner}\t{scope}")


@click.command("revoke-operator-token")
@_db_option
@click.argument("token_id", type=int)
def revoke_operator_token(url: str | None, token_id: int) -> None:
    """Delete a stored operator token (see list-operator-tokens); it is refused at once.

    Tokens given in CASINO_OPERATOR_TOKENS are revoked by removing them from there.
    """
    from casino.service.auth import revoke_operator_token as revoke
    from casino.service.errors import NotFound

    with _unit_of_work(url, every=True) as uow:
        try:
            revoked = revoke(uow, token_id)
        except NotFound as error:
            raise click.ClickException(str(error)) from None
        uow.commit()
    click.echo(f"revoked operator token {revoked.id} ({revoked.name})")


@click.command("resolve-stale")
@_db_option
@click.option(
    "--older-than",
    "older_than",
    default="24h",
    show_default=True,
    help="Age of rounds to settle, e.g. 24h, 90m, 2d.",
)
def resolve_stale(url: str | None, older_than: str) -> None:
    """Settle rounds left awaiting a decision: war if the raise is affordable, else
    surrender, recorded as decided by the system."""
    from casino.service.operators import operator_ids
    from casino.service.rounds import resolve_stale as resolve

    age = parse_duration(older_than)
    with _unit_of_work(url, None) as platform:
        operators = operator_ids(platform)
    total = 0
    for operator in operators:  # each operator's rounds in a transaction of its own
        with _unit_of_work(url, operator) as uow:
            rounds = resolve(uow, age)
            uow.commit()
        for view in rounds:
            action = view.decision["action"] if view.decision else "-"
            click.echo(f"{view.id}  {operator}  player {view.player_id}  {action}  net {view.net}")
        total += len(rounds)
    click.echo(f"{total} round(s) resolved")


@click.command("purge-idempotency")
@_db_option
@click.option("--older-than", "older_than", default="24h", show_default=True)
@click.option(
    "--batch",
    "batch",
    type=click.IntRange(min=1),
    default=10_000,
    show_default=True,
    help="Records deleted per database transaction (short locks, no burst of WAL).",
)
@click.option(
    "--every",
    "every",
    type=click.FloatRange(min=1),
    default=None,
    help="Keep purging, this many seconds apart (the Procfile's purger); default: once.",
)
def purge_idempotency(url: str | None, older_than: str, batch: int, every: float | None) -> None:
    """Forget idempotency records older than the given age (at least 24h): a replay of a
    request older than that is a new request. Run it on a schedule (--every, or cron): the
    table then holds a day of records, however long the ledger's history."""
    import time

    from casino.service.idempotency import purge_idempotency as purge

    age = parse_duration(older_than)
    while True:
        removed = 0
        while True:
            with _unit_of_work(url) as uow:
                deleted = purge(uow, age, batch)
                uow.commit()
            removed += deleted
            if deleted < batch:
                break
        click.echo(f"{removed} record(s) removed")
        if every is None:
            return
        time.sleep(every)


@click.command("purge-free-play")
@_db_option
@click.option("--older-than", "older_than", default="30d", show_default=True)
def purge_free_play(url: str | None, older_than: str) -> None:
    """Delete free-play games not played, and simulation jobs started, for the given age."""
    from casino.service.free_play import purge_games, purge_simulations

    age = parse_duration(older_than)
    with _unit_of_work(url) as uow:
        removed = purge_games(uow, age)
        jobs = purge_simulations(uow, age)
        uow.commit()
    click.echo(f"{removed} free-play game(s) removed")
    click.echo(f"{jobs} simulation job(s) removed")


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--workers", default=None, type=int, help="Default: WEB_CONCURRENCY, else 2.")
@click.option(
    "--seal-every",
    "seal_every",
    default=None,
    type=float,
    help="Seconds between ledger seals by a sealer beside the workers (0: none; default "
    "CASINO_SEAL_EVERY_SECONDS, else 5).",
)
@click.option(
    "--events-port",
    default=None,
    type=int,
    help="Port of the shared tables' event server beside the workers (default: port + 1; 0: none).",
)
def serve(
    host: str, port: int, workers: int | None, seal_every: float | None, events_port: int | None
) -> None:
    """Serve the API with gunicorn (configuration from CASINO_ENV, default development),
    with the ledger sealer and the shared tables' event server running beside it."""
    import os

    import config
    from casino.api.serve import serve as run

    # Named explicitly, for the workers and for the sealer beside them alike: wsgi.py, which
    # plain gunicorn loads, defaults to production; this command, the developer's, does not.
    environment = os.environ.get("CASINO_ENV", "").strip() or "development"
    os.environ["CASINO_ENV"] = environment
    if seal_every is None:
        seal_every = float(config.settings().get("SEAL_EVERY_SECONDS") or 0)
    events = port + 1 if events_port is None else events_port
    run(
        host,
        port,
        workers=workers,
        seal_every=seal_every,
        config=environment,
        events_port=events or None,
    )


def _safe(url: str) -> str:
    """The URL without its password, for printing."""
    from casino.store import printable_url

    return printable_url(url)


def register(group: click.Group) -> None:
    """Add this module's commands to ``group``."""
    for command in (
        db_upgrade,
        seed_demo,
        create_operator_token,
        launch,
        list_operator_tokens,
        revoke_operator_token,
        resolve_stale,
        purge_idempotency,
        purge_free_play,
        serve,
    ):
        group.add_command(command)
