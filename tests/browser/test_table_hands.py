"""Tables of several hands in a real browser: three hands with two ties decided hand by hand
(a reload in between, the payouts per hand, Verify re-dealing the table's order), the new
texts in Portuguese, and five hands on a phone and a laptop in the longest languages."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from casino.engine.verify import rank_value

from .conftest import Server, assert_no_console_errors
from .helpers import assert_fits, full_page_screenshot, screenshot_dir, wait_for
from .rules_helpers import (
    LADDER_RULES,
    RECORD_DECISIONS,
    gone,
    new_table,
    open_table,
    payout_rows,
    same,
    signed_euros,
    steered,
    text,
)
from .test_language_layout import assert_fits_everywhere
from .test_languages import assert_all_in, plain, say
from .test_table import assert_balance_is_the_wallet, by_id, chip, enabled, settled_round, visible


def test_three_hands_two_ties_decided_hand_by_hand(server: Server, browser: WebDriver) -> None:
    operator = server.operator
    table_id, player_id = new_table(server, max_hands=3)
    # The dealer's card, then hands 0, 1, 2: hands 0 and 2 tie, hand 1 does not.
    client_seed, cards = steered(
        server,
        player_id,
        6,
        4,
        lambda c: same(c[0], c[1]) and not same(c[0], c[2]) and same(c[0], c[3]),
    )
    open_table(server, browser, player_id, table_id, client_seed)
    assert "Up to 3 hands" in text(browser, "limits")
    assert by_id(browser, "hand-count").is_displayed()

    # Three hands: 1.00 ante each (a copy of the last), a 1.00 tie bet on hand 1, hand 3's
    # ante raised to 2.00.
    by_id(browser, "more-hands").click()
    by_id(browser, "more-hands").click()
    assert text(browser, "hands-shown") == "3"
    assert not by_id(browser, "more-hands").is_enabled()
    by_id(browser, "spot-tie").click()
    chip(browser, "Add €1.00").click()
    by_id(browser, "spot-ante-2").click()
    chip(browser, "Add €1.00").click()
    assert text(browser, "ante-amount-2") == "€2.00"
    assert by_id(browser, "spot-ante-2").get_attribute("aria-pressed") == "true"
    assert text(browser, "bet-hint") == "3 hands, €5.00 in all."
    # A hand without an ante cannot be dealt (no tie-only bets at this table).
    by_id(browser, "spot-ante-1").click()
    browser.find_element(By.CSS_SELECTOR, "#chips .chip-clear").click()
    assert text(browser, "bet-hint") == "Hand 2: place an ante of at least €1.00."
    assert not by_id(browser, "deal").is_enabled()
    chip(browser, "Add €1.00").click()

    browser.execute_script(RECORD_DECISIONS)
    by_id(browser, "deal").click()
    wait_for(browser, enabled("war-0"), "no decision offered per hand")
    assert by_id(browser, "surrender-2").is_displayed() and by_id(browser, "war-2").is_displayed()
    assert not browser.find_elements(By.ID, "war-1")
    assert text(browser, "surrender") == "Surrender all" and text(browser, "war") == "All to war"
    assert "2 hands tie the dealer's" in text(browser, "decision-note")
    seat_words = [
        plain(e.text) for e in browser.find_elements(By.CSS_SELECTOR, "#player-cards .seat-word")
    ]
    hand_one = "Won" if rank_value(cards[2]) > rank_value(cards[0]) else "Lost"
    assert seat_words == ["Tie: choose", hand_one, "Tie: choose"]
    assert [
        e.get_attribute("data-card")
        for e in browser.find_elements(By.CSS_SELECTOR, "#player-cards .card")
    ] == cards[1:]
    assert_fits(browser, 375)
    assert_fits(browser, 1280)

    # Hand 1 to war: the round waits for hand 3, whose decision the main buttons now take.
    by_id(browser, "war-0").click()
    wait_for(browser, gone("war-0"), "hand 1's decision is still asked for")
    wait_for(browser, enabled("surrender"), "hand 3's decision is not offered")
    assert text(browser, "surrender") == "Surrender"
    assert plain(by_id(browser, "seat-0").text).endswith("To war")
    assert browser.execute_script("return window.__decisions") == [{"hands": {"0": "war"}}]
    # A reload in between finds hand 1 at war and hand 3 still waiting.
    browser.refresh()
    wait_for(browser, enabled("surrender"), "hand 3's decision did not come back after a reload")
    assert not browser.find_elements(By.ID, "war-0")
    assert plain(by_id(browser, "seat-0").text).endswith("To war")
    assert plain(by_id(browser, "seat-2").text).endswith("Tie: choose")
    assert "Hand 3: your" in text(browser, "decision-note")
    # The bets of the round's three hands stay the next deal's.
    assert text(browser, "hands-shown") == "3" and text(browser, "ante-amount-2") == "€2.00"
    browser.execute_script(RECORD_DECISIONS)
    by_id(browser, "surrender").click()
    settled_round(browser, 0)
    assert browser.execute_script("return window.__decisions") == [{"hands": {"2": "surrender"}}]

    [played] = operator.rounds(player_id)
    assert played["dealing"] == "table" and played["status"] == "settled"
    assert [h["decision"] and h["decision"]["action"] for h in played["hands"]] == [
        "war",
        None,
        "surrender",
    ]
    [war] = played["wars"]
    assert [c["hand"] for c in war["cards"]] == [0]
    assert by_id(browser, "war-zone").is_displayed()
    assert (
        by_id(browser, "war-hand-0-0")
        .find_element(By.CSS_SELECTOR, ".card")
        .get_attribute("data-card")
        == war["cards"][0]["card"]
    )
    # Each hand's bets under a row with its name and net; a screen reader hears "Hand 1 · Ante".
    net = [signed_euros(h["net"]) for h in played["hands"]]
    hand_two = (
        ["Hand 2 · Ante", "€1.00", "Win", "€2.00"]
        if hand_one == "Won"
        else ["Hand 2 · Ante", "€1.00", "Lose", "€0.00"]
    )
    assert payout_rows(browser) == [
        ["Hand 1", net[0]],
        [
            "Hand 1 · Ante",
            "€1.00",
            *(["Push", "€1.00"] if played["hands"][0]["payouts"]["ante"] else ["Lose", "€0.00"]),
        ],
        ["Hand 1 · Tie bet", "€1.00", "Win", "€11.00"],
        [
            "Hand 1 · War raise",
            "€1.00",
            *(["Win", "€2.00"] if played["hands"][0]["payouts"]["raise"] else ["Lose", "€0.00"]),
        ],
        ["Hand 2", net[1]],
        hand_two,
        ["Hand 3", net[2]],
        ["Hand 3 · Ante", "€2.00", "Half back", "€1.00"],
    ]
    won = sum(1 for h in played["hands"] if h["net"] > 0)
    assert text(browser, "headline").startswith(f"Hands won: {won} of 3.")
    assert_balance_is_the_wallet(browser, server, player_id)
    assert_fits(browser, 375)
    if (folder := screenshot_dir()) is not None:
        full_page_screenshot(browser, folder / "table-hands-375.png", 375)

    # The round of three hands verified in the browser once its seed is revealed.
    by_id(browser, "rotate").click()
    wait_for(browser, visible("revealed"), "the revealed seed is not shown")
    wait_for(browser, enabled("rotate"), "the rotation did not finish")
    browser.find_element(By.CSS_SELECTOR, f'#history button[data-round="{played["id"]}"]').click()
    wait_for(browser, visible("recall-panel"), "no recall")
    assert "Hand 3" in text(browser, "recall") and "Surrendered (decided by you)" in text(
        browser, "recall"
    )
    by_id(browser, "verify").click()
    wait_for(browser, visible("verify-result"), "no verification result")
    result = by_id(browser, "verify-result")
    assert "ok" in (result.get_attribute("class") or ""), result.text
    dealt = [e.get_attribute("data-card") for e in result.find_elements(By.CSS_SELECTOR, ".card")]
    assert dealt == [*cards, *war["burns"], war["cards"][0]["card"], war["dealer_card"]]
    if (folder := screenshot_dir()) is not None:
        full_page_screenshot(browser, folder / "table-hands.png", 1280)
    assert_no_console_errors(browser)


def test_the_new_rules_in_portuguese(server: Server, browser: WebDriver) -> None:
    rules = {**LADDER_RULES, "max_hands": 3, "tie_only": True, "decision_seconds": 120}
    table_id, player_id = new_table(server, **rules)
    client_seed, _ = steered(
        server,
        player_id,
        8,
        4,
        lambda c: same(c[0], c[1]) and not same(c[0], c[2]) and same(c[0], c[3]),
    )
    open_table(server, browser, player_id, table_id, client_seed, language="pt")
    limits = text(browser, "limits")
    for part in (
        "Até 3 mãos",
        "até 4 empates seguidos",
        "Escada da aposta no empate: 10 / 25 / 50 / 200",
        "Pode apostar só no empate",
        "120 segundos para decidir um empate",
    ):
        assert part in limits, (part, limits)
    by_id(browser, "more-hands").click()
    by_id(browser, "more-hands").click()
    assert text(browser, "bet-hint") == "3 mãos, 3,00 € no total."
    assert_all_in(browser, "pt")

    by_id(browser, "deal").click()
    wait_for(browser, enabled("war-0"), "no decision offered per hand")
    assert text(browser, "clock-text").startswith("Faltam ")
    assert text(browser, "war") == say("pt", "round.war_all")
    assert "2 mãos empatam" in text(browser, "decision-note")
    assert text(browser, "war-tie-name-0") == "Aposta no empate da guerra"
    assert_all_in(browser, "pt")
    assert_fits(browser, 375)
    if (folder := screenshot_dir()) is not None:
        full_page_screenshot(browser, folder / "table-hands-pt.png", 1280)
    by_id(browser, "war-tie-up-2").click()
    by_id(browser, "war").click()
    settled_round(browser, 0)
    assert text(browser, "headline").startswith("Mãos ganhas: ")
    assert ["Mão 3 · Aposta no empate da guerra", "1,00 €"] in [r[:2] for r in payout_rows(browser)]
    assert_all_in(browser, "pt")
    assert_fits(browser, 375)
    assert_no_console_errors(browser)


@pytest.mark.parametrize("language", ["el", "nl"])
def test_five_hands_fit_in_the_longest_languages(
    server: Server, browser: WebDriver, language: str
) -> None:
    rules = {**LADDER_RULES, "max_hands": 5, "tie_only": True, "decision_seconds": 600}
    table_id, player_id = new_table(server, **rules)
    # Hands 1 and 5 tie: two decision rows, each with its war tie bet.
    client_seed, _ = steered(
        server,
        player_id,
        8,
        6,
        lambda c: same(c[0], c[1]) and same(c[0], c[5]) and not any(same(c[0], x) for x in c[2:5]),
    )
    open_table(server, browser, player_id, table_id, client_seed, language=language)
    for _ in range(4):
        by_id(browser, "more-hands").click()
    by_id(browser, "spot-tie-4").click()
    browser.find_element(By.CSS_SELECTOR, "#chips .chip").click()  # the smallest
    assert_fits_everywhere(browser, f"five hands' bets in {language}")
    by_id(browser, "deal").click()
    wait_for(browser, enabled("war-4"), "no decision offered per hand")
    assert_all_in(browser, language)
    assert_fits_everywhere(browser, f"two of five hands deciding in {language}")
    by_id(browser, "war-tie-up-0").click()
    by_id(browser, "war").click()
    settled_round(browser, 0)
    browser.find_element(By.CSS_SELECTOR, "#history button").click()
    wait_for(browser, visible("recall-panel"), "no recall")
    assert_all_in(browser, language)
    assert_fits_everywhere(browser, f"five hands settled and recalled in {language}")
    assert_no_console_errors(browser)
