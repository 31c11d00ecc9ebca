"""The table rules of issue 21 in a real browser, one hand: repeated wars with the tie ladder
and the war tie bet (re-dealt by Verify), a tie bet alone, and the decision clock running
out (the server's clock moved forward, not slept through). Several hands:
test_table_hands.py."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from casino.engine.verify import rank_value

from .conftest import Server, assert_no_console_errors
from .helpers import assert_fits, full_page_screenshot, screenshot_dir, wait_for
from .rules_helpers import (
    LADDER_RULES,
    RECORD_DECISIONS,
    new_table,
    open_table,
    same,
    steered,
    text,
)
from .test_table import assert_balance_is_the_wallet, by_id, chip, enabled, settled_round, visible


def test_a_tied_war_fought_again_the_ladder_and_the_war_tie_bet(
    server: Server, browser: WebDriver
) -> None:
    table_id, player_id = new_table(server, **LADDER_RULES)
    # One hand (the player's card, then the dealer's): a tie, a war that ties, a war won.
    client_seed, cards = steered(
        server,
        player_id,
        8,
        12,
        lambda c: same(c[0], c[1]) and same(c[5], c[6]) and rank_value(c[10]) > rank_value(c[11]),
    )
    open_table(server, browser, player_id, table_id, client_seed)
    limits = text(browser, "limits")
    assert "A tied war is fought again, up to 4 ties in a row" in limits
    assert "Tie bet ladder: 10 / 25 / 50 / 200 to 1" in limits
    assert "War tie bet up to €100.00, pays 10 to 1" in limits
    assert not by_id(browser, "hand-count").is_displayed()

    by_id(browser, "spot-tie").click()
    chip(browser, "Add €1.00").click()
    by_id(browser, "deal").click()
    wait_for(browser, enabled("war"), "no decision offered on a tie")
    assert text(browser, "war") == "Go to war"
    assert "war tie bet up to €100.00" in text(browser, "war-tie-note")
    assert text(browser, "war-tie-0") == "—"
    by_id(browser, "war-tie-up-0").click()
    by_id(browser, "war-tie-up-0").click()
    by_id(browser, "war-tie-down-0").click()
    by_id(browser, "war-tie-up-0").click()
    assert text(browser, "war-tie-0") == "€2.00"
    assert by_id(browser, "war-tie-up-0").accessible_name == "War tie bet: €1.00 more"
    browser.execute_script(RECORD_DECISIONS)
    by_id(browser, "war").click()
    settled_round(browser, 0)
    assert browser.execute_script("return window.__decisions") == [
        {"action": "war", "war_tie_bet": 200}
    ]

    [played] = server.operator.rounds(player_id)
    [hand] = played["hands"]
    assert hand["ties"] == 2 and len(played["wars"]) == 2
    assert hand["payouts"]["tie_bet"] == 2_600 and hand["payouts"]["war_tie_bet"] == 2_200
    # Both wars on the felt, in dealing order.
    assert [
        e.get_attribute("data-card")
        for e in browser.find_elements(By.CSS_SELECTOR, "#burn-cards .card")
    ] == cards[2:5]
    assert [
        e.get_attribute("data-card")
        for e in browser.find_elements(By.CSS_SELECTOR, "#burn-cards-1 .card")
    ] == cards[7:10]
    assert [
        e.get_attribute("textContent")
        for e in browser.find_elements(By.CSS_SELECTOR, "#war-zone .war-number")
    ] == ["War 1", "War 2"]
    assert text(browser, "headline").startswith("2 ties in a row. War: your")
    payouts = text(browser, "payouts")
    assert "Tie bet €1.00 Win €26.00" in payouts  # the ladder's second step, 25 to 1
    assert "War tie bet €2.00 Win €22.00" in payouts
    assert_balance_is_the_wallet(browser, server, player_id)
    # Both wars re-dealt in the browser once the seed is revealed: twelve cards of 8 decks.
    by_id(browser, "rotate").click()
    wait_for(browser, visible("revealed"), "the revealed seed is not shown")
    wait_for(browser, enabled("rotate"), "the rotation did not finish")
    by_id(browser, "verify").click()
    wait_for(browser, visible("verify-result"), "no verification result")
    result = by_id(browser, "verify-result")
    assert "ok" in (result.get_attribute("class") or ""), result.text
    dealt = [e.get_attribute("data-card") for e in result.find_elements(By.CSS_SELECTOR, ".card")]
    assert dealt == cards
    if (folder := screenshot_dir()) is not None:
        full_page_screenshot(browser, folder / "table-ladder.png", 1280)
    assert_no_console_errors(browser)


def test_a_tie_bet_alone(server: Server, browser: WebDriver) -> None:
    table_id, player_id = new_table(server, tie_only=True)
    client_seed, cards = steered(server, player_id, 6, 2, lambda c: same(c[0], c[1]))
    open_table(server, browser, player_id, table_id, client_seed)
    assert "A tie bet alone is allowed" in text(browser, "limits")

    browser.find_element(By.CSS_SELECTOR, "#chips .chip-clear").click()
    assert text(browser, "ante-amount") == "€0.00"
    assert text(browser, "bet-hint") == "Place an ante of at least €1.00, or a tie bet alone."
    assert not by_id(browser, "deal").is_enabled()
    by_id(browser, "spot-tie").click()
    chip(browser, "Add €1.00").click()
    assert text(browser, "bet-hint") == "A tie bet alone: the first two cards settle it."
    by_id(browser, "deal").click()
    # Settled on the first two cards: a tie asks nothing of a hand without an ante.
    settled_round(browser, 0)
    assert not by_id(browser, "war").is_displayed()
    assert text(browser, "headline").startswith("Tie: your ")
    assert "your tie bet wins. You win €10.00." in text(browser, "headline")
    payouts = text(browser, "payouts")
    assert "Tie bet €1.00 Win €11.00" in payouts and "Ante" not in payouts
    [played] = server.operator.rounds(player_id)
    assert played["bets"]["ante"] == 0 and played["payouts"]["tie_bet"] == 1_100
    assert [played["player_card"], played["dealer_card"]] == cards
    assert_balance_is_the_wallet(browser, server, player_id)
    assert_no_console_errors(browser)


def test_the_decision_clock_runs_out(server: Server, browser: WebDriver) -> None:
    table_id, player_id = new_table(server, decision_seconds=30)
    client_seed, _ = steered(server, player_id, 6, 2, lambda c: same(c[0], c[1]))
    open_table(server, browser, player_id, table_id, client_seed)
    assert "30 seconds to decide a tie" in text(browser, "limits")
    assert not by_id(browser, "clock").is_displayed()

    by_id(browser, "deal").click()
    wait_for(browser, enabled("war"), "no decision offered on a tie")
    wait_for(browser, visible("clock"), "no countdown")
    # The count and its words read at once (the next tick may come between two reads).
    left, words = browser.execute_script(
        "const c = document.getElementById('clock-text');"
        "return [Number(c.dataset.seconds), c.textContent];"
    )
    assert 20 <= left <= 30, left
    assert words == f"{left} seconds left to decide"
    assert "the table surrenders for you" in text(browser, "clock-note")
    assert by_id(browser, "clock-text").get_attribute("role") == "timer"
    wait_for(
        browser,
        lambda d: int(by_id(d, "clock-text").get_attribute("data-seconds") or -1) < left,
        "the countdown does not count",
    )
    assert_fits(browser, 375)

    # Past the deadline on the server: the page's next read shows the round as the clock
    # decided it.
    server.advance_clock(seconds=31)
    settled_round(browser, 0)
    assert not by_id(browser, "clock").is_displayed()
    assert "time ran out, the table surrendered for you" in text(browser, "headline")
    [played] = server.operator.rounds(player_id)
    assert played["decision"] == {"action": "surrender", "decided_by": "timeout"}
    browser.find_element(By.CSS_SELECTOR, f'#history button[data-round="{played["id"]}"]').click()
    wait_for(browser, visible("recall-panel"), "no recall")
    assert "Surrendered (decided by the decision clock, when time ran out)" in text(
        browser, "recall"
    )
    assert_balance_is_the_wallet(browser, server, player_id)
    assert_no_console_errors(browser)
