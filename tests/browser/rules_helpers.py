"""Helpers of the table rules' browser tests (test_table_rules.py, test_table_hands.py):
tables with the rules of issue 21, deals steered by a chosen client seed through the real
API path, and what the page shows read back."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from casino.engine.verify import deal as deal_cards
from casino.engine.verify import rank_value

from .conftest import Server
from .helpers import active_server_seed, wait_for
from .test_languages import plain, with_language
from .test_table import by_id, enabled

RECORD_DECISIONS = """
window.__decisions = [];
const sent = window.fetch;
window.fetch = async (input, init = {}) => {
  if (String(input).endsWith("/decision")) window.__decisions.push(JSON.parse(init.body));
  return sent(input, init);
};
"""


def steered(
    server: Server, player_id: str, decks: int, count: int, wanted: Callable[[list[str]], bool]
) -> tuple[str, list[str]]:
    """A client seed whose next round deals ``count`` cards satisfying ``wanted`` (the
    shuffle of docs/fairness.md, read as far as the round needs)."""
    server_seed, nonce = active_server_seed(server.database_url, player_id)
    for attempt in range(500_000):
        client_seed = f"rules-{attempt}"
        cards = deal_cards(server_seed, client_seed, nonce, decks, count)
        if wanted(cards):
            return client_seed, cards
    raise AssertionError("no client seed gives the wanted deal")


def same(a: str, b: str) -> bool:
    return rank_value(a) == rank_value(b)


def new_table(server: Server, deposit: int = 20_000, **rules: Any) -> tuple[str, str]:
    operator = server.operator
    table_id = f"r-{uuid.uuid4().hex[:8]}"
    operator.create_table(table_id, **rules)
    player_id = operator.create_player()["id"]
    operator.deposit(player_id, deposit)
    return table_id, player_id


def open_table(
    server: Server,
    browser: WebDriver,
    player_id: str,
    table_id: str,
    client_seed: str,
    language: str = "en",
) -> None:
    launch = server.operator.launch(player_id, table_id)
    url = (
        launch["launch_url"] if language == "en" else with_language(launch["launch_url"], language)
    )
    browser.get(server.base_url + url)
    wait_for(browser, enabled("deal"), "the table did not open")
    field = by_id(browser, "client-seed")
    field.clear()
    field.send_keys(client_seed)
    by_id(browser, "save-seed").click()
    wait_for(
        browser,
        lambda d: (
            server.operator.call("GET", f"/api/v1/players/{player_id}/seeds")["client_seed"]
            == client_seed
        ),
        "the client seed was not saved",
    )
    wait_for(browser, enabled("deal"), "the seed form did not finish")


def text(driver: WebDriver, element_id: str) -> str:
    return plain(by_id(driver, element_id).text)


def gone(element_id: str) -> Any:
    return lambda d: not d.find_elements(By.ID, element_id)


MINUS = "\u2212"


def signed_euros(minor: int) -> str:
    """Net as the page writes it in English: +€9.00, MINUS €1.00 (no space), €0.00."""
    sign = "+" if minor > 0 else MINUS if minor < 0 else ""
    return f"{sign}€{abs(minor) // 100:,}.{abs(minor) % 100:02d}"


def payout_rows(driver: WebDriver) -> list[list[str]]:
    """The payouts' rows, cell by cell, as a screen reader reads them."""
    rows = driver.execute_script(
        "return [...document.querySelectorAll('#payouts tbody tr')]"
        ".map((tr) => [...tr.cells].map((c) => c.textContent))"
    )
    return [[plain(cell) for cell in row] for row in rows]


LADDER_RULES: dict[str, Any] = {
    "decks": 8,
    "war_ties": "repeat",
    "max_war_ties": 4,
    "tie_ladder": [10, 25, 50, 200],
    "war_tie_bet": {"enabled": True, "pays": 10, "max": 10_000},
}
