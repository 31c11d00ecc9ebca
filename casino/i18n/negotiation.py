"""Which of the six languages a request wants: the ``Accept-Language`` header (RFC 9110),
q-values honoured, a regional tag matching its language ("pt-BR" is Portuguese)."""

from __future__ import annotations

from casino.i18n.catalogues import DEFAULT_LANGUAGE, LANGUAGES


def negotiate(header: str | None) -> str:
    """The language the header prefers most among ours; English when it names none of them.

    Ties keep the header's order; ``q=0`` refuses a language, and ``*`` stands for any
    language not named otherwise."""
    ranked: list[tuple[float, int, str]] = []
    refused: set[str] = set()
    for position, item in enumerate((header or "").split(",")):
        tag, _, params = item.strip().partition(";")
        tag = tag.strip().lower()
        if not tag:
            continue
        quality = 1.0
        for param in params.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        language = tag.split("-")[0]
        if quality <= 0:
            refused.add(language)
            continue
        ranked.append((-min(quality, 1.0), position, language))
    for _, _, language in sorted(ranked):
        if language in LANGUAGES and language not in refused:
            return language
        if language == "*":
            return DEFAULT_LANGUAGE if DEFAULT_LANGUAGE not in refused else _first_allowed(refused)
    return DEFAULT_LANGUAGE


def _first_allowed(refused: set[str]) -> str:
    return next((language for language in LANGUAGES if language not in refused), DEFAULT_LANGUAGE)
