"""``casino dealer``: runs the clocks of shared tables (docs/shared-tables.md); ``casino
events``: the event server that pushes their events to followers."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from datetime import timedelta

import click

from casino.cli.ops_cmds import _db_option, _url
from config import wallet_retry_window


@click.command("dealer")
@_db_option
@click.option("--max-tables", default=100, type=int, help="Most tables this dealer holds.")
@click.option("--name", default=None, help="This dealer's name in the leases (default: host:pid).")
def dealer(url: str | None, max_tables: int, name: str | None) -> None:
    """Deal the shared tables this process holds: a lease per table in the database (one
    dealer per table); tables of a dealer that died are taken over within seconds and
    continue from their stored state. A thread sends the seamless wallet calls its rounds
    queue (as ``casino wallet-worker`` does). Stops on SIGTERM/SIGINT, releasing its tables."""
    from casino.service.shared.runner import Dealer
    from casino.store.database import Database

    logging.basicConfig(
        stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s"
    )
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    window = timedelta(seconds=wallet_retry_window(os.environ))
    database = Database.open(_url(url))
    dealing = Dealer(database, holder=name, max_tables=max_tables)
    sender = threading.Thread(
        target=dealing.send_wallet_calls, args=(stop, window), name="wallet-calls", daemon=True
    )
    sender.start()
    try:
        dealing.run(stop)
    finally:
        stop.set()
        sender.join(timeout=10)
        database.dispose()


@click.command("events")
@click.option("--host", default="127.0.0.1")
@click.option("--port", default=8001, type=int)
def events(host: str, port: int) -> None:
    """Serve GET /api/v1/tables/{id}/events as Server-Sent Events from one asyncio loop:
    idle followers cost a socket and a queue each, no thread (docs/shared-tables.md). The
    configuration (database, tokens) is the API's: CASINO_ENV, default development."""
    from casino.api.events_server import serve_events

    logging.basicConfig(stream=sys.stderr, level=logging.INFO)
    serve_events(os.environ.get("CASINO_ENV", "").strip() or "development", host, port)


def register(group: click.Group) -> None:
    group.add_command(dealer)
    group.add_command(events)
