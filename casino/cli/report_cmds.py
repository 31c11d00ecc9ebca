"""``casino report``: the operators' table report, as JSON or as a readable table."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import click

from casino.cli.ops_cmds import _db_option, _unit_of_work, parse_duration


def parse_instant(text: str, *, end_of_day: bool = False, now: datetime | None = None) -> datetime:
    """A UTC instant from ``2026-11-30`` (with ``end_of_day``: the end of that day),
    ``2026-11-30T12:00:00+01:00`` (no offset: UTC) or an age back from now (``24h``, ``7d``)."""
    from casino.service.reports import to_instant

    value = text.strip()
    try:
        return to_instant(value, end_of_day=end_of_day)
    except ValueError:
        pass
    try:
        age = parse_duration(value)
    except click.BadParameter:
        raise click.BadParameter(
            f"not a date, date-time or age: {text!r} (e.g. 2026-11-30, 2026-11-30T12:00:00Z, "
            "24h, 7d)"
        ) from None
    return (now or datetime.now(UTC)) - age


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value * 100:.2f}%"


def _z(value: float | None) -> str:
    return "-" if value is None else f"{value:+.2f}"


_COLUMNS = (
    ("day", "<"),
    ("slice", "<"),
    ("rounds", ">"),
    ("handle", ">"),
    ("wins", ">"),
    ("GGR", ">"),
    ("hold", ">"),
    ("RTP", ">"),
    ("theoretical", ">"),
    ("95% band", ">"),
    ("z", ">"),
    ("", "<"),
)
_SLICES = (
    ("all_bets", "all bets"),
    ("ante_game", "ante game"),
    ("tie_bet", "tie bet"),
    ("war_tie_bet", "war tie bet"),
)


def _period_rows(label: str, period: dict[str, Any]) -> Iterator[list[str]]:
    for key, name in _SLICES:
        f = period[key]
        if key == "war_tie_bet" and not f["handle"]:
            continue  # a line only where war tie bets were placed
        band = (
            "-"
            if f["band_low"] is None
            else f"{_percent(f['band_low'])} .. {_percent(f['band_high'])}"
        )
        yield [
            label if key == "all_bets" else "",
            name,
            str(f["rounds"]),
            str(f["handle"]),
            str(f["wins"]),
            str(f["ggr"]),
            _percent(f["hold"]),
            _percent(f["observed_rtp"]),
            _percent(f["theoretical_rtp"]),
            band,
            _z(f["z_score"]),
            "OUTSIDE" if f["outside_band"] else "",
        ]
    d = period["decisions"]
    shares = (
        f"ties {d['ties']}: war {d['war']} ({_percent(d['war_share'])}), "
        f"surrender {d['surrender']} ({_percent(d['surrender_share'])})"
        if d["ties"]
        else "no ties"
    )
    yield [shares]


def _later_rules(rules: dict[str, Any]) -> str:
    """The issue 21 rules of a rules entry, where it has them."""
    text = ""
    if rules.get("war_ties") == "repeat":
        text += f", wars repeat up to {rules['max_war_ties']} ties"
    if rules.get("tie_ladder"):
        text += ", tie ladder " + "/".join(str(step) for step in rules["tie_ladder"]) + ":1"
    if rules.get("war_tie_pays"):
        text += f", war tie bet {rules['war_tie_pays']}:1"
    return text


def format_report(report: dict[str, Any]) -> str:
    """The report as aligned text: one block per table, three slices per day and in total."""
    period = f"{report['since'] or 'the beginning'} to {report['until'] or 'now'}"
    lines = [
        f"Tables report, rounds settled from {period} (UTC)"
        + (f", {report['currency']} only" if report["currency"] else ""),
        "Amounts in minor units; RTP = wins / handle; band: theoretical RTP +/- "
        f"{report['z']:.2f} standard deviations ({report['confidence']:.0%}).",
    ]
    if not report["tables"]:
        lines.append("No rounds settled in this period.")
    for table in report["tables"]:
        rules = "; ".join(
            f"{r['decks']} deck{'s' if r['decks'] > 1 else ''}, tie bet {r['tie_pays']}:1"
            + (", war tie bonus" if r["war_tie_bonus"] else "")
            + _later_rules(r)
            + f" ({r['rounds']} rounds; always-war RTP {_percent(r['rtp']['war']['value'])})"
            for r in table["rules"]
        )
        flag = "  ** FLAGGED **" if table["flagged"] else ""
        lines += [
            "",
            f"{table['table_id']} ({table['currency']}): {rules or 'no settled rounds'}; "
            f"{table['open_rounds']} round(s) open{flag}",
        ]
        rows = [[name for name, _ in _COLUMNS]]
        for day in table["days"]:
            rows += _period_rows(day["day"], day)
        rows += _period_rows("total", table["total"])
        cells_rows = [row for row in rows if len(row) == len(_COLUMNS)]
        widths = [max(len(row[i]) for row in cells_rows) for i in range(len(_COLUMNS))]
        for row in rows:
            if len(row) == 1:  # the decisions, under the slices
                lines.append("  " + " " * (widths[0] + 2) + row[0])
                continue
            cells = [
                f"{cell:{align}{width}}"
                for cell, (_, align), width in zip(row, _COLUMNS, widths, strict=True)
            ]
            lines.append(("  " + "  ".join(cells)).rstrip())
    return "\n".join(lines)


@click.command("report")
@_db_option
@click.option("--since", default=None, help="From: 2026-11-01, 2026-11-01T12:00Z or 7d (ago).")
@click.option("--until", default=None, help="To (excluded): a date includes that day.")
@click.option("--currency", default=None, help="Only this currency (ISO 4217, e.g. EUR).")
@click.option("--json", "as_json", is_flag=True, help="The API's JSON instead of a table.")
@click.option("--operator", "operator", default="default", show_default=True, help="Whose tables.")
def report(
    url: str | None,
    since: str | None,
    until: str | None,
    currency: str | None,
    as_json: bool,
    operator: str,
) -> None:
    """Per table and day: rounds, handle, wins, GGR, hold, RTP against the theoretical RTP
    and its 95 % band; the ante game and the tie bet apart; war / surrender shares."""
    from casino.service.errors import ServiceError
    from casino.service.reports import report_json, table_report

    start = None if since is None else parse_instant(since)
    end = None if until is None else parse_instant(until, end_of_day=True)
    with _unit_of_work(url, operator) as uow:
        try:
            data = report_json(table_report(uow, since=start, until=end, currency=currency))
        except ServiceError as error:
            raise click.ClickException(error.detail) from None
    click.echo(json.dumps(data, indent=2) if as_json else format_report(data))


def register(group: click.Group) -> None:
    group.add_command(report)
