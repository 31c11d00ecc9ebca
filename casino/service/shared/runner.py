"""``casino dealer``: runs the clocks of the shared tables it holds.

Every ``RENEW`` seconds the dealer renews its leases and takes free or expired ones (a lease
lasts ``LEASE``: a dealer killed with -9 leaves its tables to the others within that); in
between it moves every table it holds on by whatever is due (``dealer.advance``), one unit
of work per step or batch, and sleeps until the earliest next due time (at most ``TICK``).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta

from casino.service.errors import WalletUnavailable
from casino.service.shared.dealer import Done, LostTable, advance
from casino.service.wallet_outbox import RETRY_WINDOW, run_once
from casino.store.database import Database
from casino.store.errors import DBAPIError

logger = logging.getLogger(__name__)

LEASE = timedelta(seconds=3)
RENEW = 0.5
TICK = 0.25
#: Steps or batches per table between lease renewals (a round of 1,000 bettors: 5 batches).
BURST = 50
#: How long a settlement waits for a pending wallet rollback before it tries again.
WAIT_FOR_WALLET = timedelta(seconds=1)


def holder_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class Dealer:
    def __init__(self, database: Database, holder: str | None = None, max_tables: int = 100):
        self.database = database
        self.holder = holder or holder_name()
        self.max_tables = max_tables
        self.held: list[tuple[str, str]] = []
        self._renewed = 0.0
        self.steps = 0

    def renew(self) -> list[tuple[str, str]]:
        now = self.database.clock()
        # Leases are the platform's: the dealer serves every operator's tables, and names
        # the operator of each when it deals it.
        with self.database.unit_of_work() as uow:
            held = uow.shared.acquire_leases(self.holder, now, now + LEASE, self.max_tables)
            uow.commit()
        gained = set(held) - set(self.held)
        for operator, table in sorted(gained):
            logger.info("dealer %s holds table %s/%s", self.holder, operator, table)
        self.held = held
        self._renewed = time.monotonic()
        return held

    def release(self) -> None:
        with self.database.unit_of_work() as uow:
            uow.shared.release_leases(self.holder)
            uow.commit()
        self.held = []

    def run_table(self, operator: str, table: str) -> datetime | None:
        """Everything due at the table now; when it is next due (None: unknown)."""
        for _ in range(BURST):
            try:
                with self.database.unit_of_work(operator=operator) as uow:
                    # Wins and rollbacks go to the outbox, due at once (send_wallet_calls
                    # sends them): a slow wallet holds that thread, not the table's clock.
                    uow.wallet_calls_inline = False
                    done: Done = advance(uow, table, self.holder)
                    if done.idle:
                        return done.due_at
                    uow.commit()
                    self.steps += 1
            except LostTable:
                return None
            except WalletUnavailable:
                # A bettor's cancelled raise is still being rolled back (the wallet worker
                # sends it): the round's wins wait for it, the dealer's other tables do not.
                logger.info("table %s/%s: waiting for a wallet rollback", operator, table)
                return self.database.clock() + WAIT_FOR_WALLET
            except DBAPIError:
                logger.warning(
                    "table %s/%s: database error; retrying", operator, table, exc_info=True
                )
                return None
        return None

    def once(self) -> float:
        """One pass over the tables held; seconds to sleep before the next."""
        if time.monotonic() - self._renewed >= RENEW:
            self.renew()
        wake = TICK
        now = self.database.clock()
        for operator, table in list(self.held):
            due = self.run_table(operator, table)
            if due is not None:
                wake = min(wake, max(0.0, (due - now).total_seconds()))
        return max(0.01, min(wake, RENEW))

    def send_wallet_calls(
        self, stop: threading.Event, window: timedelta = RETRY_WINDOW, every: float = 0.1
    ) -> None:
        """The outbox worker's loop (``wallet_outbox.run_once``) until ``stop``: the wins and
        rollbacks this dealer queues go out at once, each slow answer holding this thread
        only. Any ``casino wallet-worker`` sends them as well (a call is leased to one)."""
        while not stop.is_set():
            try:
                sent = run_once(self.database.unit_of_work, window=window)
            except DBAPIError:
                logger.warning("sending wallet calls: database error; retrying", exc_info=True)
                sent = 0
            if not sent:
                stop.wait(every)

    def run(self, stop: Callable[[], bool] | threading.Event | None = None) -> None:
        stopped = stop.is_set if isinstance(stop, threading.Event) else stop or (lambda: False)
        self.renew()
        try:
            while not stopped():
                time.sleep(self.once())
        finally:
            try:
                self.release()
            except DBAPIError:
                logger.warning("could not release the leases", exc_info=True)
