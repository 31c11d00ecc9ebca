"""Currencies: ISO 4217 codes with minor units, restricted to the ones the operator accepts
(``CASINO_CURRENCIES``, default EUR, USD and GBP).

The ISO table comes from the ``iso4217`` package (the ISO maintenance agency's list, kept up
to date with its amendments). Codes without minor units (gold, SDR, test and fund codes) are
not money a wallet can hold in integer minor units, so they are refused like unknown ones.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from functools import lru_cache

from iso4217 import Currency


@dataclass(frozen=True)
class CurrencyInfo:
    code: str
    name: str
    minor_units: int


@lru_cache(maxsize=512)
def lookup(code: str) -> CurrencyInfo | None:
    """The ISO 4217 currency ``code`` if it has minor units, else None."""
    try:
        currency = Currency(code)
    except ValueError:
        return None
    if currency.exponent is None:
        return None
    return CurrencyInfo(currency.code, currency.currency_name, int(currency.exponent))


def parse_list(codes: Iterable[str]) -> tuple[str, ...]:
    """Configured codes, checked: ValueError names any that is not ISO 4217 money."""
    parsed = tuple(dict.fromkeys(code.strip().upper() for code in codes if code.strip()))
    unknown = [code for code in parsed if lookup(code) is None]
    if unknown:
        raise ValueError(f"not ISO 4217 currencies with minor units: {', '.join(unknown)}")
    if not parsed:
        raise ValueError("at least one currency is required")
    return parsed


def supported(codes: Collection[str]) -> list[CurrencyInfo]:
    return [info for info in map(lookup, sorted(codes)) if info is not None]
