"""Every player in their own language, in a real browser: a launch with ``lang=xx`` opens a
table whose visible texts are all in that language, plays a tie, a war and a reality check
in it, and writes euros as its players read them; free play ends a game and explains its
rules in it; the switcher changes the language in place; and the longest languages (Greek,
Dutch) fit a phone and a laptop screen."""

from __future__ import annotations

import json
import re
import uuid
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select

from casino import web
from casino.engine.casino_war import CasinoWarDeal

from .conftest import Server, assert_no_console_errors
from .helpers import (
    active_server_seed,
    find_client_seed,
    full_page_screenshot,
    screenshot_dir,
    wait_for,
)
from .test_table import by_id, enabled, settled_round, visible

CATALOGUES = Path(web.__file__).parent / "static" / "i18n"
LANGUAGES = ("en", "pt", "nl", "ca", "it", "el")
#: 1,234.50 EUR as each language's players read it (the browser's English is en-US).
THOUSAND_EUROS = {
    "en": "€1,234.50",
    "pt": "1234,50 €",
    "nl": "€ 1.234,50",
    "ca": "1.234,50 €",
    "it": "1234,50 €",
    "el": "1.234,50 €",
}
#: Where js/i18n.js keeps the player's choice of language.
STORED_CHOICE = "casino.language"
#: Texts that read the same in a language as in English (names, symbols, loanwords).
SAME_AS_ENGLISH = {"Nonce", "Ante", "Casino War", "Război", "VS", "API docs"}

COLLECT_TEXTS = """
const texts = [];
const hidden = (el) => el.closest("[hidden], .sr-only, .skip, dialog:not([open])");
for (const el of document.querySelectorAll("body *")) {
  if (hidden(el) || getComputedStyle(el).display === "none") continue;
  for (const node of el.childNodes) {
    const text = node.nodeType === Node.TEXT_NODE ? node.textContent.trim() : "";
    if (text) texts.push(text);
  }
  for (const name of ["aria-label", "title", "placeholder"]) {
    if (el.getAttribute(name)) texts.push(el.getAttribute(name));
  }
}
return texts;
"""


@cache
def catalogue(language: str) -> dict[str, Any]:
    document = json.loads((CATALOGUES / f"{language}.json").read_text(encoding="utf-8"))
    return dict(document["messages"])


def say(language: str, key: str, count: int | None = None) -> str:
    message = catalogue(language)[key]
    if isinstance(message, list):
        return str(message[0] if count == 1 else message[-1])
    return str(message)


def lead(language: str, key: str, count: int | None = None) -> str:
    """A message's words before its first placeholder (what any filled-in text starts with)."""
    return say(language, key, count).split("{")[0].strip()


def plain(text: str) -> str:
    """Text as compared here: no-break and narrow spaces are spaces."""
    return text.replace("\xa0", " ").replace("\u202f", " ")


def english_only(language: str) -> set[str]:
    """The English texts whose translation differs: none may be on a page in ``language``."""
    english = catalogue("en")
    ours = catalogue(language)
    found = set()
    for key, text in english.items():
        translated = isinstance(text, str) and "{" not in text and text != ours[key]
        if translated and text not in SAME_AS_ENGLISH and len(text) > 2:
            found.add(text)
    return found


def assert_all_in(driver: WebDriver, language: str) -> None:
    assert driver.execute_script("return document.documentElement.lang") == language
    if language == "en":
        return
    shown = set(driver.execute_script(COLLECT_TEXTS))
    leftovers = sorted(shown & english_only(language))
    assert leftovers == [], f"English on the {language} page: {leftovers}"


def with_language(launch_url: str, language: str) -> str:
    """The launch URL carrying ``lang`` in its query (the launch flow puts it there when the
    operator names the player's language)."""
    if "lang=" in launch_url:
        return re.sub(r"lang=[a-z]+", f"lang={language}", launch_url)
    path, _, fragment = launch_url.partition("#")
    joiner = "&" if "?" in path else "?"
    return f"{path}{joiner}lang={language}#{fragment}"


def euros(language: str, minor: int) -> str:
    """``minor`` cents as the page writes them in ``language`` (from the 1,234.50 pattern)."""
    pattern = THOUSAND_EUROS[language]
    units, cents = divmod(minor, 100)
    group = {"en": ",", "pt": " ", "nl": ".", "ca": ".", "it": ".", "el": "."}[language]
    decimal = "." if language == "en" else ","
    whole = f"{units:,}".replace(",", group)
    if language in ("pt", "it") and units < 10_000:
        whole = str(units)  # Portugal and Italy group from five digits on (CLDR)
    number = f"{whole}{decimal}{cents:02d}"
    for written in ("1,234.50", "1.234,50", "1234,50"):
        pattern = pattern.replace(written, number)
    return pattern


def tie(deal: CasinoWarDeal) -> bool:
    return deal.is_tie


def not_tie(deal: CasinoWarDeal) -> bool:
    return not deal.is_tie


def new_player(server: Server) -> tuple[str, str]:
    operator = server.operator
    table_id = f"t-{uuid.uuid4().hex[:8]}"
    operator.create_table(table_id)
    player_id = operator.create_player()["id"]
    operator.deposit(player_id, 123_450)
    return table_id, player_id


def balance_is_the_wallet(driver: WebDriver, server: Server, player_id: str, language: str) -> None:
    wallet = server.operator.balance(player_id)
    shown = by_id(driver, "balance")
    wait_for(driver, lambda d: shown.get_attribute("data-minor") == str(wallet), "stale balance")
    assert plain(shown.text) == euros(language, wallet), (shown.text, wallet)


def dialog_open(driver: WebDriver) -> bool:
    return bool(driver.execute_script("return document.getElementById('reality-check').open"))


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_launch_in_each_language(server: Server, browser: WebDriver, language: str) -> None:
    operator = server.operator
    table_id, player_id = new_player(server)
    operator.call("PUT", f"/api/v1/players/{player_id}/limits", {"reality_check_minutes": 1})
    server_seed, nonce = active_server_seed(server.database_url, player_id)
    client_seed, _ = find_client_seed(server_seed, nonce, [tie, not_tie])
    launch = operator.launch(player_id, table_id)

    browser.get(server.base_url + with_language(launch["launch_url"], language))
    wait_for(browser, enabled("deal"), "the table did not open")
    assert plain(by_id(browser, "balance").text) == THOUSAND_EUROS[language]
    assert by_id(browser, "deal").accessible_name == say(language, "round.deal")
    assert Select(by_id(browser, "language")).first_selected_option.get_attribute("value") == (
        language
    )
    assert_all_in(browser, language)

    field = by_id(browser, "client-seed")
    field.clear()
    field.send_keys(client_seed)
    by_id(browser, "save-seed").click()
    wait_for(
        browser,
        lambda d: lead(language, "fair.seed_set") in by_id(d, "announcer").text,
        "the client seed was not set",
    )

    # A tie: the decision in words, then a war.
    by_id(browser, "deal").click()
    wait_for(browser, enabled("war"), "no decision offered on a tie")
    assert by_id(browser, "surrender").accessible_name == say(language, "round.surrender")
    assert by_id(browser, "war").accessible_name == say(language, "round.go_to_war")
    assert lead(language, "round.tie") in by_id(browser, "decision-note").text
    wait_for(
        browser,
        lambda d: say(language, "round.choose") in by_id(d, "announcer").text,
        "the tie was not announced",
    )
    assert_all_in(browser, language)
    by_id(browser, "war").click()
    settled_round(browser, 0)
    assert by_id(browser, "war-zone").is_displayed()
    burnt = browser.find_element(By.CSS_SELECTOR, "#war-zone .who")
    assert burnt.get_attribute("textContent") == say(language, "table.burnt")
    headline = by_id(browser, "headline").text
    assert headline.startswith(lead(language, "outcome.war_won").split(":")[0]), headline
    assert say(language, "bet.raise") in by_id(browser, "payouts").text
    balance_is_the_wallet(browser, server, player_id, language)
    assert_all_in(browser, language)

    # Two minutes later (the server's clock) the next round brings the reality check.
    server.advance_clock(minutes=2)
    by_id(browser, "deal").click()
    wait_for(browser, dialog_open, "no reality check shown")
    assert by_id(browser, "reality-title").text == say(language, "reality.title")
    text = by_id(browser, "reality-text").text
    assert text.startswith(lead(language, "reality.played", 2)), text
    assert by_id(browser, "reality-ack").accessible_name == say(language, "reality.acknowledge")
    wait_for(
        browser,
        lambda d: lead(language, "reality.announce") in by_id(d, "announcer").text,
        "the reality check was not announced",
    )
    assert_all_in(browser, language)
    if (folder := screenshot_dir()) is not None and language in ("el", "pt"):
        full_page_screenshot(browser, folder / f"table-reality-check-{language}.png", 1280)
    by_id(browser, "reality-ack").click()
    wait_for(browser, lambda d: not dialog_open(d), "the reality check did not close")
    wait_for(
        browser,
        lambda d: lead(language, "reality.acknowledged", 1) in by_id(d, "announcer").text,
        "the acknowledgement was not announced",
    )
    settled_round(browser, 1)
    balance_is_the_wallet(browser, server, player_id, language)
    assert_all_in(browser, language)
    if (folder := screenshot_dir()) is not None and language in ("el", "pt"):
        full_page_screenshot(browser, folder / f"table-{language}.png", 1280)
    assert_no_console_errors(browser)


@pytest.mark.parametrize("language", LANGUAGES)
def test_free_play_in_each_language(server: Server, browser: WebDriver, language: str) -> None:
    browser.get(f"{server.base_url}/play/free/?variant=three-wars&lang={language}")
    wait_for(browser, enabled("new-game"), "the page did not load the variants")
    wait_for(
        browser,
        lambda d: say(language, "variant.three-wars.title") in by_id(d, "rules").text,
        "the rules are not shown",
    )
    rules = by_id(browser, "rules").text
    first_paragraph = say(language, "variant.three-wars.rules").split("\n")[0]
    assert first_paragraph in rules
    assert say(language, "option.repeat_tie.label") in rules
    by_id(browser, "seed").send_keys("languages")
    Select(by_id(browser, "speed")).select_by_value("0")
    by_id(browser, "new-game").click()
    wait_for(browser, enabled("to-end"), "no game dealt")
    by_id(browser, "to-end").click()
    wait_for(browser, visible("result"), "the game did not end")
    result = by_id(browser, "result").text
    reasons = [text for key, text in catalogue(language).items() if key.startswith("reason.")]
    assert any(reason in result for reason in reasons), result
    assert lead(language, "free.battles") in result or "(" in result, result
    assert "languages" in result  # the seed, revealed at the end
    assert_all_in(browser, language)
    if (folder := screenshot_dir()) is not None and language in ("el", "pt"):
        full_page_screenshot(browser, folder / f"free-play-{language}.png", 1280)
    assert_no_console_errors(browser)


def test_the_switcher_changes_the_language_in_place(server: Server, browser: WebDriver) -> None:
    """The table keeps its session and round; the choice outlives a reload without ?lang=."""
    table_id, player_id = new_player(server)
    launch = server.operator.launch(player_id, table_id)
    browser.get(server.base_url + launch["launch_url"])
    wait_for(browser, enabled("deal"), "the table did not open")
    assert browser.execute_script("return document.documentElement.lang") == "en"
    try:
        switch_and_play_in_dutch(server, browser)
    finally:
        # The profile is the other tests' too: English again, and no choice kept.
        Select(by_id(browser, "language")).select_by_value("en")
        browser.execute_script(f"localStorage.removeItem({STORED_CHOICE!r})")
    wait_for(
        browser,
        lambda d: by_id(d, "deal").get_attribute("textContent") == say("en", "round.deal"),
        "no English",
    )
    assert_no_console_errors(browser)


def switch_and_play_in_dutch(server: Server, browser: WebDriver) -> None:
    Select(by_id(browser, "language")).select_by_value("nl")
    wait_for(
        browser,
        lambda d: by_id(d, "deal").get_attribute("textContent") == say("nl", "round.deal"),
        "the page did not switch to Dutch",
    )
    assert plain(by_id(browser, "balance").text) == THOUSAND_EUROS["nl"]
    assert "lang=nl" in browser.current_url
    assert_all_in(browser, "nl")
    # Played in Dutch: the round's words and the server's (a refusal) follow the choice.
    by_id(browser, "deal").click()
    wait_for(
        browser,
        lambda d: by_id(d, "deal").is_enabled() or by_id(d, "surrender").is_enabled(),
        "the round was not answered",
    )
    assert_all_in(browser, "nl")
    # A reload without ?lang= keeps the player's choice (localStorage).
    browser.get(server.base_url + "/play/")
    wait_for(
        browser,
        lambda d: by_id(d, "deal").get_attribute("textContent") == say("nl", "round.deal"),
        "the choice did not outlive the reload",
    )


def test_the_browsers_languages_choose_when_nothing_else_does(
    server: Server, browser: WebDriver
) -> None:
    """No ?lang= and no stored choice: navigator.languages (the browser's Accept-Language)."""
    agent = browser.execute_script("return navigator.userAgent")
    override = {"userAgent": agent, "acceptLanguage": "fr-FR,ca,en"}
    browser.execute_cdp_cmd("Network.setUserAgentOverride", override)  # type: ignore[attr-defined]
    try:
        browser.get(f"{server.base_url}/play/free/")
        browser.execute_script(f"localStorage.removeItem({STORED_CHOICE!r})")
        browser.refresh()
        wait_for(browser, enabled("new-game"), "the page did not load")
        assert browser.execute_script("return navigator.languages") == ["fr-FR", "ca", "en"]
        assert browser.execute_script("return document.documentElement.lang") == "ca"
        assert by_id(browser, "new-game").text == say("ca", "free.new_game_button")
        assert_all_in(browser, "ca")
        # ?lang= wins over the browser.
        browser.get(f"{server.base_url}/play/free/?lang=it")
        wait_for(
            browser, lambda d: by_id(d, "new-game").text == say("it", "free.new_game_button"), ""
        )
    finally:
        override["acceptLanguage"] = "en-US,en"
        browser.execute_cdp_cmd("Network.setUserAgentOverride", override)  # type: ignore[attr-defined]
