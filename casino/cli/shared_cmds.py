"""``casino simulate --shared``: whole shoes of a shared table, against the exact odds."""

from __future__ import annotations

import json
from typing import Any

import click

from casino.cli.rule_options import rules_from_options
from casino.cli.simulation_output import run_and_report
from casino.engine.errors import EngineError
from casino.engine.shared import SharedRules
from casino.engine.shared.rules import DEFAULT_DECISION_SECONDS, DEFAULT_DECKS
from casino.engine.shared.simulation import SharedSimulationReport, simulate_shared
from casino.engine.simulation import AGREEMENT_SE, BetStats

#: Below this many shoes a run is quick enough that a progress bar would only flicker.
PROGRESS_BAR_FROM = 200


def shared_rules(options: dict[str, Any]) -> SharedRules:
    """The table the rule options describe, with a shared table's defaults (8 decks, a
    decision clock of 10 s) where they say nothing."""
    data = {"decks": DEFAULT_DECKS, "decision_seconds": DEFAULT_DECISION_SECONDS}
    if options.get("rules_json"):
        try:
            data.update(json.loads(options["rules_json"]))
        except ValueError as exc:
            raise click.BadParameter(f"not JSON: {exc}", param_hint="--rules") from None
    table = rules_from_options(**{**options, "rules_json": json.dumps(data)})
    try:
        return SharedRules(table)
    except EngineError as exc:
        raise click.UsageError(exc.detail) from exc


def simulate_shoes(
    shoes: int,
    strategy: str,
    tie_bet: bool,
    war_tie_bet: bool,
    seed: str,
    as_json: bool,
    check: bool,
    options: dict[str, Any],
) -> None:
    if war_tie_bet:
        options = {**options, "war_tie_bet": True}
    rules = shared_rules(options)
    kwargs: dict[str, Any] = {
        "strategy": strategy,
        "tie_bet": tie_bet,
        "war_tie_bet": war_tie_bet,
        "seed": seed,
    }
    run_and_report(
        lambda progress: simulate_shared(shoes, rules, progress=progress, **kwargs),
        units=shoes,
        bar_from=PROGRESS_BAR_FROM,
        label="Dealing shoes",
        lines=report_lines,
        as_json=as_json,
        check=check,
    )


def _percent(value: float) -> str:
    return f"{value * 100:.4f}%"


def _lines(label: str, stats: BetStats) -> list[str]:
    verdict = "agree" if stats.within(AGREEMENT_SE) else "DO NOT agree"
    return [
        label,
        f"  observed RTP   {_percent(stats.observed_rtp)}  (standard error over shoes "
        f"{_percent(stats.std_error)})",
        f"  fresh shoe     {_percent(float(stats.exact_rtp))}  ({stats.exact_rtp}: a private "
        "round's, and a shared shoe's first round's)",
        f"  difference     {stats.z_score:+.2f} SE: {verdict} within {AGREEMENT_SE} SE",
    ]


def report_lines(report: SharedSimulationReport) -> list[str]:
    table = report.rules.table
    lines = [
        f"{report.shoes} shoes of {table.decks} deck(s) dealt to the cut card: "
        f"{report.rounds} rounds ({report.rounds / report.shoes:.1f} a shoe), strategy "
        f"{report.strategy.value}, seed {report.seed!r}, ante {report.ante}",
    ]
    lines += _lines("Ante, per unit of initial ante", report.main)
    if report.tie is not None:
        lines += _lines("Tie bet, per unit", report.tie)
    if report.war_tie is not None:
        lines += _lines("War tie bet, per unit placed", report.war_tie)
    counting = report.counting
    if counting is not None:
        share = counting.favourable / counting.rounds if counting.rounds else 0.0
        lines.append(
            f"Card counting: the tie bet paid more than it cost in {counting.favourable} of "
            f"{counting.rounds} rounds ({share:.4%}), judged on every card left (burns too)"
        )
        if counting.counter is not None:
            lines.append(
                f"  a tie bet placed only then returned {_percent(counting.counter.observed_rtp)}"
                f" (standard error {_percent(counting.counter.std_error)})"
            )
    return lines
