"""A problem's ``title`` and ``detail`` in the request's language.

English keeps the service's own words: the status phrase as title, the message the service
raised as detail (they name figures in minor units, for integrators). In the other languages
the title is the status phrase's translation and the detail the catalogue's sentence for the
problem's stable ``code`` (``problem.<code>``), with the figures of the problem's members where
they matter: a limit's amounts, the end of a break. The ``code`` stays the contract."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from http import HTTPStatus
from typing import Any

from casino.i18n import DEFAULT_LANGUAGE, money, on_day, text

#: A limit refusal's first words, per limit and period (whole sentences: each language words
#: and agrees them its own way). The client (js/problems.js) uses the same entries.
_LIMIT_HEADS = {
    ("deposit", "day"): "limit.head.deposit.day",
    ("deposit", "week"): "limit.head.deposit.week",
    ("deposit", "month"): "limit.head.deposit.month",
    ("wager", "day"): "limit.head.wager.day",
    ("wager", "week"): "limit.head.wager.week",
    ("wager", "month"): "limit.head.wager.month",
    ("loss", "day"): "limit.head.loss.day",
    ("loss", "week"): "limit.head.loss.week",
    ("loss", "month"): "limit.head.loss.month",
}
_PERIOD_NOW = {"day": "limit.now.day", "week": "limit.now.week", "month": "limit.now.month"}
#: Problems whose end (a member) the sentence names, and the sentence that does.
_UNTIL = {
    "self_excluded": ("ends_at", "problem.self_excluded.until"),
    "cooling_off": ("ends_at", "problem.cooling_off.until"),
    "session_time_limit": ("resets_at", "problem.session_time_limit.until"),
}


def title_and_detail(
    language: str, status: int, code: str, detail: str, extra: Mapping[str, Any]
) -> tuple[str, str]:
    if language == DEFAULT_LANGUAGE:
        return HTTPStatus(status).phrase, detail
    # Keys of the families "http.<status>" and "problem.<code>" (tests/unit/i18n checks that
    # every status and code the API can answer has its entry in every language).
    title_key, detail_key = f"http.{status}", f"problem.{code}"
    title = text(language, title_key)
    return title, _detail(language, code, extra) or text(language, detail_key)


def _detail(language: str, code: str, extra: Mapping[str, Any]) -> str | None:
    if code == "limit_exceeded":
        return _limit(language, extra)
    if code in _UNTIL:
        member, key = _UNTIL[code]
        when = _instant(extra.get(member))
        return text(language, key, when=on_day(language, when)) if when else None
    return None


def _limit(language: str, extra: Mapping[str, Any]) -> str | None:
    head_key = _LIMIT_HEADS.get((extra.get("limit"), extra.get("period")))  # type: ignore[arg-type]
    amount, currency = extra.get("limit_amount"), extra.get("currency")
    if head_key is None or not isinstance(amount, int) or not isinstance(currency, str):
        return None

    def m(minor: int) -> str:
        return money(language, minor, currency)

    used, remaining = extra.get("used"), extra.get("remaining")
    now = text(language, _PERIOD_NOW[str(extra["period"])])
    spent = None
    if isinstance(used, int):
        if extra["limit"] == "deposit":
            spent = text(language, "limit.spent.deposit", amount=m(used), now=now)
        elif extra["limit"] == "wager":
            spent = text(language, "limit.spent.wager", amount=m(used), now=now)
        elif used > 0:
            spent = text(language, "limit.spent.loss", amount=m(used), now=now)
        elif used < 0:
            spent = text(language, "limit.spent.ahead", amount=m(-used), now=now)
        else:
            spent = text(language, "limit.spent.nothing", now=now)
    left = text(language, "limit.left", amount=m(remaining)) if isinstance(remaining, int) else None
    head = text(language, head_key, amount=m(amount))
    if spent and left:
        sentence = text(language, "limit.sentence", head=head, spent=spent, left=left)
    elif spent or left:
        sentence = text(language, "limit.sentence_one", head=head, fact=spent or left)
    else:
        sentence = text(language, "limit.sentence_bare", head=head)
    resets = _instant(extra.get("resets_at"))
    if resets is None:
        return sentence
    return f"{sentence} {text(language, 'limit.reset', when=on_day(language, resets))}"


def _instant(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else None
