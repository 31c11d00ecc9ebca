"""URL converters: what a path segment may hold before any view or database sees it."""

from __future__ import annotations

import re

from werkzeug.routing import UnicodeConverter, ValidationError

# C0 controls (NUL among them) and DEL: no id the service issues contains one, and
# PostgreSQL text cannot even hold a NUL, so such a segment names nothing.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class PrintableConverter(UnicodeConverter):
    """The default ``<name>`` segment, minus control characters: those are a plain 404."""

    def to_python(self, value: str) -> str:
        if _CONTROL.search(value):
            raise ValidationError()
        return value


def install(converters: dict[str, type]) -> None:
    """Make ``<name>`` and ``<string:name>`` refuse control characters (call before routes)."""
    converters["default"] = PrintableConverter
    converters["string"] = PrintableConverter
