"""Which catalogue keys the code names: extracted from the client's modules and pages and the
server's Python with Babel's extractors (keys are string literals in ``t``, ``tn``, ``N_``,
``text`` and ``plural_text`` calls, or ``data-i18n`` attributes). Keys the code builds at run
time (``problem.<code>``, ``variant.<name>.title``...) are families the tests add from their
sources (the problem codes, the variants)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from babel.messages.extract import extract_python

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "web" / "static"
#: Key literals look like this: dotted lowercase words.
KEY = re.compile(r"^[a-z0-9_]+(\.[a-z0-9_-]+)+$")
_JS_KEYWORDS = {"t": (1,), "tn": (1,), "N_": (1,)}
_PY_KEYWORDS = {"text": (2,), "plural_text": (2,)}
_HTML_KEY = re.compile(r'data-i18n(?:-[a-z-]+)?="([^"]+)"')


def _keys(found: Iterable[tuple[Any, ...]]) -> set[str]:
    keys = set()
    for _, _, message, *_ in found:
        first = message[0] if isinstance(message, tuple) else message
        if isinstance(first, str) and KEY.match(first):
            keys.add(first)
    return keys


def script_keys(source: str) -> set[str]:
    """Keys in ``t("key"...)``, ``tn("key"...)`` and ``N_("key")`` at any depth (Babel's
    JavaScript extractor skips a call inside another's arguments), in template literals'
    ``${...}`` too; comments, other strings and regular expressions are passed over."""
    tokens, _ = _lex(source, 0)
    keys: set[str] = set()
    for i, (kind, value) in enumerate(tokens[:-1]):
        if kind != "code" or tokens[i + 1][0] != "string":
            continue
        call = re.search(r"(?:^|[^\w$.])(t|tn|N_)\s*\(\s*$", value)
        if call and KEY.match(tokens[i + 1][1]):
            keys.add(tokens[i + 1][1])
    return keys


_REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^")


def _lex(src: str, i: int, inside: bool = False) -> tuple[list[tuple[str, str]], int]:
    """(kind, text) tokens, "code" or "string", from ``src[i:]``; ``inside``: a template's
    ``${...}``, ended by its closing brace (returns the index after it)."""
    out: list[tuple[str, str]] = []
    code: list[str] = []
    depth = 0

    def flush() -> None:
        if code:
            out.append(("code", "".join(code)))
            code.clear()

    while i < len(src):
        c = src[i]
        if c in "\"'":
            flush()
            j = i + 1
            while j < len(src) and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            out.append(("string", src[i + 1 : j]))
            i = j + 1
        elif c == "`":
            flush()
            j = i + 1
            while j < len(src) and src[j] != "`":
                if src[j] == "\\":
                    j += 2
                elif src.startswith("${", j):
                    inner, j = _lex(src, j + 2, inside=True)
                    out.extend(inner)
                else:
                    j += 1
            i = j + 1
        elif src.startswith("//", i):
            i = src.find("\n", i) if "\n" in src[i:] else len(src)
        elif src.startswith("/*", i):
            end = src.find("*/", i + 2)
            i = len(src) if end < 0 else end + 2
        elif c == "/" and (not "".join(code).strip() or "".join(code).rstrip()[-1] in _REGEX_AFTER):
            j, in_class = i + 1, False
            while j < len(src) and (src[j] != "/" or in_class):
                if src[j] == "\\":
                    j += 1
                elif src[j] == "[":
                    in_class = True
                elif src[j] == "]":
                    in_class = False
                j += 1
            code.append(" ")  # a regular expression: nothing to extract
            i = j + 1
        else:
            if inside and c == "{":
                depth += 1
            elif inside and c == "}":
                if depth == 0:
                    flush()
                    return out, i + 1
                depth -= 1
            code.append(c)
            i += 1
    flush()
    return out, i


def client_keys() -> set[str]:
    keys: set[str] = set()
    for module in sorted((WEB / "js").glob("*.js")):
        keys |= script_keys(module.read_text(encoding="utf-8"))
    for page in sorted(WEB.glob("*.html")):
        keys |= set(_HTML_KEY.findall(page.read_text(encoding="utf-8")))
    return keys


def server_keys() -> set[str]:
    keys: set[str] = set()
    for module in sorted(ROOT.rglob("*.py")):
        if "casino.i18n" not in module.read_text(encoding="utf-8"):
            continue  # words nothing (and its text() calls are SQLAlchemy's)
        with module.open("rb") as handle:
            keys |= _keys(extract_python(handle, _PY_KEYWORDS, [], {}))
        # Key tables (a key per case) are plain literals: found by their shape, in the
        # modules that word texts.
        if module.parent.name == "api" and module.stem in {"problem_texts", "localized"}:
            keys |= {k for k in re.findall(r'"([a-z0-9_.-]+)"', module.read_text()) if _is_key(k)}
    return keys


_SERVER_FAMILIES = {"limit", "problem", "reality", "statement"}


def _is_key(value: str) -> bool:
    return bool(KEY.match(value)) and value.split(".")[0] in _SERVER_FAMILIES
