"""The catalogues as the server reads them: the ``.po`` files themselves, parsed with Babel
the first time a language is needed (no compiled ``.mo`` to keep in step with them)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from babel.core import Locale
from babel.messages.pofile import read_po

#: The languages players can choose, English first (the default).
LANGUAGES = ("en", "pt", "nl", "ca", "it", "el")
DEFAULT_LANGUAGE = "en"
#: The region whose conventions (numbers, money, dates) each language follows: the
#: operators are European, so Portuguese is Portugal's, Catalan Catalonia's.
LOCALES = {
    "en": "en_GB",
    "pt": "pt_PT",
    "nl": "nl_NL",
    "ca": "ca_ES",
    "it": "it_IT",
    "el": "el_GR",
}
PO_DIR = Path(__file__).parent / "po"


@dataclass(frozen=True)
class Entry:
    key: str
    #: The English text (singular, plural) a translator starts from.
    source: tuple[str, ...]
    #: The language's text: one string, or one per plural category ("one", "other").
    forms: tuple[str, ...]
    plural: bool
    comments: tuple[str, ...]
    fuzzy: bool


@dataclass(frozen=True)
class Catalogue:
    language: str
    entries: dict[str, Entry]

    @property
    def locale(self) -> Locale:
        return Locale.parse(LOCALES[self.language])


def po_path(language: str) -> Path:
    return PO_DIR / f"{language}.po"


def read_catalogue(path: Path, language: str) -> Catalogue:
    with path.open("rb") as handle:
        parsed = read_po(handle, locale=LOCALES[language])
    entries: dict[str, Entry] = {}
    for message in parsed:
        if not message.id:
            continue  # the header
        if not message.context:
            raise ValueError(f"{path}: {message.id!r} has no msgctxt (its key)")
        plural = isinstance(message.id, (tuple, list))
        source = tuple(message.id) if plural else (str(message.id),)
        string = message.string
        forms = tuple(string) if isinstance(string, (tuple, list)) else (str(string),)
        if message.context in entries:
            raise ValueError(f"{path}: key {message.context!r} twice")
        entries[message.context] = Entry(
            message.context,
            source,
            forms,
            plural,
            tuple(message.auto_comments),
            message.fuzzy,
        )
    return Catalogue(language, entries)


@cache
def catalogue(language: str) -> Catalogue:
    if language not in LANGUAGES:
        raise KeyError(f"no catalogue for {language!r}")
    return read_catalogue(po_path(language), language)


def _entry(language: str, key: str) -> Entry:
    entry = catalogue(language).entries.get(key)
    if entry is None or not any(entry.forms) or entry.fuzzy:
        # A message a language lacks (a test forbids it) is said in English, not dropped.
        entry = catalogue(DEFAULT_LANGUAGE).entries[key]
    return entry


def text(language: str, key: str, /, **values: object) -> str:
    """The message ``key`` in ``language``, its ``{placeholders}`` filled from ``values``."""
    return _entry(language, key).forms[0].format_map(values)


def plural_text(language: str, key: str, count: int, /, **values: object) -> str:
    """The plural message ``key`` for ``count`` things (``{n}`` is ``count`` unless given)."""
    entry = _entry(language, key)
    category = catalogue(language).locale.plural_form(abs(count))
    form = entry.forms[0] if category == "one" else entry.forms[-1]
    return form.format_map({"n": count, **values})
