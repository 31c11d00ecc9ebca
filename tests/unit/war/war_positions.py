"""Helpers for War tests: set up a position by card codes, read one back."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from casino.engine.war import SeatKind, SeatSpec, WarGame, WarRules, build_rules


def rules_of(variant: str, **options: object) -> WarRules:
    return build_rules(variant, options)


def card_ids(rules: WarRules, text: str) -> list[int]:
    index = {card.code: i for i, card in enumerate(rules.pack_spec.cards)}
    return [index[code] for code in text.split()]


def game_with(
    rules: WarRules,
    stocks: Sequence[str],
    *,
    piles: Sequence[str] | None = None,
    hands: Sequence[str] | None = None,
    seats: Sequence[SeatSpec] | None = None,
    log: bool = True,
) -> WarGame:
    """A game whose stocks (top card first), capture piles (top card last) and hands are the
    given card codes; the rest of the pack is out of play."""
    game = WarGame(rules, "position", seats, log=log)
    game.stocks = [deque(card_ids(rules, s)) for s in stocks]
    game.piles = [card_ids(rules, p) for p in (piles or [""] * rules.seats)]
    game.hands = [card_ids(rules, h) for h in (hands or [""] * rules.seats)]
    game.left_out = []
    return game


def codes(game: WarGame, cards: Sequence[int]) -> str:
    return " ".join(game.code(c) for c in cards)


def humans(count: int) -> list[SeatSpec]:
    return [SeatSpec(SeatKind.HUMAN)] * count


def computers(*strategies: str) -> list[SeatSpec]:
    return [SeatSpec(SeatKind.COMPUTER, s) for s in strategies]
