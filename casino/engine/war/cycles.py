"""Repeated-position detection for games that can go round forever.

With a fixed return order and no choice left to chance, War is a deterministic machine: once a
position comes back, every battle after it comes back too, and the game never ends. A position
is taken between battles and made of the ranks in every stock, hand and capture pile, in order
(suits never matter, so two positions with equal ranks in equal places play out the same), plus
the wars won when the first to three wars wins. Keys are exact bytes, so a repeat is a real
repeat, never a hash collision.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

_SEAT_END = b"\xff"
_PART_END = b"\xfe"


def position_key(seats: Iterable[Sequence[Iterable[int]]], extra: Sequence[int] = ()) -> bytes:
    """``seats`` yields, per seat, its card groups (stock, hand, pile) as ranks (< 0xfe)."""
    chunks: list[bytes] = []
    for groups in seats:
        for group in groups:
            chunks.append(bytes(group))
            chunks.append(_PART_END)
        chunks.append(_SEAT_END)
    chunks.append(bytes(extra))
    return b"".join(chunks)


class CycleDetector:
    """Remembers every position seen and when; ``seen_at`` says when this one came before."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: dict[bytes, int] = {}

    def seen_at(self, key: bytes, battle: int) -> int | None:
        """The battle after which ``key`` was first seen, or ``None`` (and remember it)."""
        first = self._seen.setdefault(key, battle)
        return None if first == battle else first

    def __len__(self) -> int:
        return len(self._seen)
