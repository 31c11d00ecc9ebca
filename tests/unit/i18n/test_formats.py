"""Money, moments and plurals as the server words them in each language."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from casino.i18n import clock_time, moment, money, on_day, plural_text

WHEN = datetime(2031, 3, 6, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("language", "written"),
    [
        ("en", "€1,234.50"),
        ("nl", "€ 1.234,50"),
        ("ca", "1.234,50 €"),
        ("it", "1.234,50 €"),
        ("el", "1.234,50 €"),
    ],
)
def test_euros_as_each_language_writes_them(language: str, written: str) -> None:
    assert money(language, 123_450, "EUR").replace("\xa0", " ") == written


def test_minor_units_follow_iso_4217() -> None:
    assert money("en", 1_234, "JPY") == "JP¥1,234"  # no minor unit (en_GB names the yen)
    assert money("en", 1_234, "KWD").replace("\xa0", "") == "KWD1.234"  # three


def test_moments_say_utc_and_name_the_day_in_a_sentence() -> None:
    assert moment("en", WHEN) == "06/03/2031, 00:00 UTC"
    assert clock_time("nl", WHEN + timedelta(hours=14, minutes=2)) == "14:02 UTC"
    assert on_day("en", WHEN) == "on 6 March 2031 at 00:00 UTC"
    assert on_day("it", WHEN) == "il 6 marzo 2031 alle 00:00 UTC"
    # Another offset is the same moment.
    assert moment("en", WHEN.astimezone(timezone(timedelta(hours=-5)))) == moment("en", WHEN)


def test_a_moment_with_no_utc_equivalent_is_written_as_given() -> None:
    early = datetime(1, 1, 1, 0, 30, tzinfo=timezone(timedelta(hours=5)))
    assert moment("el", early) == clock_time("el", early) == "0001-01-01T00:30:00+05:00"
    assert on_day("pt", early) == "0001-01-01T00:30:00+05:00"


@pytest.mark.parametrize(("count", "english"), [(1, "1 round started"), (2, "2 rounds started")])
def test_plural_forms_follow_the_count(count: int, english: str) -> None:
    assert plural_text("en", "statement.rounds", count) == english
    assert plural_text("el", "statement.rounds", count).startswith(str(count))
