"""The Casino War table in a real browser: launch, play through ties (surrender, war, a
reload in the middle of one), keyed retries, fairness verification and errors in words."""

from __future__ import annotations

import uuid
from typing import Any

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement

from casino.engine.casino_war import CasinoWarDeal

from .conftest import Server, assert_no_console_errors
from .helpers import (
    active_server_seed,
    assert_fits,
    find_client_seed,
    full_page_screenshot,
    screenshot_dir,
    wait_for,
)

# A network failure after the bet reached the server: the page must retry with its key.
LOSE_FIRST_ANSWER = """
window.__roundKeys = [];
const realFetch = window.fetch;
let failed = false;
window.fetch = async (input, init = {}) => {
  if (String(input).endsWith("/api/v1/rounds") && init.method === "POST") {
    window.__roundKeys.push(init.headers["Idempotency-Key"]);
    if (!failed) {
      failed = true;
      await realFetch(input, init);
      throw new TypeError("Failed to fetch (the test cut the answer off)");
    }
  }
  return realFetch(input, init);
};
"""

# A 503 with Retry-After for the first decision request: the page must wait, then retry.
REFUSE_FIRST_DECISION = """
window.__decisions = [];
const before = window.fetch;
let refused = false;
window.fetch = async (input, init = {}) => {
  if (String(input).endsWith("/decision")) {
    window.__decisions.push({ key: init.headers["Idempotency-Key"], at: performance.now() });
    if (!refused) {
      refused = true;
      const problem = {
        type: "urn:casino:problem:service_unavailable",
        title: "Service Unavailable",
        status: 503,
        detail: "The database is unavailable; retry later.",
        code: "service_unavailable",
      };
      return new Response(JSON.stringify(problem), { status: 503,
        headers: { "Content-Type": "application/problem+json", "Retry-After": "1" } });
    }
  }
  return before(input, init);
};
"""


def by_id(driver: WebDriver, element_id: str) -> WebElement:
    return driver.find_element(By.ID, element_id)


def visible(element_id: str) -> Any:
    return lambda driver: by_id(driver, element_id).is_displayed()


def enabled(element_id: str) -> Any:
    def check(driver: WebDriver) -> bool:
        element = by_id(driver, element_id)
        return element.is_displayed() and element.is_enabled()

    return check


def chip(driver: WebDriver, label: str) -> WebElement:
    return driver.find_element(By.CSS_SELECTOR, f'#chips button[aria-label="{label}"]')


def settled_round(driver: WebDriver, rounds_before: int) -> None:
    """Wait until the page shows the outcome of a new round."""
    wait_for(driver, enabled("deal"), "the round did not settle")
    wait_for(driver, visible("payouts"), "no outcome shown")
    wait_for(
        driver,
        lambda d: len(d.find_elements(By.CSS_SELECTOR, "#history li")) == rounds_before + 1,
        "the round is not in the history",
    )


def euros(minor: int) -> str:
    return f"€{minor // 100:,}.{minor % 100:02d}"


def assert_balance_is_the_wallet(driver: WebDriver, server: Server, player_id: str) -> int:
    wallet = server.operator.balance(player_id)
    shown = by_id(driver, "balance")
    wait_for(driver, lambda d: shown.get_attribute("data-minor") == str(wallet), "stale balance")
    assert shown.text == euros(wallet)
    return wallet


def not_tie(deal: CasinoWarDeal) -> bool:
    return not deal.is_tie and deal.player.rank != deal.dealer.rank


def tie(deal: CasinoWarDeal) -> bool:
    return deal.is_tie


def test_a_game_session_at_the_table(server: Server, browser: WebDriver) -> None:
    operator = server.operator
    table_id = f"t-{uuid.uuid4().hex[:8]}"
    operator.create_table(table_id)
    player = operator.create_player()
    player_id = player["id"]
    operator.deposit(player_id, 3_000)  # 30.00 EUR
    server_seed, nonce = active_server_seed(server.database_url, player_id)
    # Rounds: a plain one, then three ties (surrender, war, war after a reload).
    client_seed, _deals = find_client_seed(server_seed, nonce, [not_tie, tie, tie, tie])
    launch = operator.launch(player_id, table_id)

    browser.get(server.base_url + launch["launch_url"])
    wait_for(browser, enabled("deal"), "the table did not open")
    # The one-time code is out of the address bar and of the history entry once read; the
    # token is kept in this tab's sessionStorage only.
    assert "#" not in browser.current_url and launch["launch_code"] not in browser.current_url
    assert browser.current_url.endswith(f"/play/?table={table_id}")
    kept = browser.execute_script("return sessionStorage.getItem('casino.session-token')")
    assert kept and kept.startswith("gs_")
    # Nothing of the session in localStorage (it outlives the tab); a language chosen on this
    # device by an earlier test may be there, and is no secret.
    stored = browser.execute_script(
        "return Object.keys(localStorage).map((k) => k + '=' + localStorage.getItem(k))"
    )
    assert not [item for item in stored if kept in item or "gs_" in item or "token" in item]
    assert by_id(browser, "table-name").text == f"Table {table_id} · EUR"
    assert "Ante €1.00 \u2013 €5,000.00" in by_id(browser, "limits").text
    assert_balance_is_the_wallet(browser, server, player_id)

    # The client seed, chosen in the fairness panel.
    field = by_id(browser, "client-seed")
    field.clear()
    field.send_keys(client_seed)
    by_id(browser, "save-seed").click()
    wait_for(
        browser,
        lambda d: (
            operator.call("GET", f"/api/v1/players/{player_id}/seeds")["client_seed"] == client_seed
        ),
        "the client seed was not saved",
    )
    # Saved on the server is not yet answered in the page (Deal stays locked until it is).
    wait_for(browser, enabled("deal"), "the seed form did not finish")

    # Round 1: the answer is lost on the way back; the retry reuses the key, one charge.
    browser.execute_script(LOSE_FIRST_ANSWER)
    by_id(browser, "deal").click()
    settled_round(browser, 0)
    keys = browser.execute_script("return window.__roundKeys")
    assert len(keys) == 2 and keys[0] == keys[1] and len(keys[0]) == 36, keys
    assert len(operator.rounds(player_id)) == 1
    assert_balance_is_the_wallet(browser, server, player_id)
    wait_for(browser, lambda d: "Balance €" in by_id(d, "announcer").text, "nothing announced")

    # Real buttons named by their words (the decision pair shows on a tie, below).
    for element_id, name in (("deal", "Deal"), ("rotate", "Rotate seed"), ("verify", "Verify")):
        assert by_id(browser, element_id).tag_name == "button"
        assert by_id(browser, element_id).accessible_name == name

    # Round 2: a tie, with a 1.00 tie bet; surrendered from the keyboard.
    by_id(browser, "spot-tie").click()
    chip(browser, "Add €1.00").click()
    by_id(browser, "spot-ante").click()
    assert by_id(browser, "tie-amount").text == "€1.00"
    by_id(browser, "deal").click()
    wait_for(browser, enabled("surrender"), "no decision offered on a tie")
    assert by_id(browser, "war").is_displayed() and not by_id(browser, "deal").is_displayed()
    for element_id, name in (("surrender", "Surrender"), ("war", "Go to war")):
        assert by_id(browser, element_id).tag_name == "button"
        assert by_id(browser, element_id).accessible_name == name
    assert "Tie" in by_id(browser, "decision-note").text
    assert "Choose: surrender or go to war" in by_id(browser, "announcer").text
    # Focus moved to the decision: Enter decides.
    wait_for(
        browser,
        lambda d: d.switch_to.active_element.get_attribute("id") == "surrender",
        "focus did not move to the decision",
    )
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    settled_round(browser, 1)
    assert "surrendered" in by_id(browser, "headline").text
    payouts = by_id(browser, "payouts").text
    assert "Tie bet €1.00 Win €11.00" in payouts and "Ante €1.00 Half back €0.50" in payouts
    assert_balance_is_the_wallet(browser, server, player_id)

    # Round 3: a tie, war; the first decision request meets a 503 with Retry-After.
    by_id(browser, "spot-tie").click()
    browser.find_element(By.CSS_SELECTOR, "#chips .chip-clear").click()
    by_id(browser, "spot-ante").click()
    by_id(browser, "deal").click()
    wait_for(browser, enabled("war"), "no decision offered on the second tie")
    browser.execute_script(REFUSE_FIRST_DECISION)
    by_id(browser, "war").click()
    wait_for(browser, lambda d: "retrying" in by_id(d, "waiting").text, "no wait shown")
    settled_round(browser, 2)
    calls = browser.execute_script("return window.__decisions")
    assert len(calls) == 2 and calls[0]["key"] == calls[1]["key"]
    assert calls[1]["at"] - calls[0]["at"] >= 900  # Retry-After: 1 was honoured
    assert by_id(browser, "war-zone").is_displayed()
    assert len(browser.find_elements(By.CSS_SELECTOR, "#burn-cards .card")) == 3
    assert "War" in by_id(browser, "headline").text
    assert "War raise" in by_id(browser, "payouts").text
    assert_balance_is_the_wallet(browser, server, player_id)

    # Round 4: a tie, and the page is reloaded before deciding.
    by_id(browser, "deal").click()
    wait_for(browser, enabled("war"), "no decision offered on the third tie")
    browser.refresh()
    wait_for(browser, enabled("war"), "the decision did not come back after a reload")
    assert not by_id(browser, "deal").is_displayed()
    assert "Tie" in by_id(browser, "decision-note").text
    by_id(browser, "war").click()
    settled_round(browser, 3)
    rounds = operator.rounds(player_id)
    assert [r["status"] for r in rounds] == ["settled"] * 4
    assert [r["decision"]["action"] for r in rounds[:3]] == ["war", "war", "surrender"]
    assert_balance_is_the_wallet(browser, server, player_id)

    # Readable at 375 px: nothing wider than the screen.
    assert_fits(browser, 375)
    if (folder := screenshot_dir()) is not None:
        full_page_screenshot(browser, folder / "table-375.png", 375)

    # Fairness: rotate the seed, recall the war round, verify it in the browser.
    by_id(browser, "rotate").click()
    wait_for(browser, visible("revealed"), "the revealed seed is not shown")
    wait_for(browser, enabled("rotate"), "the rotation did not finish")
    war_round = rounds[1]
    browser.find_element(
        By.CSS_SELECTOR, f'#history button[data-round="{war_round["id"]}"]'
    ).click()
    wait_for(browser, visible("recall-panel"), "no recall")
    recall = by_id(browser, "recall").text
    ledger = ", ".join(f"#{tx}" for tx in war_round["transaction_ids"])
    assert ledger in recall
    revealed = operator.call("GET", f"/api/v1/rounds/{war_round['id']}")["fairness"]["server_seed"]
    assert revealed and revealed in recall
    by_id(browser, "verify").click()
    wait_for(browser, visible("verify-result"), "no verification result")
    result = by_id(browser, "verify-result")
    assert "ok" in (result.get_attribute("class") or "")
    assert f"Verified round #{war_round['fairness']['nonce']}" in result.text
    dealt = [e.get_attribute("data-card") for e in result.find_elements(By.CSS_SELECTOR, ".card")]
    war = war_round["war"]
    assert dealt == [
        war_round["player_card"],
        war_round["dealer_card"],
        *war["burns"],
        war["player_card"],
        war["dealer_card"],
    ]
    if (folder := screenshot_dir()) is not None:
        full_page_screenshot(browser, folder / "table.png", 1280)

    # An ante beyond the wallet: refused, in words, and nothing moves.
    wallet = server.operator.balance(player_id)
    by_id(browser, "spot-ante").click()
    browser.find_element(By.CSS_SELECTOR, "#chips .chip-clear").click()
    chip(browser, "Add €100.00").click()
    by_id(browser, "deal").click()
    wait_for(browser, visible("error"), "no error shown")
    assert "Not enough money in your wallet for this bet" in by_id(browser, "error-text").text
    assert server.operator.balance(player_id) == wallet
    assert len(operator.rounds(player_id)) == 4
    assert_balance_is_the_wallet(browser, server, player_id)
    assert_no_console_errors(
        browser,
        "/api/v1/rounds - Failed to load resource: the server responded with a status of 409",
    )


def test_the_table_explains_a_missing_or_ended_session(server: Server, browser: WebDriver) -> None:
    browser.get(server.base_url + "/play/")
    wait_for(browser, visible("error"), "no message without a session")
    assert "game link" in by_id(browser, "error-text").text
    assert not by_id(browser, "deal").is_enabled()

    operator = server.operator
    table_id = f"t-{uuid.uuid4().hex[:8]}"
    operator.create_table(table_id)
    player = operator.create_player()
    launch = operator.launch(player["id"], table_id)
    operator.call("DELETE", f"/api/v1/sessions/{launch['id']}")
    browser.get(server.base_url + launch["launch_url"])
    wait_for(browser, lambda d: "no longer valid" in by_id(d, "error-text").text, "no message")
    assert by_id(browser, "error").is_displayed()
    assert not by_id(browser, "deal").is_enabled()

    # A launch URL opens the table once: the same URL again (a copied link, the history)
    # finds its code spent.
    operator.deposit(player["id"], 1_000)
    fresh = operator.launch(player["id"], table_id)
    browser.get(server.base_url + fresh["launch_url"])
    wait_for(browser, enabled("deal"), "the table did not open")
    browser.get(server.base_url + fresh["launch_url"])
    wait_for(browser, lambda d: "no longer valid" in by_id(d, "error-text").text, "no message")
    assert not by_id(browser, "deal").is_enabled()
    # The spent launch ended this tab's session: a reload does not bring it back.
    browser.refresh()
    wait_for(browser, lambda d: "game link" in by_id(d, "error-text").text, "no message")
