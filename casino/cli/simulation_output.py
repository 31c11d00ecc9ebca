"""What ``casino simulate`` does with a run, private rounds or shared shoes alike: a progress
bar on long runs (not under --json), engine refusals as usage errors, the report as JSON or
lines, and exit status 1 under --check when the run does not agree with the exact odds."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

import click

from casino.engine.errors import EngineError


class Report(Protocol):
    @property
    def agrees(self) -> bool: ...

    def to_dict(self) -> dict[str, Any]: ...


R = TypeVar("R", bound=Report)


def run_and_report(
    run: Callable[[Callable[[int], None] | None], R],
    *,
    units: int,
    bar_from: int,
    label: str,
    lines: Callable[[R], list[str]],
    as_json: bool,
    check: bool,
) -> None:
    """``run(progress)`` deals ``units`` rounds or shoes; the rest as the module says."""
    try:
        if units >= bar_from and not as_json:
            with click.progressbar(length=units, label=label, file=sys.stderr) as bar:
                report = run(bar.update)
        else:
            report = run(None)
    except EngineError as exc:
        raise click.UsageError(exc.detail) from exc
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
    else:
        click.echo("\n".join(lines(report)))
    if check and not report.agrees:
        raise SystemExit(1)
