"""Seamless-wallet tools: the reference operator wallet and the certification kit
(docs/integration.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from casino.wallet.demo.broken import BROKEN

if TYPE_CHECKING:
    from casino.wallet.check import Result


def _secret(path: Path) -> bytes:
    from casino.wallet.signing import read_secret

    try:
        return read_secret(path)
    except (OSError, ValueError) as error:
        raise click.BadParameter(str(error), param_hint="--secret-file") from None


def _account(text: str) -> tuple[str, str, int]:
    player, currency, balance = [*text.rsplit(":", 2), "", ""][:3]
    if not player or len(currency) != 3 or not currency.isupper() or not balance.isdigit():
        raise click.BadParameter(f"{text!r}: use ID:CUR:BALANCE, e.g. alice:EUR:100000")
    return player, currency, int(balance)


@click.command("demo-wallet")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8700, show_default=True, type=click.IntRange(0, 65535))
@click.option(
    "--secret-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="The secret shared with the game server (at least 16 bytes); required to serve.",
)
@click.option(
    "--database",
    default="instance/demo-wallet.db",
    show_default=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The wallet's own SQLite file, kept across restarts.",
)
@click.option(
    "--player",
    "players",
    multiple=True,
    metavar="ID:CUR:BALANCE",
    help="Creates that account (repeatable); an existing one is left as it is.",
)
@click.option("--faults", default="", help="e.g. timeout=0.05,error=0.05,drop=0.05")
@click.option(
    "--fault-delay",
    default=3.5,
    show_default=True,
    type=click.FloatRange(0, 600),
    help="Seconds a timeout fault sleeps before applying the call.",
)
@click.option("--seed", type=int, default=None, help="Makes the faults' draws repeatable.")
@click.option("--broken", type=click.Choice(list(BROKEN)), default=None)
@click.option(
    "--export-csv",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the recorded transactions as CSV to this file ('-': stdout) and exit.",
)
@click.option("--verbose", is_flag=True, help="Log every request.")
def demo_wallet(
    host: str,
    port: int,
    secret_file: Path | None,
    database: Path,
    players: tuple[str, ...],
    faults: str,
    fault_delay: float,
    seed: int | None,
    broken: str | None,
    export_csv: Path | None,
    verbose: bool,
) -> None:
    """A reference operator wallet: the seamless-wallet protocol on its own SQLite."""
    import logging

    from casino.wallet.demo import FaultPlan, Faults, build_server
    from casino.wallet.demo.server import csv_text

    accounts = [_account(text) for text in players]
    try:
        plan = FaultPlan.parse(faults)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--faults") from None
    if export_csv is not None:
        from casino.wallet.demo.store import DemoStore

        store = DemoStore(database)
        text = csv_text(store.export_rows())
        store.close()
        if str(export_csv) == "-":
            sys.stdout.write(text)
        else:
            export_csv.write_text(text)
        return
    if secret_file is None:
        raise click.UsageError("--secret-file is required to serve")
    secret = _secret(secret_file)
    logging.basicConfig(level=logging.DEBUG if verbose else logging.WARNING)
    server = build_server(
        [secret],
        database,
        host,
        port,
        Faults(plan, delay=fault_delay, seed=seed),
        broken,
    )
    for player, currency, balance in accounts:
        server.wallet.store.create_account(player, currency, balance)
    extras = [f"faults {plan}" if str(plan) else "", f"BROKEN: {broken}" if broken else ""]
    details = ", ".join(part for part in [f"database {database}", *extras] if part)
    click.echo(f"demo wallet on {server.url} ({details})", err=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


@click.command("wallet-check")
@click.option("--url", required=True, help="The wallet URL (the paths /bet... go under it).")
@click.option(
    "--secret-file", required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option("--player", required=True, help="A test player with at least 1,000 minor units.")
@click.option("--currency", required=True)
@click.option("--session", default="casino-wallet-check", show_default=True)
@click.option("--operator", default="wallet-check", show_default=True, help="X-Casino-Operator.")
@click.option("--expired-session", default=None, help="Enables the expired-session check.")
@click.option("--blocked-player", default=None, help="Enables the blocked-player check.")
@click.option(
    "--other-currency",
    default="XTS",
    show_default=True,
    help="A currency the test player has no account in.",
)
@click.option("--timeout-ms", default=3000, show_default=True, type=click.IntRange(1, 600_000))
@click.option(
    "--attempts",
    default=5,
    show_default=True,
    type=click.IntRange(1, 100),
    help="Tries per call whose outcome is unknown.",
)
@click.option("--only", multiple=True, help="Run only this check (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="The results as JSON.")
def wallet_check(
    url: str,
    secret_file: Path,
    player: str,
    currency: str,
    session: str,
    operator: str,
    expired_session: str | None,
    blocked_player: str | None,
    other_currency: str,
    timeout_ms: int,
    attempts: int,
    only: tuple[str, ...],
    as_json: bool,
) -> None:
    """The certification suite: runs every check against a wallet, exit 1 on any failure."""
    import logging

    from casino.wallet.check import CHECKS, FAIL, KitOptions, run_checks

    # The kit retries unknown outcomes on purpose; the client's warnings would drown the table.
    logging.getLogger("casino.wallet").setLevel(logging.ERROR)

    names = {item.name for item in CHECKS}
    unknown = [name for name in only if name not in names]
    if unknown:
        raise click.BadParameter(f"no check {unknown[0]!r}", param_hint="--only")
    options = KitOptions(
        url=url,
        secret=_secret(secret_file),
        player=player,
        currency=currency,
        session=session,
        operator=operator,
        timeout_ms=timeout_ms,
        attempts=attempts,
        other_currency=other_currency,
        expired_session=expired_session,
        blocked_player=blocked_player,
    )
    try:
        results, change = run_checks(options, set(only) if only else None)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None
    if as_json:
        click.echo(
            json.dumps(
                {
                    "results": [result.__dict__ for result in results],
                    "balance_change": change,
                },
                indent=2,
            )
        )
    else:
        click.echo(_table(results, change))
    if any(result.verdict == FAIL for result in results):
        sys.exit(1)


def _table(results: list[Result], change: int | None) -> str:
    width = max(len(result.name) for result in results) if results else 5
    lines = [f"{'check':<{width}}  verdict  detail", f"{'-' * width}  -------  ------"]
    for result in results:
        lines.append(f"{result.name:<{width}}  {result.verdict:<7}  {result.detail}".rstrip())
    counts = {
        verdict: sum(r.verdict == verdict for r in results) for verdict in ("pass", "FAIL", "skip")
    }
    moved = "unknown" if change is None else f"{change:+d}"
    lines.append("")
    lines.append(
        f"{counts['pass']} passed, {counts['FAIL']} failed, {counts['skip']} skipped;"
        f" the test player's balance changed by {moved}"
    )
    return "\n".join(lines)


def register(group: click.Group) -> None:
    group.add_command(demo_wallet)
    group.add_command(wallet_check)
