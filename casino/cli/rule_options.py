"""Table rules from the command line, for ``casino odds`` and ``casino simulate``.

``--rules`` takes a table's whole rules as JSON (``TableRules.to_dict()``, or as a
table or a round shows them in the API); each rule option given sets that rule on top of it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

import click

from casino.engine.cards import MAX_DECKS, MIN_DECKS
from casino.engine.casino_war import (
    ALLOWED_TIE_PAYS,
    MAX_HANDS,
    MAX_WAR_TIES,
    MIN_WAR_TIES,
    TableRules,
    WarTies,
)
from casino.engine.casino_war.rules import from_shown
from casino.engine.errors import InvalidRules

F = TypeVar("F", bound=Callable[..., Any])
#: The maximum war tie bet of a table a command offers it at (the odds do not depend on it).
OFFERED_WAR_TIE_BET = 100_000

_OPTIONS: list[Callable[[Any], Any]] = [
    click.option(
        "--rules",
        "rules_json",
        metavar="JSON",
        help="A table's rules as JSON (TableRules.to_dict()); the options below override it.",
    ),
    click.option(
        "--decks",
        type=click.IntRange(MIN_DECKS, MAX_DECKS),
        help="Decks in the shoe [default: 6].",
    ),
    click.option(
        "--tie-pays",
        type=click.Choice([str(k) for k in ALLOWED_TIE_PAYS]),
        help="The tie bet pays K to 1 [default: 10].",
    ),
    click.option(
        "--war-tie-bonus",
        is_flag=True,
        default=None,
        help="A tie in the war also pays a bonus equal to the ante (= --war-ties bonus).",
    ),
    click.option(
        "--war-ties",
        type=click.Choice([w.value for w in WarTies]),
        help="A tied war: push (paid as a win), bonus, or repeat (fought again).",
    ),
    click.option(
        "--max-war-ties",
        type=click.IntRange(MIN_WAR_TIES, MAX_WAR_TIES),
        help="With repeat: the most consecutive ties, the first deal's counting [default: 4].",
    ),
    click.option(
        "--tie-ladder",
        metavar="K1,K2,...",
        help="With repeat: the tie bet pays Kn to 1 for n ties in a row, e.g. 10,25,50,200.",
    ),
    click.option(
        "--war-tie-bet",
        "war_tie_bet",
        is_flag=True,
        default=None,
        help="The table offers the war tie bet (placed with a war, paid on a tied war).",
    ),
    click.option(
        "--war-tie-pays",
        type=click.Choice([str(k) for k in ALLOWED_TIE_PAYS]),
        help="The war tie bet pays K to 1 [default: 10].",
    ),
    click.option(
        "--hands",
        type=click.IntRange(1, MAX_HANDS),
        default=1,
        show_default=True,
        help="Hands a round (the table's max_hands is raised to it where lower).",
    ),
]


def rule_options(command: F) -> F:
    for option in reversed(_OPTIONS):
        command = option(command)
    return command


def _ladder(text: str) -> list[int]:
    try:
        return [int(step) for step in text.replace(" ", "").split(",")]
    except ValueError:
        raise click.BadParameter(
            "a comma-separated list of whole numbers", param_hint="--tie-ladder"
        ) from None


def rules_from_options(
    rules_json: str | None,
    decks: int | None,
    tie_pays: str | None,
    war_tie_bonus: bool | None,
    war_ties: str | None,
    max_war_ties: int | None,
    tie_ladder: str | None,
    war_tie_bet: bool | None,
    war_tie_pays: str | None,
    hands: int,
) -> TableRules:
    """The rules the options describe; a usage error names a rule the engine refuses."""
    data: dict[str, Any] = {}
    if rules_json is not None:
        try:
            loaded = json.loads(rules_json)
        except ValueError as exc:
            raise click.BadParameter(f"not JSON: {exc}", param_hint="--rules") from None
        if not isinstance(loaded, dict):
            raise click.BadParameter("a JSON object of rules", param_hint="--rules")
        data.update(from_shown(loaded))  # a table's rules as the API shows them, too
    given: dict[str, Any] = {
        "decks": decks,
        "tie_pays": None if tie_pays is None else int(tie_pays),
        "war_tie_bonus": war_tie_bonus,
        "war_ties": war_ties,
        "max_war_ties": max_war_ties,
        "tie_ladder": None if tie_ladder is None else _ladder(tie_ladder),
        "war_tie_pays": None if war_tie_pays is None else int(war_tie_pays),
    }
    data.update({key: value for key, value in given.items() if value is not None})
    if war_tie_bet or (war_tie_pays is not None and not data.get("max_war_tie_bet")):
        data["max_war_tie_bet"] = data.get("max_war_tie_bet") or OFFERED_WAR_TIE_BET
    data["max_hands"] = max(hands, int(data.get("max_hands", 1)))
    try:
        return TableRules.from_dict(data)
    except InvalidRules as exc:
        rule = f" (rule {exc.rule})" if exc.rule else ""
        raise click.UsageError(f"{exc.detail}{rule}") from exc
    except TypeError as exc:
        raise click.UsageError(str(exc)) from exc
