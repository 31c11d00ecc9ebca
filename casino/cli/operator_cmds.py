"""``casino operators ...``: the platform's commands for operators (tenants).

``create`` prints the new operator as JSON and a first admin token for it (shown once).
A seamless wallet's secret is read from a file (``--wallet-secret-file``, ``-`` for stdin),
never from the command line, where it would stay in shell histories and process lists.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from casino.cli.ops_cmds import _db_option, _unit_of_work


def _json(value: Any) -> str:
    def default(item: Any) -> str:
        if isinstance(item, datetime):
            return item.isoformat()
        raise TypeError(type(item).__name__)

    return json.dumps(value, indent=2, default=default)


def _secret(path: str) -> str:
    """The secret file's text without surrounding whitespace (as ``casino demo-wallet`` and
    ``casino wallet-check`` read theirs)."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text()
    except (OSError, UnicodeError) as error:
        raise click.BadParameter(str(error), param_hint="--wallet-secret-file") from None
    return text.strip()


def _wallet(
    seamless: bool | None,
    url: str | None,
    secret_file: str | None,
    timeout_ms: int | None,
    zero_win: bool | None,
) -> dict[str, Any]:
    wallet: dict[str, Any] = {}
    if seamless is not None:
        wallet["mode"] = "seamless" if seamless else "transfer"
    if url is not None:
        wallet["url"] = url
    if secret_file is not None:
        wallet["secret"] = _secret(secret_file)
    if timeout_ms is not None:
        wallet["timeout_ms"] = timeout_ms
    if zero_win is not None:
        wallet["close_losing_round_with_zero_win"] = zero_win
    return wallet


def _fail(error: Exception) -> click.ClickException:
    detail = getattr(error, "detail", str(error))
    code = getattr(error, "code", None)
    return click.ClickException(f"{detail} ({code})" if code else detail)


@click.group("operators")
def operators() -> None:
    """Operators (tenants): create, list, show and change them (docs/operators.md)."""


_wallet_options = [
    click.option("--wallet-url", "wallet_url", default=None, help="The seamless wallet's URL."),
    click.option(
        "--wallet-secret-file",
        "secret_file",
        default=None,
        help="File holding the wallet's signing secret (- for stdin).",
    ),
    click.option("--wallet-timeout-ms", "timeout_ms", default=None, type=int, help="Default 3000."),
    click.option(
        "--zero-win/--no-zero-win",
        "zero_win",
        default=None,
        help="Close a lost round with a win of 0 (default: yes).",
    ),
]


def _with_wallet_options(command: Any) -> Any:
    for option in reversed(_wallet_options):
        command = option(command)
    return command


@operators.command("create")
@_db_option
@click.option("--id", "operator_id", required=True, help="A slug: lowercase letters, digits, -.")
@click.option("--name", required=True)
@click.option(
    "--currency",
    "currencies",
    multiple=True,
    help="A currency it may use (repeat; default: all the deployment's).",
)
@click.option("--seamless", is_flag=True, help="Its own wallet, called per bet (see docs).")
@_with_wallet_options
def create(
    url: str | None,
    operator_id: str,
    name: str,
    currencies: tuple[str, ...],
    seamless: bool,
    wallet_url: str | None,
    secret_file: str | None,
    timeout_ms: int | None,
    zero_win: bool | None,
) -> None:
    """Create an operator; print it as JSON with a new admin token (shown once)."""
    from casino.service import operators as service
    from casino.service.errors import ServiceError

    wallet = _wallet(seamless or None, wallet_url, secret_file, timeout_ms, zero_win)
    with _unit_of_work(url, None) as uow:
        try:
            view = service.create_operator(
                uow, operator_id, name, currencies=list(currencies) or None, wallet=wallet
            )
            token = service.first_token(uow, view.id)
        except ServiceError as error:
            raise _fail(error) from None
        uow.commit()
    click.echo(_json({"operator": asdict(view), "token": token}))


@operators.command("list")
@_db_option
@click.option("--json", "as_json", is_flag=True, help="As one JSON document.")
def list_(url: str | None, as_json: bool) -> None:
    """Every operator: id, wallet mode, currencies, active, name."""
    from casino.service import operators as service

    with _unit_of_work(url, None) as uow:
        found = service.list_operators(uow)
    if as_json:
        click.echo(_json([asdict(view) for view in found]))
        return
    for view in found:
        state = "active" if view.active else "inactive"
        currencies = ",".join(view.currencies)
        click.echo(f"{view.id}\t{view.wallet.mode}\t{currencies}\t{state}\t{view.name}")


@operators.command("show")
@_db_option
@click.argument("operator_id")
def show(url: str | None, operator_id: str) -> None:
    """One operator as JSON (never its wallet secret)."""
    from casino.service import operators as service
    from casino.service.errors import ServiceError

    with _unit_of_work(url, None) as uow:
        try:
            view = service.get_operator(uow, operator_id)
        except ServiceError as error:
            raise _fail(error) from None
    click.echo(_json(asdict(view)))


@operators.command("update")
@_db_option
@click.argument("operator_id")
@click.option("--name", default=None)
@click.option("--currency", "currencies", multiple=True, help="Its currencies (repeat).")
@click.option(
    "--deployment-currencies", is_flag=True, help="Its currencies: the deployment's, all of them."
)
@click.option("--seamless/--transfer", "seamless", default=None, help="Its wallet mode.")
@click.option("--active/--inactive", "active", default=None, help="Inactive: tokens refused.")
@_with_wallet_options
def update(
    url: str | None,
    operator_id: str,
    name: str | None,
    currencies: tuple[str, ...],
    deployment_currencies: bool,
    seamless: bool | None,
    active: bool | None,
    wallet_url: str | None,
    secret_file: str | None,
    timeout_ms: int | None,
    zero_win: bool | None,
) -> None:
    """Change an operator; a new wallet secret keeps the old one valid for 24 hours."""
    from casino.service import operators as service
    from casino.service.errors import ServiceError

    changes: dict[str, Any] = {}
    if name is not None:
        changes["name"] = name
    if currencies and deployment_currencies:
        raise click.UsageError("--currency and --deployment-currencies exclude each other")
    if currencies or deployment_currencies:
        changes["currencies"] = list(currencies) or None
    if active is not None:
        changes["active"] = active
    wallet = _wallet(seamless, wallet_url, secret_file, timeout_ms, zero_win)
    if wallet:
        changes["wallet"] = wallet
    if not changes:
        raise click.UsageError("nothing to change")
    with _unit_of_work(url, None) as uow:
        try:
            view = service.update_operator(uow, operator_id, changes)
        except ServiceError as error:
            raise _fail(error) from None
        uow.commit()
    click.echo(_json(asdict(view)))


@operators.command("seal-secrets")
@_db_option
def seal_secrets(url: str | None) -> None:
    """Seal the wallet secrets under CASINO_WALLET_SECRETS_KEY (those in clear, and those
    under a key now in CASINO_WALLET_SECRETS_OLD_KEYS): after setting or rotating the key."""
    from casino.service import operators as service

    with _unit_of_work(url, None) as uow:
        try:
            changed = service.seal_wallet_secrets(uow)
        except LookupError:
            raise click.ClickException(
                "CASINO_WALLET_SECRETS_KEY is not set: there is no key to seal with"
            ) from None
        uow.commit()
    click.echo(f"sealed the wallet secrets of {changed} operator(s)")


def register(group: click.Group) -> None:
    group.add_command(operators)
