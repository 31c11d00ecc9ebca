"""The live client (/play/live/) at a shared table offering the war tie bet: the player
adds one to going to war, within the decision window, in the table's steps up to its
maximum; the bet, the result and the balance as the cards pay it; on SQLite and
PostgreSQL. Screenshot for the docs."""

from __future__ import annotations

import uuid

from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select

from casino.api.schemas_tables import engine_rules
from casino.engine.casino_war import Decision, HandDecision, TableRules
from casino.engine.shared import SharedBet, settle_bet
from tests.e2e.shared_helpers import DriveDealer

from .conftest import Server, assert_no_console_errors
from .helpers import assert_fits, full_page_screenshot, screenshot_dir, wait_for
from .live_helpers import balance_shown, enabled, phase_is, place, text_of
from .test_live_table import (  # noqa: F401  (the dealer fixture)
    BETTING_SECONDS,
    DECISION_SECONDS,
    PAUSE_SECONDS,
    START,
    dealer_fixture,
    to_betting_round,
)


def war_tie_shown(driver: WebDriver) -> int:
    return int(driver.find_element(By.ID, "war-tie-amount").get_attribute("data-minor") or -1)


def test_going_to_war_with_a_war_tie_bet(
    server: Server, browser: WebDriver, dealer: DriveDealer
) -> None:
    """At a table offering the war tie bet, the player adds one to going to war, within the
    decision window, in steps of the table's increment up to its maximum."""
    operator = server.operator
    table_id = f"live-wt-{uuid.uuid4().hex[:6]}"
    body = {
        "id": table_id,
        "currency": "EUR",
        "mode": "shared",
        "shared": {"betting_seconds": BETTING_SECONDS, "pause_seconds": PAUSE_SECONDS},
        "rules": {
            "min_ante": 100,
            "bet_increment": 100,
            "surrender_allowed": True,
            "decision_seconds": DECISION_SECONDS,
            "war_tie_bet": {"enabled": True, "max": 200, "pays": 10},
        },
    }
    table = operator.call("POST", "/api/v1/tables", body)
    rules = TableRules.from_dict(engine_rules(table["rules"]))
    dealer.table_id = table_id
    ada = operator.create_player()
    operator.deposit(ada["id"], START)
    state = to_betting_round(server, dealer, tie=True)
    launch = operator.call(
        "POST",
        f"/api/v1/players/{ada['id']}/sessions",
        {"table_id": table_id, "ttl_seconds": 86_400},
    )
    browser.get(server.base_url + launch["launch_url"])
    wait_for(browser, enabled("place-bet"), "the live table did not open")
    assert "War tie bet up to €2.00, pays 10 to 1" in text_of(browser, "limits")
    assert not browser.find_element(By.ID, "war-tie").is_displayed()  # not while betting
    place(browser)
    server.advance_clock(seconds=BETTING_SECONDS + 1)
    wait_for(browser, enabled("war"), "no decision offered on the tie")
    assert browser.find_element(By.ID, "war-tie").is_displayed()
    assert "war tie bet up to €2.00: it pays 10 to 1" in text_of(browser, "war-tie-note")
    down, up = (browser.find_element(By.ID, i) for i in ("war-tie-down", "war-tie-up"))
    assert up.accessible_name == "War tie bet: €1.00 more"
    assert war_tie_shown(browser) == 0
    down.click()
    assert war_tie_shown(browser) == 0
    for _ in range(3):
        up.click()
    # No further than the table's maximum.
    wait_for(browser, lambda d: war_tie_shown(d) == 200, "the war tie bet did not grow")
    down.click()
    wait_for(browser, lambda d: war_tie_shown(d) == 100, "the war tie bet did not shrink")
    assert text_of(browser, "war-tie-amount") == "€1.00"
    if shots := screenshot_dir():
        full_page_screenshot(browser, shots / "live-table-war-tie.png", 1280)
    browser.find_element(By.ID, "war").click()
    wait_for(
        browser,
        lambda d: "You went to war with a war tie bet of €1.00." in text_of(d, "announcer"),
        "the war tie bet was not said",
    )
    wait_for(browser, phase_is("settled"), "the tie was not settled")
    assert not browser.find_element(By.ID, "war-tie").is_displayed()
    dealt = dealer.shoe(state["shoe"]).round(state["round"])
    decision = HandDecision(Decision.WAR, war_tie_bet=100)
    expected = settle_bet(rules, dealt, SharedBet(ada["id"], 100, 0, decision))
    wallet = operator.balance(ada["id"])
    assert wallet == START + expected.net
    wait_for(browser, lambda d: balance_shown(d) == wallet, "stale balance")
    assert "War tie bet €1.00" in text_of(browser, "my-bet-text")
    Select(browser.find_element(By.ID, "language")).select_by_value("pt")
    wait_for(
        browser,
        lambda d: (
            "Aposta no empate da guerra €1,00" in text_of(d, "my-bet-text")
            or "Aposta no empate da guerra 1,00" in text_of(d, "my-bet-text")
        ),
        "not in Portuguese",
    )
    assert_fits(browser, 375)
    # The choice is remembered by the browser: English again for the tests after this one.
    Select(browser.find_element(By.ID, "language")).select_by_value("en")
    wait_for(browser, lambda d: "War tie bet" in text_of(d, "my-bet-text"), "not in English")
    assert_no_console_errors(browser)
