"""Where ``casino seed-demo`` keeps the demo tokens it printed, so the next run prints the same.

Tokens are stored hashed in the database and cannot be shown again; without this file every
run had to issue new ones, and the curl examples of the previous run stopped working. The file
is for the local demo only (``instance/`` is not committed): readable by its owner alone, one
entry per database (its URL without the password).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from casino.service.demo import DemoTokens
from casino.store import printable_url

DEFAULT_PATH = Path("instance") / "demo-credentials.json"


def _key(database_url: str) -> str:
    return printable_url(database_url)


def _entries(path: Path) -> dict[str, dict[str, str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def load(path: Path, database_url: str) -> DemoTokens:
    entry = _entries(path).get(_key(database_url))
    if not isinstance(entry, dict):
        return DemoTokens()
    operator, player = entry.get("operator_token"), entry.get("player_token")
    return DemoTokens(
        operator if isinstance(operator, str) else None,
        player if isinstance(player, str) else None,
    )


def save(path: Path, database_url: str, tokens: DemoTokens) -> None:
    entries = _entries(path)
    entries[_key(database_url)] = {
        "operator_token": tokens.operator_token or "",
        "player_token": tokens.player_token or "",
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    # Created owner-only before anything is written into it.
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump(entries, handle, indent=2)
    os.replace(temporary, path)
