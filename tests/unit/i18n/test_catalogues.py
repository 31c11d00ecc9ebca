"""The catalogues (casino/i18n/po/*.po) against the code: every message the code names is in
every language, none is kept that the code no longer names, each translation keeps its
English source's placeholders, and the client's JSON files are compiled from them."""

from __future__ import annotations

import re
from functools import cache

import pytest
from werkzeug.exceptions import default_exceptions

from casino.api.errors import PROBLEM_CODES
from casino.engine.war.presets import OPTION_HELP, PRESETS, variant_catalogue
from casino.i18n.catalogues import DEFAULT_LANGUAGE, LANGUAGES, Catalogue, catalogue
from casino.i18n.client import client_json, client_path
from casino.i18n.usage import client_keys, server_keys

PLACEHOLDER = re.compile(r"\{(\w*)\}")
TRANSLATIONS = [language for language in LANGUAGES if language != DEFAULT_LANGUAGE]


def option_value_word(value: object) -> str | None:
    """The key's last part for an option value the page names in words (numbers it writes)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    if isinstance(value, str):
        return value
    return None


@cache
def families() -> frozenset[str]:
    """Keys the code builds at run time, from what they stand for."""
    keys = {f"problem.{code}" for code in PROBLEM_CODES}
    keys |= {f"http.{status}" for status in default_exceptions}
    for name in PRESETS:
        keys |= {f"variant.{name}.{part}" for part in ("title", "summary", "rules")}
    for name in OPTION_HELP:
        keys |= {f"option.{name}.label", f"option.{name}.help"}
    for variant in variant_catalogue():
        for name, option in variant["options"].items():
            for value in (*option["allowed"], option["default"]):
                word = option_value_word(value)
                if word is not None:
                    keys.add(f"option.{name}.{word}")
    return frozenset(keys)


@cache
def used_keys() -> frozenset[str]:
    return frozenset(client_keys() | server_keys() | families())


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_the_code_names_is_in_the_catalogue(language: str) -> None:
    missing = sorted(used_keys() - set(catalogue(language).entries))
    assert missing == [], f"{language}.po lacks {missing}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_catalogue_keeps_a_message_the_code_no_longer_names(language: str) -> None:
    stale = sorted(set(catalogue(language).entries) - used_keys())
    assert stale == [], f"{language}.po keeps {stale}, which no code names"


def test_the_extractors_find_keys_in_scripts_pages_and_python() -> None:
    """The usage scan itself: keys from t()/tn()/N_() in modules, data-i18n in pages and
    text()/plural_text() in Python (so the two tests above can fail)."""
    client = client_keys()
    assert {"round.deal", "reality.played", "card.rank.ace", "common.language"} <= client
    assert "table.page_title" in client  # only in table.html, as data-i18n
    assert {"statement.summary", "limit.head.loss.week"} <= server_keys()


def test_english_is_the_source() -> None:
    for key, entry in catalogue(DEFAULT_LANGUAGE).entries.items():
        assert entry.forms == entry.source, f"en.po: {key}'s msgstr differs from its msgid"


@pytest.mark.parametrize("language", TRANSLATIONS)
def test_every_entry_translates_the_current_english(language: str) -> None:
    """Same English source as en.po (a changed English text makes its translations stale),
    translated, not fuzzy, and a plural entry has the two forms (one, other)."""
    english = catalogue(DEFAULT_LANGUAGE).entries
    problems = []
    for key, entry in catalogue(language).entries.items():
        source = english.get(key)
        if source is None:
            continue  # reported as stale above
        if entry.source != source.source:
            problems.append(f"{key}: translates an older English text")
        if entry.fuzzy or not all(form.strip() for form in entry.forms):
            problems.append(f"{key}: not translated (empty or fuzzy)")
        if entry.plural != source.plural or len(entry.forms) != len(source.forms):
            problems.append(f"{key}: plural forms differ from English")
    assert problems == [], f"{language}.po: {problems}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_translations_keep_the_placeholders(language: str) -> None:
    english = catalogue(DEFAULT_LANGUAGE).entries
    problems = []
    for key, entry in catalogue(language).entries.items():
        if key not in english:
            continue
        wanted = {p for text in english[key].source for p in PLACEHOLDER.findall(text)}
        for form in entry.forms:
            found = set(PLACEHOLDER.findall(form))
            # A singular may say "one" instead of {n}; nothing else may go or come.
            if entry.plural and form is entry.forms[0]:
                found |= {"n"} & wanted
            if found != wanted:
                problems.append(f"{key}: {sorted(found)} instead of {sorted(wanted)}")
    assert problems == [], f"{language}.po: {problems}"


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_client_catalogue_is_compiled_from_the_po_file(language: str) -> None:
    """The committed JSON is what `python -m casino.i18n` (make i18n) writes from the .po."""
    committed = client_path(language).read_text(encoding="utf-8")
    assert committed == client_json(language), (
        f"{client_path(language)} is stale: run `make i18n` and commit the result"
    )


def test_every_language_has_a_distinct_catalogue() -> None:
    """A translation is not the English copied: most of each catalogue differs from it."""
    english = catalogue(DEFAULT_LANGUAGE).entries
    for language in TRANSLATIONS:
        translated: Catalogue = catalogue(language)
        same = [k for k, e in translated.entries.items() if e.forms == english[k].forms]
        assert len(same) < len(english) // 10, (language, same)
