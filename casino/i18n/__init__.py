"""The player's language: six catalogues, one gettext ``.po`` file per language, for the
server's texts and (compiled to JSON) the game client's.

The code names messages by key, never by sentence: an entry's ``msgctxt`` is its key
(``"table.deal"``), its ``msgid`` the English text a translator starts from, its ``msgstr``
the language's text (English included, where it equals the ``msgid``). Placeholders are
``{name}``; a plural entry has ``msgid_plural`` and one form per plural category, "one" first.
docs/translations.md says how to add or change a message and what each catalogue chose.
"""

from __future__ import annotations

from casino.i18n.catalogues import (
    DEFAULT_LANGUAGE,
    LANGUAGES,
    catalogue,
    plural_text,
    text,
)
from casino.i18n.formats import clock_time, moment, money, on_day
from casino.i18n.negotiation import negotiate

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "catalogue",
    "clock_time",
    "moment",
    "money",
    "negotiate",
    "on_day",
    "plural_text",
    "text",
]
