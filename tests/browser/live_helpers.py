"""The live client (/play/live/) as a test reads and plays it: its texts, its buttons, a bet
placed through its controls (tests/browser/test_live_table.py and the crowd's system test,
tests/system/test_shared_table_crowd.py)."""

from __future__ import annotations

import re
from typing import Any

from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from .helpers import wait_for


def text_of(driver: WebDriver, element_id: str) -> str:
    return str(driver.find_element(By.ID, element_id).text)


def enabled(element_id: str) -> Any:
    def check(driver: WebDriver) -> bool:
        element = driver.find_element(By.ID, element_id)
        return bool(element.is_displayed() and element.is_enabled())

    return check


def phase_is(*phases: str) -> Any:
    return lambda d: d.execute_script("return document.body.dataset.phase") in phases


def round_shown(driver: WebDriver) -> int | None:
    """The number of the round the page shows ("Round 3 · …"), None before the first."""
    found = re.search(r"\d+", text_of(driver, "phase"))
    return int(found.group()) if found else None


def place(driver: WebDriver, tie_bet: bool = False) -> None:
    """The stake shown (the table's minimum ante), a tie bet of one chip if asked, placed."""
    try:
        wait_for(driver, enabled("place-bet"), "betting did not open")
    except TimeoutException as timeout:
        raise AssertionError(f"betting did not open: {page_said(driver)}") from timeout
    if tie_bet:
        driver.find_element(By.ID, "spot-tie").click()
        driver.find_element(By.CSS_SELECTOR, '#chips button[aria-label="Add €1.00"]').click()
        driver.find_element(By.ID, "spot-ante").click()
    driver.find_element(By.ID, "place-bet").click()
    wait_for(driver, lambda d: "Ante €1.00" in text_of(d, "my-bet-text"), "the bet is not shown")


def page_said(driver: WebDriver) -> dict[str, str]:
    ids = ("phase", "countdown", "bettors", "my-bet-text", "announcer", "error-text")
    said = {i: text_of(driver, i) for i in ids}
    said["follow"] = driver.execute_script("return document.body.dataset.follow")
    return said


def balance_shown(driver: WebDriver) -> int:
    return int(driver.find_element(By.ID, "balance").get_attribute("data-minor") or -1)
