"""The game client's words for problem documents (casino/web/static/js/problems.js), in the
browser that runs it: every code of the served spec's ``Problem.code`` enum that the table or
the free-play page can meet has a sentence, and the sentences built from a problem's members
say the figures as money and the times in words."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import requests
from selenium.webdriver.remote.webdriver import WebDriver

from .conftest import Server
from .helpers import wait_for
from .test_table import enabled

# Codes only operators' routes answer with (tables and their rules, players and tokens, the
# ledger's proofs and exports, account status changes), and HTTP statuses the service never
# sends. The client never calls those routes; a new code outside this list needs a sentence.
NOT_FOR_THE_CLIENT = frozenset(
    {
        "rules_not_integer",
        "rules_not_boolean",
        "unknown_rule",
        "decks_out_of_range",
        "tie_pays_not_allowed",
        "bet_increment_invalid",
        "min_ante_invalid",
        "max_ante_invalid",
        "max_tie_bet_invalid",
        "invalid_name",
        "invalid_expiry",
        "operator_token_not_found",
        "duplicate_external_ref",
        "invalid_external_ref",
        "invalid_display_name",
        "invalid_active",
        "duplicate_table",
        "invalid_ttl",
        "invalid_language",
        "insufficient_scope",
        "invalid_scope",
        "checkpoint_not_found",
        "transaction_not_found",
        "transaction_not_sealed",
        "invalid_status_change",
        "invalid_reason",
        "account_status_unchanged",
        "invalid_range",
        "invalid_kind",
        # the platform's management of operators
        "operator_not_found",
        "duplicate_operator",
        "invalid_operator_id",
        "invalid_operator",
        "invalid_wallet_settings",
        "gone",
        "precondition_failed",
        "request_uri_too_long",
        "requested_range_not_satisfiable",
        "expectation_failed",
        "i_m_a_teapot",
        "misdirected_request",
        "locked",
        "failed_dependency",
        "precondition_required",
        "request_header_fields_too_large",
        "unavailable_for_legal_reasons",
        "not_implemented",
        "http_version_not_supported",
    }
)

RUN = """
const [codes, problems, done] = arguments;
import("/play/assets/js/problems.js").then((words) => {
  done({
    missing: codes.filter((code) => !words.hasSentence(code)),
    said: problems.map((p) => words.describeProblem(p, { currency: "EUR" })),
  });
}, (error) => done(String(error)));
"""


def spec_codes(server: Server) -> list[str]:
    spec = requests.get(f"{server.base_url}/api/v1/openapi.json", timeout=30).json()
    return list(spec["components"]["schemas"]["Problem"]["properties"]["code"]["enum"])


def test_every_code_the_client_can_meet_is_said_in_words(
    server: Server, browser: WebDriver
) -> None:
    codes = spec_codes(server)
    assert "limit_exceeded" in codes and "session_time_limit" in codes
    assert set(codes) >= NOT_FOR_THE_CLIENT, NOT_FOR_THE_CLIENT - set(codes)
    wanted = [code for code in codes if code not in NOT_FOR_THE_CLIENT]

    # Midnight UTC after tomorrow: a day named in words, whatever the browser's zone.
    later = (datetime.now(UTC) + timedelta(days=3)).replace(hour=12, minute=0, second=0)
    problems: list[dict[str, Any]] = [
        {
            "code": "limit_exceeded",
            "status": 409,
            "detail": "this would exceed the player's daily loss limit of 10000 EUR minor units",
            "limit": "loss",
            "period": "day",
            "currency": "EUR",
            "limit_amount": 10_000,
            "used": 8_000,
            "remaining": 2_000,
            "resets_at": later.isoformat(),
        },
        {
            "code": "limit_exceeded",
            "status": 409,
            "limit": "wager",
            "period": "month",
            "limit_amount": 250_000,
            "used": 250_000,
            "remaining": 0,
            "resets_at": later.isoformat(),
        },
        {"code": "cooling_off", "status": 403, "ends_at": later.isoformat()},
        {"code": "self_excluded", "status": 403},
        {"code": "session_time_limit", "status": 403, "resets_at": later.isoformat()},
        {"code": "client_seed_fixed", "status": 409, "detail": "rounds were dealt"},
    ]
    browser.get(server.base_url + "/play/free/")
    wait_for(browser, enabled("new-game"), "the page did not load")
    browser.set_script_timeout(30)
    result = browser.execute_async_script(RUN, wanted, problems)
    assert isinstance(result, dict), result
    assert result["missing"] == [], result["missing"]

    loss, wager, cool, excluded, session, seed = result["said"]
    day = later.astimezone().strftime("%-d")  # the browser runs in this machine's zone
    assert loss.startswith(
        "This bet could take your losses over your daily loss limit of €100.00: "
        "you have lost €80.00 today, €20.00 is left. The limit starts again on "
    ), loss
    assert day in loss and "minor units" not in loss and "dayly" not in loss
    assert "monthly wager limit of €2,500.00: you have staked €2,500.00 this month" in wager
    assert "€0.00 is left" in wager  # the wallet currency stood in for the missing member
    assert cool.startswith("You are taking a break from play (cooling off)") and day in cool
    assert excluded.startswith("You are self-excluded: no new rounds or deposits.")
    assert "session time limit" in session and "play again on" in session
    assert "fixed already" in seed
