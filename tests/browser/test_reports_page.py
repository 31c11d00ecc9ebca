"""The operators' report page (/reports/, casino/api/static/reports) in a real browser: with
rounds played at a table, the page fetches the report with an auditor's token (the least
privileged that reads reports) from the URL fragment and draws each table's figures and its
funnel chart."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import requests
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select

from .conftest import Server, assert_no_console_errors
from .helpers import AUDITOR_TOKEN, wait_for

ROUNDS = 12


def play_rounds(server: Server, token: str, table_id: str, count: int) -> list[dict[str, Any]]:
    """``count`` settled rounds of one 1.00 ante through the API (a tie goes to war)."""
    auth = {"Authorization": f"Bearer {token}"}
    settled = []
    for _ in range(count):
        bet = requests.post(
            f"{server.base_url}/api/v1/rounds",
            json={"table_id": table_id, "ante": 100},
            headers={**auth, "Idempotency-Key": str(uuid.uuid4())},
            timeout=30,
        )
        assert bet.status_code == 201, bet.text
        round_ = bet.json()
        if round_["status"] == "awaiting_decision":
            decision = requests.post(
                f"{server.base_url}/api/v1/rounds/{round_['id']}/decision",
                json={"action": "war"},
                headers={**auth, "Idempotency-Key": str(uuid.uuid4())},
                timeout=30,
            )
            assert decision.status_code == 200, decision.text
            round_ = decision.json()
        settled.append(round_)
    return settled


def card_of(driver: WebDriver, table_id: str) -> WebElement | None:
    for card in driver.find_elements(By.CSS_SELECTOR, "#tables article.table-card"):
        if card.find_element(By.CSS_SELECTOR, ".table-head h2").text == table_id:
            return card
    return None


def kpi(card: WebElement, label: str) -> str:
    # textContent: the stylesheet shows the labels in capitals.
    for box in card.find_elements(By.CSS_SELECTOR, ".kpis .kpi"):
        if box.find_element(By.CSS_SELECTOR, ".label").get_attribute("textContent") == label:
            return str(box.find_element(By.CSS_SELECTOR, ".value").get_attribute("textContent"))
    raise AssertionError(f"no {label!r} figure")


def test_the_report_page_shows_a_tables_figures_and_funnel(
    server: Server, browser: WebDriver
) -> None:
    operator = server.operator
    table_id = f"r-{uuid.uuid4().hex[:8]}"
    operator.create_table(table_id)
    player = operator.create_player()
    operator.deposit(player["id"], 10_000)
    rounds = play_rounds(server, player["token"], table_id, ROUNDS)
    handle = sum(r["bets"]["ante"] + r["bets"]["raise"] + r["bets"]["tie_bet"] for r in rounds)
    expected = operator.call("GET", "/api/v1/reports/tables")
    ours = next(t for t in expected["tables"] if t["table_id"] == table_id)
    assert ours["total"]["rounds"] == ROUNDS and ours["total"]["all_bets"]["handle"] == handle

    # A window around today wide enough for the server's clock, which tests move forward.
    today = datetime.now(UTC).date()
    since, until = today - timedelta(days=1), today + timedelta(days=2)
    # An auditor's token is enough: the page reads the report and nothing else.
    fragment = f"token={AUDITOR_TOKEN}&since={since}&until={until}&currency=EUR"
    browser.get(f"{server.base_url}/reports/#{fragment}")
    card = wait_for(browser, lambda d: card_of(d, table_id), "the table's report is not shown")
    assert AUDITOR_TOKEN not in browser.current_url  # the fragment is dropped once read
    assert "table(s)" in browser.find_element(By.ID, "status").text

    assert kpi(card, "Rounds") == str(ROUNDS)
    assert kpi(card, "Handle") == f"€{handle // 100:,}.{handle % 100:02d}"
    assert kpi(card, "Observed RTP").endswith("%")

    # The funnel: the shaded 95 % band and its edges as drawn paths, a dot for the day and
    # the diamond of the whole period.
    chart = card.find_element(By.CSS_SELECTOR, ".chart svg")
    assert "Funnel chart" in (chart.get_attribute("aria-label") or "")
    band = chart.find_element(By.CSS_SELECTOR, "path.band")
    outline = band.get_attribute("d") or ""
    assert outline.startswith("M") and outline.count("L") >= 100, outline[:80]
    assert len(chart.find_elements(By.CSS_SELECTOR, "path.band-edge")) == 2
    dots = chart.find_elements(By.CSS_SELECTOR, "circle.dot")
    assert len(dots) >= 1 and all(float(d.get_attribute("cx") or "nan") > 0 for d in dots)
    assert chart.find_element(By.CSS_SELECTOR, "path.total").get_attribute("d")
    assert chart.size["width"] > 200 and chart.size["height"] > 100  # laid out, not empty
    assert "RTP" in chart.find_element(By.CSS_SELECTOR, "circle.dot title").get_attribute(
        "textContent"
    )

    # Another slice redraws from the report already loaded: no tie bets were placed.
    Select(browser.find_element(By.ID, "slice")).select_by_value("tie_bet")
    wait_for(
        browser,
        lambda d: "No stakes on this bet" in (card_of(d, table_id) or card).text,
        "the chart did not follow the slice",
    )
    assert_no_console_errors(browser)


def test_the_report_page_shows_issue_21_rules_and_the_war_tie_bet_line(
    server: Server, browser: WebDriver
) -> None:
    """A table of several hands, repeated wars with a ladder and a war tie bet: the rules chip
    names them, and the war tie bets have their own line (as the report has them)."""
    operator = server.operator
    table_id = f"w-{uuid.uuid4().hex[:8]}"
    operator.create_table(
        table_id,
        max_hands=3,
        war_ties="repeat",
        tie_ladder=[10, 25, 50, 200],
        war_tie_bet={"enabled": True, "pays": 10, "max": 1_000},
    )
    player = operator.create_player()
    operator.deposit(player["id"], 1_000_000)
    auth = {"Authorization": f"Bearer {player['token']}"}
    for _ in range(20):
        reply = requests.post(
            f"{server.base_url}/api/v1/rounds",
            json={"table_id": table_id, "hands": [{"ante": 100, "tie_bet": 100}] * 3},
            headers={**auth, "Idempotency-Key": str(uuid.uuid4())},
            timeout=30,
        )
        assert reply.status_code == 201, reply.text
        round_ = reply.json()
        while round_["status"] == "awaiting_decision":
            waiting = round_["awaiting_hands"]
            body = {
                "hands": {str(h): "war" for h in waiting},
                "war_tie_bets": {str(h): 100 for h in waiting},
            }
            reply = requests.post(
                f"{server.base_url}/api/v1/rounds/{round_['id']}/decision",
                json=body,
                headers={**auth, "Idempotency-Key": str(uuid.uuid4())},
                timeout=30,
            )
            assert reply.status_code == 200, reply.text
            round_ = reply.json()
    report = operator.call("GET", "/api/v1/reports/tables")
    ours = next(t for t in report["tables"] if t["table_id"] == table_id)
    war_ties_placed = ours["total"]["war_tie_bet"]["handle"] > 0

    today = datetime.now(UTC).date()
    since, until = today - timedelta(days=1), today + timedelta(days=2)
    browser.get(f"{server.base_url}/reports/#token={AUDITOR_TOKEN}&since={since}&until={until}")
    card = wait_for(browser, lambda d: card_of(d, table_id), "the table's report is not shown")
    chips = " ".join(chip.text for chip in card.find_elements(By.CSS_SELECTOR, ".chip"))
    assert "wars repeat up to 4 ties" in chips and "tie ladder 10/25/50/200:1" in chips
    assert "war tie bet 10:1" in chips
    labels = [
        row.find_element(By.CSS_SELECTOR, "td").text
        for row in card.find_elements(By.CSS_SELECTOR, ".slices tbody tr")
    ]
    assert any(label.startswith("War tie bet") for label in labels) is war_ties_placed, labels
    assert_no_console_errors(browser)
