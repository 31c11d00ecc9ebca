"""Free-play War in a real browser: a game against the computer to its end, the decisions
of a variant that has them, and a simulation with its histogram."""

from __future__ import annotations

import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.expected_conditions import staleness_of
from selenium.webdriver.support.ui import Select

from .conftest import Server, assert_no_console_errors
from .helpers import assert_fits, full_page_screenshot, screenshot_dir, wait_for
from .test_table import by_id, enabled, visible


def open_page(browser: WebDriver, server: Server, variant: str) -> None:
    browser.get(f"{server.base_url}/play/free/?variant={variant}")
    wait_for(browser, enabled("new-game"), "the page did not load the variants")
    wait_for(
        browser,
        lambda d: (
            Select(by_id(d, "variant")).first_selected_option.get_attribute("value") == variant
        ),
        "the variant was not chosen",
    )


def log_size(browser: WebDriver) -> int:
    return len(browser.find_elements(By.CSS_SELECTOR, "#log li"))


def test_a_game_against_the_computer_to_the_end(server: Server, browser: WebDriver) -> None:
    open_page(browser, server, "classic")
    Select(by_id(browser, "option-war_down")).select_by_visible_text("1")
    by_id(browser, "seed").send_keys("browser-classic")
    by_id(browser, "new-game").click()
    wait_for(browser, enabled("battle"), "no game dealt")
    assert by_id(browser, "game-title").get_attribute("textContent") == "War"
    seats = browser.find_elements(By.CSS_SELECTOR, "#seats .seat")
    assert [s.find_element(By.CSS_SELECTOR, ".seat-name").text.split()[0] for s in seats] == [
        "You",
        "Computer",
    ]
    by_id(browser, "battle").click()
    wait_for(browser, lambda d: log_size(d) == 1, "no battle in the log")
    Select(by_id(browser, "speed")).select_by_visible_text("Instant")
    by_id(browser, "to-end").click()
    wait_for(browser, visible("result"), "the game did not end")
    result = by_id(browser, "result").text
    assert "You win" in result or "Computer wins" in result or "Draw" in result, result
    assert "browser-classic" in result  # the seed is revealed at the end
    game_status = by_id(browser, "game-status").text
    battles = int(game_status.split()[1].replace(",", ""))
    assert f"({battles:,} battles" in result
    assert log_size(browser) == min(battles, 400)
    assert by_id(browser, "to-end").get_attribute("disabled") is not None
    assert "#1" in browser.find_element(By.CSS_SELECTOR, "#log li:last-child").text
    outcome = result.split(":")[0]
    wait_for(browser, lambda d: by_id(d, "announcer").text.startswith(outcome), "not announced")

    # The simulation of the same variant and options, with its histogram.
    games = 1000 if screenshot_dir() else 100  # the screenshot's chart: more games
    Select(by_id(browser, "sim-games")).select_by_value(str(games))
    by_id(browser, "simulate").click()
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#sim-result svg"), "no histogram")
    bars = browser.find_elements(By.CSS_SELECTOR, "#sim-result svg rect.bar")
    assert len(bars) >= 5
    titles = [b.find_element(By.TAG_NAME, "title").get_attribute("textContent") for b in bars]
    assert sum(int(t.split(": ")[1].split()[0]) for t in titles) == games
    stats = by_id(browser, "sim-result").text
    assert f"{games:,}\nGAMES" in stats and "MEDIAN BATTLES" in stats
    if (folder := screenshot_dir()) is not None:
        full_page_screenshot(browser, folder / "free-play.png", 1280)
    assert_fits(browser, 375)
    assert_no_console_errors(browser)


def test_the_choices_of_a_variant_with_decisions(server: Server, browser: WebDriver) -> None:
    open_page(browser, server, "hand-of-three")
    by_id(browser, "seed").send_keys("browser-hand")
    by_id(browser, "new-game").click()
    wait_for(browser, enabled("autoplay"), "no game dealt")
    by_id(browser, "autoplay").click()
    wait_for(browser, visible("decision"), "no choice offered")
    assert "from your hand" in by_id(browser, "decision").text
    hand = browser.find_elements(By.CSS_SELECTOR, "#decision button")
    assert len(hand) == 3
    label = hand[0].get_attribute("aria-label") or ""
    assert label.startswith("Play ")
    hand[0].click()
    wait_for(browser, lambda d: log_size(d) >= 1, "the chosen card was not played")
    played = browser.find_element(By.CSS_SELECTOR, "#log li:first-child").text
    assert f"You {label.removeprefix('Play ')}" in played
    Select(by_id(browser, "speed")).select_by_visible_text("Instant")
    by_id(browser, "to-end").click()
    wait_for(browser, visible("result"), "the game did not end")
    assert not by_id(browser, "decision").is_displayed()

    # Steal War: the winner of a battle chooses which won card lies on top of its pile.
    open_page(browser, server, "steal")
    by_id(browser, "seed").clear()
    by_id(browser, "seed").send_keys("abc")
    by_id(browser, "new-game").click()
    wait_for(browser, enabled("autoplay"), "no game dealt")
    by_id(browser, "autoplay").click()
    wait_for(browser, visible("decision"), "no choice offered")
    assert "on top of your pile" in by_id(browser, "decision").text
    choices = browser.find_elements(By.CSS_SELECTOR, "#decision button")
    assert len(choices) >= 2 and all(c.text.startswith("Put ") for c in choices)
    top = choices[-1].text.removeprefix("Put ").removesuffix(" on top")
    choices[-1].click()
    wait_for(
        browser,
        lambda d: f"(top {top})" in d.find_element(By.CSS_SELECTOR, "#seats .seat.human").text,
        "the chosen card is not on top of the pile",
    )
    assert_no_console_errors(browser)


def steal_seed(server: Server) -> tuple[str, int]:
    """A Steal War seed whose game, the human always putting the first offered card on top,
    reaches the human's steal-or-play choice; and how many pile-top choices come first.
    Found through the API, as the page plays it (the computer's moves follow from the seed)."""
    base = f"{server.base_url}/api/v1/free-play/games"
    for attempt in range(40):
        seed = f"browser-steal-{attempt}"
        game = requests.post(base, json={"variant": "steal", "seed": seed}, timeout=30).json()
        auth = {"Authorization": f"Bearer {game['token']}"}
        for tops in range(60):
            view = requests.post(
                f"{base}/{game['id']}/autoplay",
                json={"until": "decision"},
                headers=auth,
                timeout=30,
            ).json()
            pending = [p for p in view["pending"] if p["seat"] == 0]
            if view["result"] or not pending:
                break
            if pending[0]["kind"] == "steal-or-play":
                return seed, tops
            requests.post(
                f"{base}/{game['id']}/moves", json=pending[0]["legal"][0], headers=auth, timeout=30
            ).raise_for_status()
    raise AssertionError("no seed gives the human a steal-or-play choice")


def test_steal_wars_steal_or_play_choice(server: Server, browser: WebDriver) -> None:
    seed, tops = steal_seed(server)
    open_page(browser, server, "steal")
    Select(by_id(browser, "speed")).select_by_visible_text("Instant")
    by_id(browser, "seed").send_keys(seed)
    by_id(browser, "new-game").click()
    wait_for(browser, enabled("autoplay"), "no game dealt")

    def choice_offered(driver: WebDriver) -> bool:
        if by_id(driver, "decision").is_displayed():
            return True
        if enabled("autoplay")(driver):
            by_id(driver, "autoplay").click()
        return False

    # The pile-top choices on the way, the first card offered each time, as steal_seed did.
    for _ in range(tops):
        wait_for(browser, choice_offered, "no choice offered")
        assert "on top of your pile" in by_id(browser, "decision").text
        first = browser.find_element(By.CSS_SELECTOR, "#decision button")
        first.click()
        wait_for(
            browser,
            lambda d, b=first: staleness_of(b)(d) or not by_id(d, "decision").is_displayed(),
            "the choice was not played",
        )
    wait_for(browser, choice_offered, "no steal-or-play choice offered")
    question = by_id(browser, "decision").text
    assert "Steal the pile, or play the card?" in question, question
    names = [b.text for b in browser.find_elements(By.CSS_SELECTOR, "#decision button")]
    assert sorted(names) == ["Play", "Steal"], names
    steal = browser.find_element(By.XPATH, "//div[@id='decision']//button[text()='Steal']")
    assert steal.accessible_name == "Steal"
    steal.click()
    wait_for(
        browser,
        lambda d: any(
            "You steal Computer" in li.text for li in d.find_elements(By.CSS_SELECTOR, "#log li")
        ),
        "the steal is not in the battle log",
    )
    assert_no_console_errors(browser)
