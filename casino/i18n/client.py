"""The game client's catalogues: each ``.po`` compiled to a JSON file under
``casino/web/static/i18n/``, which the browser loads as it is (no build step at runtime).

The JSON files are committed; ``python -m casino.i18n`` (``make i18n``) writes them again, and
a test fails while a committed one differs from what the ``.po`` file gives."""

from __future__ import annotations

import json
from pathlib import Path

from casino.i18n.catalogues import LANGUAGES, LOCALES, catalogue

CLIENT_DIR = Path(__file__).resolve().parents[1] / "web" / "static" / "i18n"
#: Keys the server alone says (problem titles, statements): left out of the client's files.
SERVER_ONLY_PREFIXES = ("http.", "statement.")


def client_json(language: str) -> str:
    messages: dict[str, str | list[str]] = {}
    for key, entry in sorted(catalogue(language).entries.items()):
        if key.startswith(SERVER_ONLY_PREFIXES):
            continue
        messages[key] = list(entry.forms) if entry.plural else entry.forms[0]
    document = {
        "language": language,
        "locale": LOCALES[language].replace("_", "-"),
        "messages": messages,
    }
    return json.dumps(document, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def client_path(language: str) -> Path:
    return CLIENT_DIR / f"{language}.json"


def write_all() -> list[Path]:
    CLIENT_DIR.mkdir(parents=True, exist_ok=True)
    written = []
    for language in LANGUAGES:
        path = client_path(language)
        path.write_text(client_json(language), encoding="utf-8")
        written.append(path)
    return written
