"""Money and moments as each language writes them (Babel's CLDR data): "1.234,50 €" in
Greek, "€ 1.234,50" in Dutch. Amounts stay integer minor units until they are shown."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from babel.dates import format_date, format_datetime, format_time
from babel.numbers import format_currency
from iso4217 import Currency

from casino.i18n.catalogues import LOCALES, text


def _minor_units(currency: str) -> int:
    try:
        exponent = Currency(currency).exponent
    except ValueError:
        return 2
    return 2 if exponent is None else int(exponent)


def money(language: str, minor: int, currency: str) -> str:
    """``minor`` units of ``currency`` (ISO 4217 minor units), e.g. 123450 EUR in Greek:
    "1.234,50 €"."""
    amount = Decimal(int(minor)).scaleb(-_minor_units(currency))
    return format_currency(amount, currency, locale=LOCALES[language], currency_digits=True)


def _in_utc(when: datetime) -> datetime | None:
    """``when`` in UTC; None at the calendar's ends (year 1 or 9999 with an offset), where
    the conversion overflows: such a moment is written as given."""
    try:
        return when.astimezone(UTC)
    except OverflowError:
        return None


def moment(language: str, when: datetime) -> str:
    """A date and time in UTC (the server knows no player's zone), short, with the zone."""
    utc = _in_utc(when)
    if utc is None:
        return when.isoformat()
    return format_datetime(utc, format="short", tzinfo=UTC, locale=LOCALES[language]) + " UTC"


def clock_time(language: str, when: datetime) -> str:
    """The time of day in UTC, with the zone: "14:02 UTC", "2:02 μ.μ. UTC"."""
    utc = _in_utc(when)
    if utc is None:
        return when.isoformat()
    return format_time(utc, format="short", tzinfo=UTC, locale=LOCALES[language]) + " UTC"


def on_day(language: str, when: datetime) -> str:
    """A day and time in words, as a sentence names it ("on 6 March 2031 at 00:00 UTC"):
    the catalogue's "when.on", which the client fills with the player's own zone."""
    utc = _in_utc(when)
    if utc is None:
        return when.isoformat()
    day = format_date(utc, format="long", locale=LOCALES[language])
    return text(language, "when.on", date=day, time=clock_time(language, utc))
