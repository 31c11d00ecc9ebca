"""The live client (/play/live/) at a shared table: two players in two browsers play rounds
with the server's dealer running (``casino dealer``'s loop, on the test server's clock): a
plain round, then a tie where one goes to war and the other surrenders, one of them
following by polling once its event stream fails. Screenshots for the docs."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import Select

from casino.api.schemas_tables import engine_rules
from casino.engine.casino_war import Decision, HandDecision, TableRules
from casino.engine.shared import SharedBet, settle_bet
from casino.service.shared.runner import Dealer
from casino.store.database import Database
from tests.e2e.shared_helpers import DriveDealer

from .clock import FileClock
from .conftest import Server, assert_no_console_errors
from .helpers import assert_fits, full_page_screenshot, screenshot_dir, start_chromium, wait_for
from .live_helpers import (
    balance_shown,
    enabled,
    page_said,
    phase_is,
    place,
    round_shown,
    text_of,
)
from .test_language_layout import assert_fits_everywhere

START = 10_000  # 100.00 EUR each
BETTING_SECONDS = 60
# Long enough that a settled round stays on the pages while the test looks at them.
PAUSE_SECONDS = 30
DECISION_SECONDS = 60

# The event stream fails from now on: the page must follow the table by polling the round.
BREAK_EVENTS = """
window.__brokenEvents = 0;
const original = window.fetch;
window.fetch = (input, init) => {
  if (String(input).includes("/events")) {
    window.__brokenEvents += 1;
    return Promise.reject(new TypeError("the test cut the event stream"));
  }
  return original(input, init);
};
"""

# Which Last-Event-ID each reconnection of the event stream sent.
RECORD_EVENT_IDS = """
window.__lastEventIds = [];
const before = window.fetch;
window.fetch = (input, init = {}) => {
  if (String(input).includes("/events")) window.__lastEventIds.push(init.headers["Last-Event-ID"]);
  return before(input, init);
};
"""


@pytest.fixture(name="dealer")
def dealer_fixture(server: Server) -> Iterator[DriveDealer]:
    """The dealer's loop in a thread, on the server's database and clock (the reader of
    its state too)."""
    clock = FileClock(server.clock_file)
    database = Database.open(server.database_url, clock=clock)
    stop = threading.Event()
    thread = threading.Thread(target=Dealer(database).run, args=(stop,), daemon=True)
    thread.start()
    reader = DriveDealer(server.database_url, clock)
    try:
        yield reader
    finally:
        stop.set()
        thread.join(timeout=10)
        reader.close()
        database.dispose()


@pytest.fixture
def second_browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    driver = start_chromium(tmp_path_factory.mktemp("chromium-2") / "profile")
    try:
        yield driver
    finally:
        driver.quit()


def table_state(dealer: DriveDealer) -> dict[str, Any]:
    try:
        return dealer.state()
    except AssertionError:
        return {}


def to_betting_round(
    server: Server, dealer: DriveDealer, tie: bool = False, winner: str | None = None
) -> dict[str, Any]:
    """Moves the server's clock on, round after empty round, until the round taking bets
    deals a tie (or not; or is won by ``winner``): the shoe is known to the test from the
    stored chain."""
    state = wait_for_dealer(dealer, lambda s: "phase" in s)
    for _ in range(200):
        if state["phase"] == "betting":
            dealt = dealer.shoe(state["shoe"]).round(state["round"])
            if (dealt.winner == winner) if winner else (dealt.is_tie == tie):
                return state
            server.advance_clock(seconds=BETTING_SECONDS + 1)
            state = wait_for_dealer(
                dealer, lambda s, r=state["round"]: (s["round"], s["phase"]) != (r, "betting")
            )
        else:
            # Bets closed, cards, decisions, the pause: on to the next round's bets.
            server.advance_clock(seconds=max(PAUSE_SECONDS, DECISION_SECONDS) + 1)
            state = wait_for_dealer(
                dealer, lambda s, was=dict(state): s != was or s["phase"] == "betting"
            )
    raise AssertionError("no such round in 200 steps")


def wait_for_dealer(dealer: DriveDealer, condition: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}

    def check(_: object) -> bool:
        found.clear()
        found.update(table_state(dealer))
        return bool(condition(found))

    wait_for(None, check, "the dealer did not move the table on")  # type: ignore[arg-type]
    return found


def attributes(driver: WebDriver, selector: str, name: str) -> list[str]:
    """``data-<name>`` of the elements ``selector`` finds, read at once (the page draws
    them again at every read of the round)."""
    script = (
        "return [...document.querySelectorAll(arguments[0])].map((e) => e.dataset[arguments[1]])"
    )
    return list(driver.execute_script(script, selector, name))


def phone_screenshot(driver: WebDriver, path: Path) -> None:
    """The whole page 375 px wide: laid out at that width first, so that its height is the
    phone's (taller than the laptop's)."""
    metrics = {"width": 375, "height": 800, "deviceScaleFactor": 1, "mobile": True}
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)  # type: ignore[attr-defined]
    wait_for(driver, lambda d: d.execute_script("return innerWidth") == 375, "no resize")
    full_page_screenshot(driver, path, 375)


def create_live_table(server: Server, dealer: DriveDealer) -> tuple[str, TableRules]:
    """A shared table of its own for the test, the dealer dealing it; its id and rules."""
    table_id = f"live-{uuid.uuid4().hex[:6]}"
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
        },
    }
    table = server.operator.call("POST", "/api/v1/tables", body)
    dealer.table_id = table_id
    return table_id, TableRules.from_dict(engine_rules(table["rules"]))  # the API's names


def test_two_players_at_a_shared_table(
    server: Server, browser: WebDriver, second_browser: WebDriver, dealer: DriveDealer
) -> None:
    operator = server.operator
    table_id, rules = create_live_table(server, dealer)
    ada, bob = operator.create_player(), operator.create_player()
    for player in (ada, bob):
        operator.deposit(player["id"], START)
    state = to_betting_round(server, dealer, tie=False)

    pages = {}
    for player, driver in ((ada, browser), (bob, second_browser)):
        # A day's session: finding a tie moves the server's clock on by up to hours.
        body = {"table_id": table_id, "ttl_seconds": 86_400}
        launch = operator.call("POST", f"/api/v1/players/{player['id']}/sessions", body)
        assert launch["launch_url"].startswith(f"/play/live/?table={table_id}#code=")
        driver.get(server.base_url + launch["launch_url"])
        pages[player["id"]] = driver
    for driver in pages.values():
        wait_for(driver, enabled("place-bet"), "the live table did not open")
        assert driver.current_url.endswith(f"/play/live/?table={table_id}")
        assert text_of(driver, "table-name") == f"Table {table_id} · EUR"
        assert balance_shown(driver) == START
        wait_for(
            driver,
            lambda d: d.execute_script("return document.body.dataset.follow") == "events",
            "not following the events",
        )
        assert "Bets close in" in text_of(driver, "countdown")
    browser.execute_script(RECORD_EVENT_IDS)

    # Round 1, no tie: Ada bets the minimum, Bob adds a tie bet.
    place(browser)
    place(second_browser, tie_bet=True)
    for driver in pages.values():
        wait_for(
            driver, lambda d: text_of(d, "bettors") == "2 players betting", "bettors not counted"
        )
    assert operator.balance(ada["id"]) == START - 100
    assert operator.balance(bob["id"]) == START - 200
    server.advance_clock(seconds=BETTING_SECONDS + 1)
    dealt = dealer.shoe(state["shoe"]).round(state["round"])
    for player, tie_bet in ((ada, 0), (bob, 100)):
        driver = pages[player["id"]]
        wait_for(driver, phase_is("settled"), "the round was not settled")
        expected = settle_bet(rules, dealt, SharedBet(player["id"], 100, tie_bet))
        wallet = operator.balance(player["id"])
        assert wallet == START + expected.net
        wait_for(driver, lambda d, w=wallet: balance_shown(d) == w, "stale balance")
        said = "You win" if expected.net > 0 else "You lose" if expected.net < 0 else "even"
        wait_for(driver, lambda d, s=said: s in text_of(d, "my-result"), "no result")
        assert attributes(driver, "#player-cards .card[data-card]", "card") == [str(dealt.player)]
        assert attributes(driver, "#road li", "round")[-1] == f"{state['shoe']}-{state['round']}"
    # The stream was resumed after the last event seen, every time.
    ids = [int(i) for i in browser.execute_script("return window.__lastEventIds")]
    assert ids and ids == sorted(ids) and ids[-1] > 0, ids

    # Bob's event stream fails: his page follows by polling the round from then on.
    second_browser.execute_script(BREAK_EVENTS)
    wait_for(
        second_browser,
        lambda d: d.execute_script("return document.body.dataset.follow") == "polling",
        "no fall back to polling",
    )

    # A tie: Ada goes to war, Bob surrenders.
    state = to_betting_round(server, dealer, tie=True)
    balances = {p["id"]: operator.balance(p["id"]) for p in (ada, bob)}
    place(browser)
    place(second_browser)
    server.advance_clock(seconds=BETTING_SECONDS + 1)
    for driver in pages.values():
        try:
            wait_for(driver, enabled("war"), "no decision offered on the tie")
        except TimeoutException as timeout:
            raise AssertionError(
                f"no decision offered: {page_said(driver)}, {dealer.state()}"
            ) from timeout
        assert "Decide within" in text_of(driver, "countdown")
        assert not driver.find_element(By.ID, "war-tie").is_displayed()  # none at this table
        assert driver.find_element(By.ID, "surrender").accessible_name == "Surrender"
        wait_for(
            driver,
            lambda d: d.switch_to.active_element.get_attribute("id") == "surrender",
            "focus did not move to the decision",
        )
        assert "Choose: surrender or go to war." in text_of(driver, "announcer")
    shots = screenshot_dir()
    if shots:
        full_page_screenshot(browser, shots / "live-table-decision.png", 1280)
        phone_screenshot(second_browser, shots / "live-table-decision-phone.png")
    browser.find_element(By.ID, "war").click()
    second_browser.find_element(By.ID, "surrender").click()
    dealt = dealer.shoe(state["shoe"]).round(state["round"])
    for player, decision, said in (
        (ada, Decision.WAR, "You went to war."),
        (bob, Decision.SURRENDER, "You surrendered."),
    ):
        driver = pages[player["id"]]
        wait_for(driver, phase_is("settled"), "the tie was not settled")
        wait_for(driver, lambda d, s=said: s in text_of(d, "my-bet-text"), "decision not shown")
        expected = settle_bet(rules, dealt, SharedBet(player["id"], 100, 0, HandDecision(decision)))
        wallet = operator.balance(player["id"])
        assert wallet == balances[player["id"]] + expected.net
        wait_for(driver, lambda d, w=wallet: balance_shown(d) == w, "stale balance")
        war_cards = [str(war.player_card) for war in dealt.wars]
        assert attributes(driver, "#war-player .card[data-card]", "card") == war_cards
        assert attributes(driver, "#road li", "round")[-1] == f"{state['shoe']}-{state['round']}"
    assert second_browser.execute_script("return window.__brokenEvents") >= 3

    if shots:
        full_page_screenshot(browser, shots / "live-table.png", 1280)
        phone_screenshot(second_browser, shots / "live-table-phone.png")
    for driver in pages.values():
        assert_fits(driver, 375)
        assert_fits_everywhere(driver, "the live table after a war")
    # In Greek, switched at the table: its words, still fitting a phone and a laptop.
    Select(second_browser.find_element(By.ID, "language")).select_by_value("el")
    wait_for(second_browser, lambda d: "Γύρος" in text_of(d, "phase"), "not in Greek")
    assert "Παραδόθηκες." in text_of(second_browser, "my-bet-text")
    assert text_of(second_browser, "road-title") == "Τελευταία 50 αποτελέσματα"
    assert_fits_everywhere(second_browser, "the live table in Greek")
    assert_no_console_errors(browser)
    assert_no_console_errors(second_browser, "the test cut the event stream")


# The page's reads of the round and of its events wait while held, and go when released;
# __reading counts those sent and not answered yet.
HOLD_READS = """
window.__hold = true;
window.__reading = 0;
const held = [];
window.__release = () => {
  window.__hold = false;
  held.splice(0).forEach((go) => go());
};
const plain = window.fetch;
window.fetch = (input, init = {}) => {
  const path = String(input).split("?")[0];
  const reading = /\\/(round|events)$/.test(path) && (init.method || "GET") === "GET";
  if (!reading) return plain(input, init);
  const go = () => {
    window.__reading += 1;
    return plain(input, init).finally(() => { window.__reading -= 1; });
  };
  return window.__hold ? new Promise((resolve) => held.push(() => resolve(go()))) : go();
};
"""


def test_the_balance_after_a_round_the_page_saw_no_end_of(
    server: Server, browser: WebDriver, dealer: DriveDealer
) -> None:
    """The page reads nothing from its bet until the next round takes bets (a short pause,
    reads late or lost): the round it bet on ended unseen, and the balance it shows is the
    wallet's all the same."""
    operator = server.operator
    table_id, rules = create_live_table(server, dealer)
    ada = operator.create_player()["id"]
    operator.deposit(ada, START)
    state = to_betting_round(server, dealer, winner="player")
    body = {"table_id": table_id, "ttl_seconds": 86_400}
    launch = operator.call("POST", f"/api/v1/players/{ada}/sessions", body)
    browser.get(server.base_url + launch["launch_url"])
    place(browser)
    assert balance_shown(browser) == START - 100
    browser.execute_script(HOLD_READS)
    wait_for(browser, lambda d: d.execute_script("return window.__reading") == 0, "reads")
    server.advance_clock(seconds=BETTING_SECONDS + 1)
    wait_for_dealer(dealer, lambda s: s["phase"] == "settled")
    server.advance_clock(seconds=PAUSE_SECONDS + 1)
    wait_for_dealer(dealer, lambda s: (s["round"], s["phase"]) == (state["round"] + 1, "betting"))
    wallet = operator.balance(ada)
    dealt = dealer.shoe(state["shoe"]).round(state["round"])
    assert wallet == START + settle_bet(rules, dealt, SharedBet(ada, 100, 0)).net > START
    assert round_shown(browser) == state["round"] and balance_shown(browser) == START - 100
    browser.execute_script("window.__release()")
    wait_for(browser, lambda d: round_shown(d) == state["round"] + 1, "the next round not shown")
    wait_for(browser, lambda d: balance_shown(d) == wallet, "the balance of the round unseen")
    assert_no_console_errors(browser)


# A stream that stays open (the event server's): frames cut across chunks, keep-alive
# comments, a retry; the follower hands every event over once, in order, and reconnects
# with the last id it saw.
FOLLOW_AN_OPEN_STREAM = """
const done = arguments[arguments.length - 1];
const { Follower } = await import("/play/assets/js/live-follow.js");
const sent = [];
const chunks = [
  "retry: 10\\n\\n: keep-alive\\n\\nid: 7\\nevent: round_opened\\ndata: {\\"id\\":7,",
  "\\"type\\":\\"round_opened\\"}\\n\\n: keep-alive\\n\\nid: 8\\nevent: bets_closed\\n",
  "data: {\\"id\\":8,\\"type\\":\\"bets_closed\\"}\\n\\nid: 7\\ndata: {\\"id\\":7}\\n\\n",
];
window.fetch = async (url, init) => {
  sent.push(init.headers["Last-Event-ID"]);
  const parts = sent.length === 1 ? chunks : [];
  const body = new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
      controller.close();
    },
  });
  return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
};
const seen = [];
const follower = new Follower({
  client: { base: "", token: "gs_x" },
  tableId: "t",
  after: 6,
  onEvent: (event) => {
    seen.push(event.id);
    if (seen.length === 2) setTimeout(() => follower.stop(), 50);
  },
  onPoll: async () => {},
  onMode: () => {},
});
await follower.run();
done({ seen, sent });
"""


def test_the_follower_reads_a_stream_that_stays_open(server: Server, browser: WebDriver) -> None:
    browser.get(server.base_url + "/play/live/?table=t")
    wait_for(browser, lambda d: d.find_element(By.ID, "error").is_displayed(), "no page")
    result = browser.execute_async_script(FOLLOW_AN_OPEN_STREAM)
    assert result["seen"] == [7, 8]
    assert result["sent"][:2] == ["6", "8"]
