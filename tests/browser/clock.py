"""The clock of the browser tests' server (tests/browser/clocked_wsgi.py): the real time plus
an offset the tests write to a file, so they can move the server's time forward."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from casino.store.types import utcnow

#: Names the file holding the offset, in seconds, for the server's process.
CLOCK_FILE_VARIABLE = "CASINO_TEST_CLOCK_FILE"


class FileClock:
    """Real time plus the offset in ``path`` (seconds; a missing or empty file: 0)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __call__(self) -> datetime:
        # Read at every call (a few per request): a tiny file, and no stale offset when two
        # writes fall within one tick of the file system's timestamps.
        try:
            text = self.path.read_text().strip()
        except FileNotFoundError:
            text = ""
        return utcnow() + timedelta(seconds=float(text or 0))
