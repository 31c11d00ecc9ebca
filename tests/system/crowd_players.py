"""The players of the crowd at one shared table (tests/system/test_shared_table_crowd.py):
API clients following the table on the event server, and players in Chromium betting
through the live page. Each is a thread that keeps what went wrong for the test to report."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterable
from typing import Any

import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver

from tests.browser.helpers import wait_for as wait_in_page
from tests.browser.live_helpers import enabled, page_said, place, round_shown, text_of
from tests.system.shared_table_helpers import EventStream

#: Whatever the load, a step of the crowd's test takes seconds; this only ends a stuck run.
PATIENCE = 120.0


class Client(threading.Thread):
    """A player of the API with a game session's token: follows the table on the event
    server and bets in ``rounds`` of shoe 1 as each opens; on a tie goes to war, surrenders
    or lets the window close (by its index). Ends when shoe 1 does."""

    def __init__(
        self, index: int, base_url: str, events_port: int, table_id: str, player: str, token: str,
        rounds: Iterable[int],
    ) -> None:  # fmt: skip
        super().__init__(daemon=True, name=f"client-{index}")
        self.index, self.base_url, self.events_port = index, base_url, events_port
        self.table_id, self.player, self.token = table_id, player, token
        self.rounds = set(rounds)
        self.action = ("war", "surrender", None)[index % 3]
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"Bearer {token}"
        self.stream: EventStream | None = None
        self.stopping = False
        self.bets: set[int] = set()
        self.missed: set[int] = set()  # the window closed before the bet came in
        self.errors: list[str] = []

    def run(self) -> None:
        try:
            self._play()
        except Exception as error:  # reported by the test
            if not self.stopping:
                self.errors.append(repr(error))

    def stop(self) -> None:
        self.stopping = True
        if self.stream is not None:
            self.stream.close()

    def _play(self) -> None:
        self.stream = EventStream(self.events_port, self.table_id, self.token)
        for event in self.stream:
            kind, shoe, number = event["type"], event["shoe"], event["round"]
            if kind == "shoe_changed" and shoe > 1:
                return  # shoe 1 is over (and revealed)
            if kind == "round_opened" and number in self.rounds:
                self._bet(number)
            elif kind == "decisions_due" and number in self.bets and self.action:
                self._decide(number, self.action)
        raise AssertionError("the event stream ended before shoe 1 did")

    def _post(self, path: str, body: dict[str, Any]) -> requests.Response:
        headers = {"Idempotency-Key": str(uuid.uuid4())}
        url = f"{self.base_url}/api/v1/tables/{self.table_id}/round/{path}"
        return self.http.post(url, json=body, headers=headers, timeout=60)

    def _bet(self, number: int) -> None:
        body = {"ante": 100 * (1 + self.index % 5), "tie_bet": 100 if self.index % 4 == 0 else 0}
        answer = self._post("bets", body)
        if answer.status_code == 201:
            self.bets.add(number)
        elif answer.status_code == 409 and answer.json().get("code") == "betting_closed":
            self.missed.add(number)
        else:
            self.errors.append(f"bet in round {number}: {answer.status_code} {answer.text}")

    def _decide(self, number: int, action: str) -> None:
        answer = self._post("decision", {"action": action})
        if answer.status_code != 200:
            self.errors.append(f"{action} in round {number}: {answer.status_code} {answer.text}")


class Browser(threading.Thread):
    """A player in Chromium: opens its launch, bets the table's minimum through the page in
    those of ``rounds`` it sees open in time (the last, the tied round, it may not miss), and
    on the tie clicks ``action`` (``war`` or ``surrender``)."""

    SAID = {"war": "You went to war.", "surrender": "You surrendered."}

    def __init__(self, driver: WebDriver, launch_url: str, action: str, rounds: list[int]):
        super().__init__(daemon=True, name=f"browser-{action}")
        self.driver, self.launch_url, self.action = driver, launch_url, action
        self.rounds, self.tied = rounds, rounds[-1]
        self.bets: list[int] = []
        self.left: list[int | None] = []  # the seconds left to bet when the page placed a bet
        self.errors: list[str] = []

    def run(self) -> None:
        try:
            self._play()
        except Exception as error:  # reported by the test
            self.errors.append(f"{error!r}; the page said {self._said()}")

    def _said(self) -> Any:
        try:
            return page_said(self.driver)
        except Exception as error:
            return repr(error)

    def _play(self) -> None:
        driver = self.driver
        driver.get(self.launch_url)
        wait_in_page(driver, lambda d: round_shown(d) is not None, "the table did not open", 60)
        for number in self.rounds:
            if self._betting(number):
                self.left.append(seconds_left(driver))
                place(driver)
                self.bets.append(number)
        wait_in_page(driver, enabled(self.action), "no decision offered on the tie", PATIENCE)
        driver.find_element(By.ID, self.action).click()
        said = self.SAID[self.action]
        wait_in_page(driver, lambda d: said in text_of(d, "my-bet-text"), "decision not shown")

    def _betting(self, number: int) -> bool:
        """Waits for round ``number`` to take bets with time left to place one (False: the
        page came after it)."""

        def ready(driver: WebDriver) -> str | None:
            shown = round_shown(driver)
            if shown is None or shown < number:
                return None
            left = seconds_left(driver)
            if shown > number or (left is not None and left < 2 and number != self.tied):
                return "late"
            return "open" if enabled("place-bet")(driver) else None

        found = wait_in_page(self.driver, ready, f"round {number} did not open", PATIENCE)
        assert found == "open" or number != self.tied, f"the page missed round {number}"
        return bool(found == "open")


def seconds_left(driver: WebDriver) -> int | None:
    """What the page's countdown shows, in seconds (None without one)."""
    left = driver.find_element(By.ID, "countdown").get_attribute("data-seconds")
    return None if left is None else int(left)
