"""Helpers of the browser tests: Debian's Chromium through selenium, the operator's API
calls, a tiny second-origin web server, and steering a player's deals with the engine."""

from __future__ import annotations

import base64
import os
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import requests
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from casino.engine.casino_war import CasinoWarDeal, deal_casino_war
from config.token_policy import random_token

CHROMIUM = os.environ.get("CASINO_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CASINO_CHROMEDRIVER", "/usr/bin/chromedriver")
# Flags that work in containers and CI: no sandbox (root), no GPU, nothing fetched from
# outside (component updates, sync, QUIC probes).
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--lang=en-US",
)
# Production refuses guessable operator tokens (config/token_policy.py): a random one.
OPERATOR_TOKEN = random_token("op_")
# An auditor's token, configured as ``auditor:TOKEN`` (the reports page's reader).
AUDITOR_TOKEN = random_token("op_")
WAIT_SECONDS = 30


def missing_browser() -> str | None:
    """Why the browser cannot run here, or None."""
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not os.access(path, os.X_OK):
            return (
                f"{path} is missing: install Debian's {package} "
                "(apt-get install -y chromium chromium-driver; .ci/run does it)"
            )
    return None


def start_chromium(profile: Path, width: int = 1280, height: int = 900) -> WebDriver:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    options.add_argument(f"--window-size={width},{height}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # An explicit driver path: selenium never looks for (or downloads) a driver itself.
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def wait_for(
    driver: WebDriver,
    condition: Callable[[WebDriver], Any],
    message: str,
    timeout: float = WAIT_SECONDS,
) -> Any:
    # The pages re-render as they play: an element found a moment ago may be gone; look again.
    waiting = WebDriverWait(
        driver,
        timeout,
        poll_frequency=0.05,
        ignored_exceptions=(StaleElementReferenceException,),
    )
    return waiting.until(condition, message)


def console_errors(driver: WebDriver) -> list[str]:
    """Errors the page logged (script errors, CSP violations, failed loads)."""
    return [
        entry["message"]
        for entry in driver.get_log("browser")  # type: ignore[attr-defined]
        if entry["level"] == "SEVERE"
    ]


def full_page_screenshot(driver: WebDriver, path: Path, width: int) -> None:
    """The whole page at ``width`` CSS pixels, not only the window."""
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 500}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)  # type: ignore[attr-defined]
    try:
        shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})  # type: ignore[attr-defined]
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})  # type: ignore[attr-defined]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(base64.b64decode(shot["data"]))


def assert_fits(driver: WebDriver, width: int) -> None:
    """At ``width`` CSS pixels (a phone) nothing is wider than the screen."""
    window_width = driver.execute_script("return innerWidth")
    metrics = {"width": width, "height": 800, "deviceScaleFactor": 1, "mobile": True}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)  # type: ignore[attr-defined]
    try:
        wait_for(driver, lambda d: d.execute_script("return innerWidth") == width, "no resize")
        overflow = driver.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"{overflow}px wider than a {width} px screen"
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})  # type: ignore[attr-defined]
        # The page lays itself out again after the override goes: a click sent before that
        # lands where a button was, not where it is (a flake seen in CI).
        wait_for(
            driver,
            lambda d: d.execute_script("return innerWidth") == window_width,
            "the window's width did not come back",
        )
        driver.execute_async_script(
            "const done = arguments[0];"
            " requestAnimationFrame(() => requestAnimationFrame(() => done(true)));"
        )


def screenshot_dir() -> Path | None:
    """``make screenshots`` sets CASINO_SCREENSHOTS_DIR; other runs leave the docs alone."""
    value = os.environ.get("CASINO_SCREENSHOTS_DIR")
    return Path(value) if value else None


# ---------------------------------------------------------------- the API, as an operator


@dataclass
class Operator:
    base_url: str
    token: str = OPERATOR_TOKEN

    def call(self, method: str, path: str, body: Any = None, **headers: str) -> Any:
        all_headers = {"Authorization": f"Bearer {self.token}", **headers}
        response = requests.request(
            method, self.base_url + path, json=body, headers=all_headers, timeout=30
        )
        assert response.ok, (method, path, response.status_code, response.text)
        return response.json() if response.content else None

    def create_table(self, table_id: str, **rules: Any) -> dict[str, Any]:
        body = {"id": table_id, "currency": "EUR", "rules": rules}
        return dict(self.call("POST", "/api/v1/tables", body))

    def create_player(self) -> dict[str, Any]:
        body = {"external_ref": f"browser-{uuid.uuid4().hex[:10]}", "display_name": "Ada"}
        return dict(self.call("POST", "/api/v1/players", body))

    def deposit(self, player_id: str, amount: int) -> None:
        body = {"currency": "EUR", "amount": amount, "reference": "browser test"}
        key = str(uuid.uuid4())
        self.call("POST", f"/api/v1/players/{player_id}/deposits", body, **{"Idempotency-Key": key})

    def launch(self, player_id: str, table_id: str) -> dict[str, Any]:
        """A launch: ``launch_url`` carries a one-time code the client exchanges."""
        body = {"table_id": table_id, "ttl_seconds": 3600}
        return dict(self.call("POST", f"/api/v1/players/{player_id}/sessions", body))

    def session_token(self, player_id: str, table_id: str) -> str:
        """A game session's token, as a client of one's own gets it: launch and exchange."""
        code = self.launch(player_id, table_id)["launch_code"]
        exchanged = requests.post(
            self.base_url + "/api/v1/sessions/exchange", json={"code": code}, timeout=30
        )
        assert exchanged.ok, exchanged.text
        return str(exchanged.json()["token"])

    def balance(self, player_id: str) -> int:
        wallets = self.call("GET", f"/api/v1/players/{player_id}/wallets")
        return int(next(w["balance"] for w in wallets if w["currency"] == "EUR"))

    def rounds(self, player_id: str) -> list[dict[str, Any]]:
        return list(self.call("GET", f"/api/v1/rounds?player_id={player_id}&limit=200")["items"])


# ---------------------------------------------------------------- steering the deal


def active_server_seed(database_url: str, player_id: str) -> tuple[bytes, int]:
    """The player's active server seed and next nonce, read from the database: how a test
    arranges known deals through the real API path (a chosen client seed), with no hook."""
    from tests.e2e.helpers import active_server_seed as read

    return read(database_url, player_id)


def find_client_seed(
    server_seed: bytes, first_nonce: int, wanted: list[Callable[[CasinoWarDeal], bool]]
) -> tuple[str, list[CasinoWarDeal]]:
    """A client seed whose deals at the next nonces satisfy ``wanted`` one by one."""
    for attempt in range(2_000_000):
        client_seed = f"browser-{attempt}"
        deals = []
        for offset, condition in enumerate(wanted):
            deal = deal_casino_war(server_seed, client_seed, first_nonce + offset, 6)
            if not condition(deal):
                break
            deals.append(deal)
        else:
            return client_seed, deals
    raise AssertionError("no client seed gives the wanted deals")


# ---------------------------------------------------------------- a second origin


@contextmanager
def page_server(page: str, port: int) -> Iterator[str]:
    """Serves ``page`` at / on 127.0.0.1:``port`` (another origin than the API's)."""
    body = page.encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.split("?")[0] != "/":
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
