"""The table in a real browser, where protection and fairness ask the client for more than
playing: a reality check shown and acknowledged (the server's clock moved forward, never
slept on), a fresh client seed brought to every pair the player did not seed, a money
request of unknown fate that locks the game until Retry sends it again with its key, and a
limit refusal in words."""

from __future__ import annotations

import re
import uuid
from datetime import date, datetime
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from .conftest import Server, assert_no_console_errors
from .helpers import wait_for
from .test_table import (
    assert_balance_is_the_wallet,
    by_id,
    chip,
    enabled,
    settled_round,
    visible,
)

HEX_SEED = re.compile(r"[0-9a-f]{32}")

# The connection drops for every bet until the test says so: the first one reaches the server
# (its answer is lost), the page's own retries do not. The backoff between those retries is
# shortened: what the test is about comes after them.
OFFLINE_BETS = """
window.__bets = [];
window.__offline = true;
const realFetch = window.fetch;
let reached = false;
window.fetch = async (input, init = {}) => {
  if (String(input).endsWith("/api/v1/rounds") && init.method === "POST") {
    const bet = { key: init.headers["Idempotency-Key"], body: JSON.parse(init.body) };
    window.__bets.push(bet);
    if (window.__offline) {
      if (!reached) {
        reached = true;
        await realFetch(input, init);
      }
      throw new TypeError("Failed to fetch (the test is offline)");
    }
    const response = await realFetch(input, init);
    bet.replayed = response.headers.get("Idempotent-Replayed");
    return response;
  }
  return realFetch(input, init);
};
const realTimeout = window.setTimeout;
window.setTimeout = (work, ms, ...rest) => realTimeout(work, ms >= 400 ? ms / 50 : ms, ...rest);
"""


def new_player(server: Server, deposit: int = 5_000) -> tuple[str, str]:
    operator = server.operator
    table_id = f"t-{uuid.uuid4().hex[:8]}"
    operator.create_table(table_id)
    player_id = operator.create_player()["id"]
    operator.deposit(player_id, deposit)
    return table_id, player_id


def seeds(server: Server, player_id: str) -> dict[str, Any]:
    return dict(server.operator.call("GET", f"/api/v1/players/{player_id}/seeds"))


def open_table(server: Server, browser: WebDriver, player_id: str, table_id: str) -> None:
    launch = server.operator.launch(player_id, table_id)
    browser.get(server.base_url + launch["launch_url"])
    wait_for(browser, enabled("deal"), "the table did not open")


def finish(driver: WebDriver, rounds_before: int) -> None:
    """Wait for the round just dealt to settle; on a tie (the page chose the client seed, so
    the deal cannot be steered) surrender it."""

    def answered(d: WebDriver) -> bool:
        shown = len(d.find_elements(By.CSS_SELECTOR, "#history li")) == rounds_before + 1
        return shown and (by_id(d, "deal").is_enabled() or by_id(d, "surrender").is_enabled())

    wait_for(driver, answered, "the round was not answered")
    if by_id(driver, "surrender").is_displayed():
        by_id(driver, "surrender").click()
    settled_round(driver, rounds_before)


def play(driver: WebDriver, rounds_before: int) -> None:
    by_id(driver, "deal").click()
    finish(driver, rounds_before)


def dialog_open(driver: WebDriver) -> bool:
    return bool(driver.execute_script("return document.getElementById('reality-check').open"))


def test_a_reality_check_and_fresh_client_seeds(server: Server, browser: WebDriver) -> None:
    operator = server.operator
    table_id, player_id = new_player(server)
    default = seeds(server, player_id)
    assert default["client_seed_chosen"] is False
    operator.call("PUT", f"/api/v1/players/{player_id}/limits", {"reality_check_minutes": 1})
    open_table(server, browser, player_id, table_id)
    assert "your next bet brings a fresh random one" in by_id(browser, "seed-note").text

    # The first bet of the server-seeded pair brings the player's own random client seed.
    play(browser, 0)
    first = operator.rounds(player_id)[0]["fairness"]["client_seed"]
    assert HEX_SEED.fullmatch(first) and first != default["client_seed"], first
    chosen = seeds(server, player_id)
    assert chosen["client_seed_chosen"] is True and chosen["client_seed"] == first
    assert by_id(browser, "client-seed").get_attribute("value") == first
    assert not dialog_open(browser)

    # Two minutes later (the server's clock), the next round's answer brings the check.
    server.advance_clock(minutes=2)
    by_id(browser, "deal").click()
    wait_for(browser, dialog_open, "no reality check shown")
    assert by_id(browser, "reality-check").is_displayed()
    text = by_id(browser, "reality-text").text
    assert re.search(r"You have been playing for \d+ minutes", text), text
    assert "every 1 minute" in text
    assert "2 rounds" in by_id(browser, "reality-session").text
    wait_for(
        browser, lambda d: "Reality check" in by_id(d, "announcer").text, "check not announced"
    )
    ack = by_id(browser, "reality-ack")
    assert ack.tag_name == "button" and ack.accessible_name == "Acknowledge"
    assert browser.switch_to.active_element == ack  # the modal dialog has the focus
    assert not by_id(browser, "deal").is_enabled()  # no bet until acknowledged
    due = operator.call("GET", f"/api/v1/players/{player_id}/protection")["reality_check"]
    assert due is not None

    ack.click()
    wait_for(browser, lambda d: not dialog_open(d), "the reality check did not close")
    # Announced as the dialog closes (before a tie's surrender below announces its own result).
    wait_for(browser, lambda d: "acknowledged" in by_id(d, "announcer").text, "not announced")
    finish(browser, 1)
    assert not by_id(browser, "reality-check").is_displayed()
    protection = operator.call("GET", f"/api/v1/players/{player_id}/protection")
    assert protection["reality_check"] is None
    wait_for(browser, enabled("deal"), "Deal stays locked after the acknowledgement")
    play(browser, 2)
    assert not dialog_open(browser)  # acknowledged: the next interval starts now

    # A rotation without a client seed carries the old one over, not chosen for the new
    # pair: its first bet brings a fresh one again.
    by_id(browser, "rotate").click()
    wait_for(browser, visible("revealed"), "no rotation")
    wait_for(browser, enabled("rotate"), "the rotation did not finish")
    rotated = seeds(server, player_id)
    assert rotated["client_seed_chosen"] is False and rotated["client_seed"] == first
    wait_for(browser, enabled("deal"), "Deal locked after the rotation")
    play(browser, 3)
    rounds = operator.rounds(player_id)
    latest = rounds[0]["fairness"]
    assert latest["server_seed_hash"] == rotated["server_seed_hash"]
    assert HEX_SEED.fullmatch(latest["client_seed"]) and latest["client_seed"] != first
    assert [r["fairness"]["client_seed"] for r in rounds[1:]] == [first] * 3
    assert_balance_is_the_wallet(browser, server, player_id)
    assert_no_console_errors(browser)


def reset_day(operator: Any, player_id: str) -> str:
    """How the page names the day the wager limit starts again, seen from the device's
    today: "today", "tomorrow", or "on <date>"."""
    limits = operator.call("GET", f"/api/v1/players/{player_id}/limits")["money"]
    wager = next(lim for lim in limits if lim["limit"] == "wager" and lim["period"] == "day")
    resets = datetime.fromisoformat(wager["resets_at"]).astimezone()
    days = (resets.date() - date.today()).days
    return {0: "today", 1: "tomorrow"}.get(days, "on [^.]+")


def test_retry_after_a_lost_answer_and_a_limit_in_words(server: Server, browser: WebDriver) -> None:
    operator = server.operator
    table_id, player_id = new_player(server)
    # A daily wager limit of one minimum bet: the second bet is refused.
    limits = {"currency": "EUR", "wager": {"day": 100}}
    operator.call("PUT", f"/api/v1/players/{player_id}/limits", limits)
    open_table(server, browser, player_id, table_id)

    browser.execute_script(OFFLINE_BETS)
    by_id(browser, "deal").click()
    wait_for(browser, visible("retry"), "no Retry offered after the connection broke")
    assert "can never be counted twice" in by_id(browser, "error-text").text
    # The bet's fate is unknown to the page (it did reach the server): nothing may send a new
    # one with a new key, nor change the stakes, until it is settled.
    assert len(operator.rounds(player_id)) == 1
    assert not by_id(browser, "deal").is_enabled()
    assert not chip(browser, "Add €1.00").is_enabled()
    assert not by_id(browser, "spot-tie").is_enabled()
    assert not by_id(browser, "rotate").is_enabled()
    assert not by_id(browser, "dismiss").is_displayed()
    sent = browser.execute_script("return window.__bets")
    assert len(sent) == 5 and len({bet["key"] for bet in sent}) == 1, sent

    browser.execute_script("window.__offline = false")
    by_id(browser, "retry").click()
    finish(browser, 0)
    bets = browser.execute_script("return window.__bets")
    assert len({bet["key"] for bet in bets}) == 1, bets
    assert all(bet["body"] == bets[0]["body"] for bet in bets)  # the same stake and seed
    assert bets[-1]["replayed"] == "true"  # the server's first answer, not a second bet
    assert len(operator.rounds(player_id)) == 1
    assert not by_id(browser, "error").is_displayed()
    assert_balance_is_the_wallet(browser, server, player_id)

    # The next bet goes over the wager limit: refused, in words, with the figures.
    by_id(browser, "deal").click()
    wait_for(browser, visible("error"), "no refusal shown")
    words = by_id(browser, "error-text").text
    assert "daily wager limit of €1.00" in words, words
    assert "you have staked €1.00 today, €0.00 is left" in words, words
    # In words from the device's day to the reset's (the server's clock may run days ahead
    # of the device's: the shared-table tests move it on by hours).
    assert re.search(rf"starts again {reset_day(operator, player_id)} at \d{{1,2}}:\d\d", words), (
        words
    )
    assert "minor units" not in words
    assert len(operator.rounds(player_id)) == 1
    assert_no_console_errors(
        browser,
        "/api/v1/rounds - Failed to load resource: the server responded with a status of 409",
    )
