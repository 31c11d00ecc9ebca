"""The longest languages (Greek, Dutch) on a phone (375 px) and a laptop (1,280 px): on both
pages, nothing is wider than the screen and no text spills out of its box."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select, WebDriverWait

from .conftest import Server
from .helpers import active_server_seed, find_client_seed, wait_for
from .test_languages import new_player, tie, with_language
from .test_table import by_id, enabled, settled_round, visible

WIDTHS = (375, 1280)

# Whatever sticks out of the screen, or out of its own box, unless a scroller holds it (it
# scrolls on purpose) or it is hidden (visually hidden texts, the skip link off screen).
OVERFLOWS = """
const width = arguments[0];
const found = [];
const describe = (el) => `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}` +
  `.${[...el.classList].join(".")} "${(el.textContent || "").trim().slice(0, 40)}"`;
const scrolled = (el) => {
  for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
    const overflow = getComputedStyle(p).overflowX;
    if (overflow === "auto" || overflow === "scroll") return true;
  }
  return false;
};
if (document.documentElement.scrollWidth > width) {
  found.push(`the page is ${document.documentElement.scrollWidth}px wide`);
}
for (const el of document.querySelectorAll("body *")) {
  if (el.closest("[hidden], .sr-only, .skip, dialog:not([open]), svg")) continue;
  const style = getComputedStyle(el);
  if (style.display === "none" || style.visibility === "hidden") continue;
  const box = el.getBoundingClientRect();
  if (!box.width || !box.height || scrolled(el)) continue;
  if (box.right > width + 0.5 || box.left < -0.5) found.push(`${describe(el)} leaves the screen`);
  const clips = style.overflowX === "hidden" || style.textOverflow === "ellipsis";
  const texty = ["BUTTON", "LABEL", "H1", "H2", "H3", "P", "TH", "TD", "DT", "DD", "LI", "LEGEND"];
  if (texty.includes(el.tagName) && !clips && el.scrollWidth > el.clientWidth + 1) {
    found.push(`${describe(el)} spills out of its box (${el.scrollWidth} > ${el.clientWidth})`);
  }
}
return found;
"""


def overflows(driver: WebDriver, width: int) -> list[Any]:
    metrics = {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 500}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)  # type: ignore[attr-defined]
    try:
        # A phone's viewport grows to fit content wider than the screen: then innerWidth never
        # gets to ``width``, and the script below says what is too wide.
        with contextlib.suppress(TimeoutException):
            WebDriverWait(driver, 3).until(lambda d: d.execute_script("return innerWidth") == width)
        return list(driver.execute_script(OVERFLOWS, width))
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})  # type: ignore[attr-defined]


def assert_fits_everywhere(driver: WebDriver, where: str) -> None:
    for width in WIDTHS:
        found = overflows(driver, width)
        assert found == [], f"{where} at {width}px: {found}"


@pytest.mark.parametrize("language", ["el", "nl"])
def test_the_table_fits_in_the_longest_languages(
    server: Server, browser: WebDriver, language: str
) -> None:
    operator = server.operator
    table_id, player_id = new_player(server)
    server_seed, nonce = active_server_seed(server.database_url, player_id)
    client_seed, _ = find_client_seed(server_seed, nonce, [tie])
    launch = operator.launch(player_id, table_id)
    browser.get(server.base_url + with_language(launch["launch_url"], language))
    wait_for(browser, enabled("deal"), "the table did not open")
    assert_fits_everywhere(browser, f"the {language} table")
    by_id(browser, "client-seed").clear()
    by_id(browser, "client-seed").send_keys(client_seed)
    by_id(browser, "save-seed").click()
    wait_for(
        browser,
        lambda d: (
            operator.call("GET", f"/api/v1/players/{player_id}/seeds")["client_seed"] == client_seed
        ),
        "the client seed was not saved",
    )
    wait_for(browser, enabled("deal"), "the seed form did not finish")

    # The tie bet placed, a tie to decide (the longest texts), then the war's outcome.
    by_id(browser, "spot-tie").click()
    browser.find_element("css selector", "#chips .chip").click()
    by_id(browser, "spot-ante").click()
    by_id(browser, "deal").click()
    wait_for(browser, enabled("war"), "no decision offered on a tie")
    assert_fits_everywhere(browser, f"the {language} table deciding a tie")
    by_id(browser, "war").click()
    settled_round(browser, 0)
    browser.find_element("css selector", "#history button").click()
    wait_for(browser, visible("recall-panel"), "no recall")
    assert_fits_everywhere(browser, f"the {language} table after a war")


@pytest.mark.parametrize("language", ["el", "nl"])
def test_free_play_fits_in_the_longest_languages(
    server: Server, browser: WebDriver, language: str
) -> None:
    browser.get(f"{server.base_url}/play/free/?variant=steal&lang={language}")
    wait_for(browser, enabled("new-game"), "the page did not load the variants")
    wait_for(browser, lambda d: d.find_elements("css selector", ".rules-options dt"), "no rules")
    assert_fits_everywhere(browser, f"free play in {language}")
    Select(by_id(browser, "speed")).select_by_value("0")
    by_id(browser, "seed").send_keys("layout")
    by_id(browser, "new-game").click()
    wait_for(browser, enabled("to-end"), "no game dealt")
    by_id(browser, "to-end").click()
    wait_for(browser, visible("result"), "the game did not end")
    Select(by_id(browser, "sim-games")).select_by_value("100")
    by_id(browser, "simulate").click()
    wait_for(browser, lambda d: d.find_elements("css selector", "#sim-result svg"), "no chart")
    assert_fits_everywhere(browser, f"a finished game and a simulation in {language}")
