"""Browser tests: the game client in Debian's headless Chromium against a real gunicorn
server, on SQLite and (marker ``postgres``) PostgreSQL.

The browser is /usr/bin/chromium driven through /usr/bin/chromedriver (never downloaded).
Where they are missing the tests skip, saying why; with ``CASINO_REQUIRE_BROWSER=1`` (CI)
they fail instead, so CI can never pass with them unrun.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import pytest
from selenium.webdriver.remote.webdriver import WebDriver

from harness import pg
from harness.server import GunicornInstance, free_port
from tests.services import missing

from .clock import CLOCK_FILE_VARIABLE
from .helpers import (
    AUDITOR_TOKEN,
    OPERATOR_TOKEN,
    Operator,
    console_errors,
    missing_browser,
    start_chromium,
)


@dataclass
class Server:
    base_url: str
    database_url: str
    #: A second origin the API's CORS allow-list names (tests/browser/test_cors.py).
    allowed_origin_port: int
    operator: Operator
    #: The server's clock runs this many seconds ahead of the real time (clocked_wsgi.py).
    clock_file: Path
    clock_offset: float = field(default=0.0)

    def advance_clock(self, **delta: float) -> None:
        """Move the server's time forward (never back: other tests' sessions run on it)."""
        self.clock_offset += timedelta(**delta).total_seconds()
        # Written whole and renamed: a request never reads half a number.
        partial = self.clock_file.with_suffix(".partial")
        partial.write_text(repr(self.clock_offset))
        os.replace(partial, self.clock_file)


@pytest.fixture(scope="session")
def browser_ready() -> None:
    reason = missing_browser()
    if reason is not None:
        missing(reason, "CASINO_REQUIRE_BROWSER")


# One xdist worker per database (make test runs --dist loadgroup): one server and one
# Chromium each, instead of both on every worker.
@pytest.fixture(
    scope="session",
    params=[
        pytest.param("sqlite", marks=pytest.mark.xdist_group("browser-sqlite")),
        pytest.param(
            "postgres", marks=[pytest.mark.postgres, pytest.mark.xdist_group("browser-postgres")]
        ),
    ],
)
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, browser_ready: None
) -> Iterator[Server]:
    """One gunicorn server per database for all the browser tests: production's app with a
    clock the tests can move forward (tests/browser/clocked_wsgi.py)."""
    allowed_port = free_port()
    clock_file = tmp_path_factory.mktemp("clock") / "offset-seconds"
    env = {
        "CASINO_CORS_ORIGINS": f"http://127.0.0.1:{allowed_port}",
        CLOCK_FILE_VARIABLE: str(clock_file),
    }

    def run(url: str) -> Iterator[Server]:
        pg.migrate(url)
        instance = GunicornInstance(
            url,
            [OPERATOR_TOKEN, f"auditor:{AUDITOR_TOKEN}"],
            workers=1,
            threads=4,
            extra_env=env,
            app="tests.browser.clocked_wsgi:app",
        )
        instance.start()
        try:
            yield Server(
                instance.base_url, url, allowed_port, Operator(instance.base_url), clock_file
            )
        finally:
            instance.stop()

    if request.param == "sqlite":
        yield from run(f"sqlite:///{tmp_path_factory.mktemp('browser') / 'casino.db'}")
    else:
        with pg.scratch_database("browser") as db:
            yield from run(db.url)


@pytest.fixture(scope="session")
def chromium(tmp_path_factory: pytest.TempPathFactory, browser_ready: None) -> Iterator[WebDriver]:
    """One Chromium (a fresh profile) for the session: starting one costs seconds."""
    driver = start_chromium(tmp_path_factory.mktemp("chromium") / "profile")
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def browser(chromium: WebDriver) -> WebDriver:
    """A new tab for each test (its own sessionStorage), the others closed, the console
    log emptied."""
    previous = chromium.window_handles
    chromium.switch_to.new_window("tab")
    fresh = chromium.current_window_handle
    for handle in previous:
        chromium.switch_to.window(handle)
        chromium.close()
    chromium.switch_to.window(fresh)
    chromium.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})  # type: ignore[attr-defined]
    console_errors(chromium)  # reading the log empties it
    return chromium


def assert_no_console_errors(driver: WebDriver, *expected: str) -> None:
    """No script error, CSP violation or failed load, but the refusals the test caused."""
    errors = [e for e in console_errors(driver) if not any(x in e for x in expected)]
    assert errors == [], errors
