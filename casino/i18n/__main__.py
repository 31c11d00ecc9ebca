"""``python -m casino.i18n``: compile the catalogues for the game client (make i18n)."""

from __future__ import annotations

from casino.i18n.client import write_all

if __name__ == "__main__":
    for path in write_all():
        print(path)
