"""Operations commands: migrations, demo data, operator tokens, the audit, stale rounds."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from casino.service.uow import UnitOfWork

_DURATION = re.compile(r"(\d+)\s*([smhdw])")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_duration(text: str) -> timedelta:
    """``24h``, ``90m``, ``1d12h``, ``3600s`` (a bare number is seconds)."""
    value = text.strip().lower()
    if value.isdigit():
        return timedelta(seconds=int(value))
    parts = _DURATION.findall(value)
    if not parts or _DURATION.sub("", value).strip():
        raise click.BadParameter(f"not a duration: {text!r} (use e.g. 24h, 90m, 1d)")
    total = timedelta()
    for amount, unit in parts:
        total += timedelta(**{_UNITS[unit]: int(amount)})
    return total


def _url(url: str | None) -> str:
    from casino.store import database_url

    return url or database_url()


@contextmanager
def _unit_of_work(url: str | None) -> Iterator[UnitOfWork]:
    from casino.service.uow import UnitOfWork
    from casino.store.session import make_engine, make_session_factory

    engine = make_engine(_url(url))
    try:
        with UnitOfWork(make_session_factory(engine)) as uow:
            yield uow
    finally:
        engine.dispose()


_db_option = click.option(
    "--database-url",
    "url",
    default=None,
    help="Database URL (default: env DATABASE_URL, else sqlite:///instance/casino.store).",
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
def seed_demo(url: str | None) -> None:
    """Create the demo tables, an operator token and a funded demo player; print them."""
    from casino.service.demo import seed_demo as run_seed
    from casino.service.game_sessions import create_session, launch_url
    from casino.store.models import utcnow

    with _unit_of_work(url) as uow:
        data = run_seed(uow)
        # The launch an operator's back end would make: the table opens in a browser.
        game, game_token = create_session(uow, data["player"]["id"], utcnow(), table_id="classic")
        uow.commit()
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
    click.echo(f"play at the table (game session until {game.expires_at:%Y-%m-%d %H:%M} UTC):")
    click.echo(f"  {site}{launch_url(game_token, game.table_id)}")
    click.echo(f"free-play War: {site}/play/free/")


@click.command("create-operator-token")
@_db_option
@click.option("--name", default="operator", show_default=True, help="A label for the token.")
def create_operator_token(url: str | None, name: str) -> None:
    """Create an operator bearer token; it is printed once and stored only as a hash."""
    from casino.service.auth import create_operator_token as create

    with _unit_of_work(url) as uow:
        token = create(uow, name)
        uow.commit()
    click.echo(token)


@click.command("list-operator-tokens")
@_db_option
def list_operator_tokens(url: str | None) -> None:
    """List the operator tokens stored in the database: id, name, created (never the tokens)."""
    from casino.service.auth import list_operator_tokens as listed

    with _unit_of_work(url) as uow:
        tokens = listed(uow)
    for token in tokens:
        click.echo(f"{token.id}\t{token.name}\t{token.created_at.isoformat()}")


@click.command("revoke-operator-token")
@_db_option
@click.argument("token_id", type=int)
def revoke_operator_token(url: str | None, token_id: int) -> None:
    """Delete a stored operator token (see list-operator-tokens); it is refused at once.

    Tokens given in CASINO_OPERATOR_TOKENS are revoked by removing them from there.
    """
    from casino.service.auth import revoke_operator_token as revoke
    from casino.service.errors import NotFound

    with _unit_of_work(url) as uow:
        try:
            revoked = revoke(uow, token_id)
        except NotFound as error:
            raise click.ClickException(str(error)) from None
        uow.commit()
    click.echo(f"revoked operator token {revoked.id} ({revoked.name})")


@click.command("audit")
@_db_option
def audit(url: str | None) -> None:
    """Check the ledger and replay every round; exit 1 on any mismatch."""
    from casino.ledger.audit import format_report, run_audit

    with _unit_of_work(url) as uow:
        report = run_audit(uow.session)
    click.echo(format_report(report))
    if not report.ok:
        sys.exit(1)


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
    from casino.service.rounds import resolve_stale as resolve

    age = parse_duration(older_than)
    with _unit_of_work(url) as uow:
        rounds = resolve(uow, age)
        uow.commit()
    for view in rounds:
        action = view.decision["action"] if view.decision else "-"
        click.echo(f"{view.id}  player {view.player_id}  {action}  net {view.net}")
    click.echo(f"{len(rounds)} round(s) resolved")


@click.command("purge-idempotency")
@_db_option
@click.option("--older-than", "older_than", default="24h", show_default=True)
def purge_idempotency(url: str | None, older_than: str) -> None:
    """Forget idempotency records older than the given age (at least 24h)."""
    from casino.service.idempotency import purge_idempotency as purge

    with _unit_of_work(url) as uow:
        removed = purge(uow, parse_duration(older_than))
        uow.commit()
    click.echo(f"{removed} record(s) removed")


@click.command("purge-free-play")
@_db_option
@click.option("--older-than", "older_than", default="30d", show_default=True)
def purge_free_play(url: str | None, older_than: str) -> None:
    """Delete free-play games not played for the given age."""
    from casino.service.free_play import purge_games

    with _unit_of_work(url) as uow:
        removed = purge_games(uow, parse_duration(older_than))
        uow.commit()
    click.echo(f"{removed} free-play game(s) removed")


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--workers", default=None, type=int, help="Default: WEB_CONCURRENCY, else 2.")
def serve(host: str, port: int, workers: int | None) -> None:
    """Serve the API with gunicorn (configuration from CASINO_ENV, default development)."""
    from casino.api.serve import serve as run

    run(host, port, workers=workers)


def _safe(url: str) -> str:
    """The URL without its password, for printing."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def register(group: click.Group) -> None:
    """Add this module's commands to ``group``."""
    for command in (
        db_upgrade,
        seed_demo,
        create_operator_token,
        list_operator_tokens,
        revoke_operator_token,
        audit,
        resolve_stale,
        purge_idempotency,
        purge_free_play,
        serve,
    ):
        group.add_command(command)
