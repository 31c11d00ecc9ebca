"""The browser tests' WSGI app: production's (``CASINO_ENV=production``, as ``wsgi:app``), with
the app's injectable clock (``CASINO_CLOCK``) running ahead of the real time by the number of
seconds written in the file ``CASINO_TEST_CLOCK_FILE`` names.

A test moves the server's time forward (a reality check falls due, a session expires) by
writing that file (``conftest.Server.advance_clock``), instead of sleeping through it. The
offset only grows, and starts at 0: the other tests see the real time.
"""

from __future__ import annotations

import os
from pathlib import Path

import config
from casino import create_app
from tests.browser.clock import CLOCK_FILE_VARIABLE, FileClock


def _config() -> type:
    path = Path(os.environ[CLOCK_FILE_VARIABLE])
    return type("BrowserTestConfig", (config.ProductionConfig,), {"CASINO_CLOCK": FileClock(path)})


app = create_app(_config())
