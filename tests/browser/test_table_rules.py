"""The table rules of issue 21 in a real browser: several hands with a tie decided hand by
hand, repeated wars with the tie ladder and the war tie bet, a tie bet alone, and the
decision clock running out (the server's clock moved forward, not slept through); the new
texts in Portuguese; the layout at 375 and 1,280 px."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from casino.engine.verify import deal as deal_cards
from casino.engine.verify import rank_value

from .conftest import Server, assert_no_console_errors
from .helpers import active_server_seed, assert_fits, full_page_screenshot, screenshot_dir, wait_for
from .test_language_layout import assert_fits_everywhere
from .test_languages import assert_all_in, plain, say, with_language
from .test_table import (
    assert_balance_is_the_wallet,
    by_id,
    chip,
    enabled,
    settled_round,
    visible,
)

# Every decision request's body, as the page sent it.
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


def exists(element_id: str) -> Any:
    return lambda d: bool(d.find_elements(By.ID, element_id))


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


LADDER_RULES: dict[str, Any] = {
    "decks": 8,
    "war_ties": "repeat",
    "max_war_ties": 4,
    "tie_ladder": [10, 25, 50, 200],
    "war_tie_bet": {"enabled": True, "pays": 10, "max": 10_000},
}


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
