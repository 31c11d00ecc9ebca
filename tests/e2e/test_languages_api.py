"""The API's texts for people in the language Accept-Language asks for: a problem's title
and detail, a statement's title and summary, a reality check's message; the answer says which
language in Content-Language, and the stable parts (code, fields, figures) never change."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from werkzeug.exceptions import default_exceptions

from casino.api.errors import PROBLEM_CODES
from casino.i18n import LANGUAGES, catalogue, negotiate, text

from .helpers import Api, Player, assert_problem, is_tie, new_key, player_wins, steer_next_deal
from .protection_helpers import START, Clock, set_limits
from .test_openapi_contract import operations, served_spec

MISSING_ROUND = "/api/v1/rounds/0b7f2f69-5e4b-4b5d-9d3b-2f0c3c9a8a11"


def ask(api: Api, path: str, language: str | None, auth: dict[str, str]) -> Any:
    headers = {"Accept-Language": language} if language else {}
    return api.client.get(path, headers={**auth, **headers})


def test_a_problem_in_each_language(api: Api, player: Player) -> None:
    english = ask(api, MISSING_ROUND, None, player.auth)
    body = assert_problem(english, 404, "round_not_found")
    assert english.headers["Content-Language"] == "en"
    assert "Accept-Language" in english.headers["Vary"]
    assert body["title"] == "Not Found"
    english_detail = body["detail"]  # the service's own words
    for language in LANGUAGES[1:]:
        response = ask(api, MISSING_ROUND, language, player.auth)
        localized = assert_problem(response, 404, "round_not_found")
        assert response.headers["Content-Language"] == language
        assert localized["title"] == text(language, "http.404")
        assert localized["detail"] == text(language, "problem.round_not_found")
        assert localized["detail"] != english_detail
        assert {k: v for k, v in localized.items() if k not in ("title", "detail")} == {
            k: v for k, v in body.items() if k not in ("title", "detail")
        }


@pytest.mark.parametrize(
    ("header", "language"),
    [
        ("el", "el"),
        ("pt-BR,pt;q=0.9,en;q=0.8", "pt"),
        ("fr-CH, fr;q=0.9, nl;q=0.7, it;q=0.8", "it"),
        ("de, *;q=0.5", "en"),
        ("ca;q=0, nl;q=0.1", "nl"),
        ("it;q=0", "en"),
        ("xx-YY", "en"),
        ("", "en"),
        ("el;q=bad, nl;q=0.5", "nl"),
    ],
)
def test_the_language_follows_the_q_values(header: str, language: str) -> None:
    assert negotiate(header) == language


def test_a_validation_problem_keeps_its_fields(api: Api, funded: Player) -> None:
    response = api.client.post(
        "/api/v1/rounds",
        json={"table_id": "classic", "ante": "ten"},
        headers={**funded.auth, "Accept-Language": "it", "Idempotency-Key": new_key()},
    )
    body = assert_problem(response, 422, "validation_failed")
    assert response.headers["Content-Language"] == "it"
    assert body["title"] == text("it", "http.422")
    assert body["detail"] == text("it", "problem.validation_failed")
    assert "ante" in body["errors"]


def test_a_limit_refusal_names_its_figures_in_greek(
    capi: Api, gambler: Player, database_url: str
) -> None:
    set_limits(capi, gambler, {"currency": "EUR", "wager": {"day": 123_450}})
    steer_next_deal(capi, database_url, gambler, player_wins)
    assert capi.bet(gambler, ante=123_000).status_code == 201
    response = capi.client.post(
        "/api/v1/rounds",
        json={"table_id": "classic", "ante": 1_000},
        headers={**gambler.auth, "Accept-Language": "el", "Idempotency-Key": new_key()},
    )
    body = assert_problem(response, 409, "limit_exceeded")
    assert response.headers["Content-Language"] == "el"
    detail = body["detail"].replace("\xa0", " ")
    assert detail.startswith("Αυτό το πόνταρισμα θα ξεπερνούσε το ημερήσιο όριο"), detail
    assert "1.234,50 €" in detail  # the limit, as Greek players write euros
    assert "έχεις ποντάρει 1.230,00 € σήμερα, απομένουν 4,50 €" in detail
    assert "Μαρτίου 2031" in detail  # when the day's limit starts again
    assert (body["limit_amount"], body["used"], body["remaining"]) == (123_450, 123_000, 450)


def test_every_problem_code_has_its_words_in_every_language(api: Api) -> None:
    """Each code of Problem.code and of every operation's x-problem-codes, and each status a
    problem can have, in every catalogue."""
    spec = served_spec(api)
    codes = set(PROBLEM_CODES)
    codes |= set(spec["components"]["schemas"]["Problem"]["properties"]["code"]["enum"])
    for _, _, operation in operations(spec):
        codes |= set(operation.get("x-problem-codes", []))
    assert "limit_exceeded" in codes and "session_time_limit" in codes
    for language in LANGUAGES:
        entries = catalogue(language).entries
        missing = sorted(code for code in codes if f"problem.{code}" not in entries)
        assert missing == [], (language, missing)
        statuses = sorted(s for s in default_exceptions if f"http.{s}" not in entries)
        assert statuses == [], (language, statuses)


def test_the_spec_says_how_the_language_is_chosen(api: Api) -> None:
    description = served_spec(api)["info"]["description"]
    assert "Accept-Language" in description and "Content-Language" in description
    for language in LANGUAGES:
        assert f"`{language}`" in description


def statement_in(capi: Api, player: Player, language: str) -> Any:
    start = (START - timedelta(days=1)).isoformat().replace("+00:00", "Z")
    end = (START + timedelta(days=1)).isoformat().replace("+00:00", "Z")
    return capi.client.get(
        f"/api/v1/players/{player.id}/statement?from={start}&to={end}",
        headers={**player.auth, "Accept-Language": language},
    )


def test_a_statement_in_the_players_language(capi: Api, gambler: Player, database_url: str) -> None:
    steer_next_deal(capi, database_url, gambler, player_wins)
    assert capi.bet(gambler, ante=123_450).status_code == 201
    english = statement_in(capi, gambler, "en")
    dutch = statement_in(capi, gambler, "nl")
    assert english.status_code == dutch.status_code == 200
    assert dutch.headers["Content-Language"] == "nl"
    nl_body, en_body = dutch.get_json(), english.get_json()
    assert nl_body["title"].startswith("Overzicht van ") and "UTC" in nl_body["title"]
    assert en_body["title"].startswith("Statement from ")
    [line] = nl_body["currencies"]
    summary = line["summary"].replace("\xa0", " ")
    assert summary.startswith("EUR: beginsaldo € 0,00; stortingen € 10.000,00")
    assert "ingezet € 1.234,50" in summary and "1 ronde gestart" in summary
    # The figures themselves are the same numbers in every language.
    [en_line] = en_body["currencies"]
    assert {k: v for k, v in line.items() if k != "summary"} == {
        k: v for k, v in en_line.items() if k != "summary"
    }
    assert en_line["summary"].startswith("EUR: opening balance €0.00; deposits €10,000.00")


def test_a_reality_check_message_in_the_players_language(
    capi: Api, gambler: Player, database_url: str, clock: Clock
) -> None:
    set_limits(capi, gambler, {"reality_check_minutes": 1}, gambler.auth)
    steer_next_deal(capi, database_url, gambler, lambda d: not d.is_tie)
    assert capi.bet(gambler).status_code == 201
    clock.advance(minutes=2)
    steer_next_deal(capi, database_url, gambler, is_tie)
    response = capi.client.post(
        "/api/v1/rounds",
        json={"table_id": "classic", "ante": 100},
        headers={**gambler.auth, "Accept-Language": "pt-PT", "Idempotency-Key": new_key()},
    )
    assert response.status_code == 201
    assert response.headers["Content-Language"] == "pt"
    check = response.get_json()["reality_check"]
    assert check["message"] == (
        "Está a jogar há 2 minutos (desde as 12:00 UTC). "
        "Pediu uma verificação da realidade a cada 1 minuto."
    )
    protection = capi.client.get(
        f"/api/v1/players/{gambler.id}/protection",
        headers={**gambler.auth, "Accept-Language": "el"},
    )
    assert protection.headers["Content-Language"] == "el"
    message = protection.get_json()["reality_check"]["message"]
    assert message.startswith("Παίζεις εδώ και 2 λεπτά"), message


def test_answers_without_words_name_no_language(api: Api, player: Player) -> None:
    response = ask(api, f"/api/v1/players/{player.id}/wallets", "el", player.auth)
    assert response.status_code == 200
    assert "Content-Language" not in response.headers


def test_a_statement_beyond_the_ends_of_the_calendar_is_refused_in_words(
    api: Api, player: Player
) -> None:
    """Moments with no UTC equivalent (year 1 ahead of UTC, year 9999 behind it) are a 422
    invalid_period in the player's language, not a 500."""
    for start, end in (
        ("0001-01-01T00:30:00+05:00", "2030-01-01T00:00:00Z"),
        ("2030-01-01T00:00:00Z", "9999-12-31T23:30:00-05:00"),
    ):
        response = api.client.get(
            f"/api/v1/players/{player.id}/statement",
            query_string={"from": start, "to": end},
            headers={**player.auth, "Accept-Language": "el"},
        )
        body = assert_problem(response, 422, "invalid_period")
        assert body["detail"] == text("el", "problem.invalid_period")
