"""Engine commands: ``casino verify``, ``casino odds`` and ``casino simulate``."""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from typing import Any

import click

from casino.cli.rule_options import rule_options, rules_from_options
from casino.cli.shared_cmds import simulate_shoes
from casino.cli.simulation_output import run_and_report
from casino.engine import verify as verifier
from casino.engine.cards import MAX_DECKS, MIN_DECKS
from casino.engine.casino_war import MAX_HANDS, TableRules
from casino.engine.odds import casino_war_odds
from casino.engine.simulation import (
    AGREEMENT_SE,
    DEFAULT_SEED,
    BetStats,
    RoundStats,
    SimulationReport,
    Strategy,
    simulate,
)
from casino.engine.table_odds import TableOdds, table_odds

#: Below this many rounds a run is quick enough that a progress bar would only flicker.
PROGRESS_BAR_FROM = 50_000


def _percent(value: Fraction | float, digits: int = 4) -> str:
    return f"{float(value) * 100:.{digits}f}%"


@click.command("verify")
@click.option(
    "--round",
    "round_file",
    metavar="FILE",
    help="A round's JSON (GET /api/v1/rounds/{id}), '-' for stdin: re-deal it and check its "
    "cards, war cards, every payout and the net. Takes decks and rules from the round.",
)
@click.option("--server-seed", help="Revealed server seed, 64 hex digits.")
@click.option("--client-seed", help="The round's client seed, byte for byte.")
@click.option("--nonce", help="The round's nonce: 0 to 2**63-1, digits only, no leading zero.")
@click.option(
    "--decks",
    type=click.IntRange(MIN_DECKS, MAX_DECKS),
    help="Decks in the shoe (required without --round; no default, a guess could mislead).",
)
@click.option("--hash", "hash_", help="Published commitment (SHA-256 of the seed) to check.")
@click.option(
    "--hands",
    type=click.IntRange(1, MAX_HANDS),
    help="Without --round, a table of several hands (max_hands > 1): its deal, dealer first.",
)
@click.option(
    "--shoe",
    "shoe_file",
    metavar="FILE",
    help="A shared table's revealed shoe (JSON), '-' for stdin: check its seed against the "
    "chain's commitment, re-deal it and check every round (and any bets it carries).",
)
@click.option("--shoe-seed", help="A shared shoe's revealed seed, 64 hex digits.")
@click.option("--shoe-index", help="With --shoe-seed: the shoe's index in its chain (1, 2, ...).")
@click.option("--public-value", help="With --shoe-seed: the chain's public value, byte for byte.")
@click.option("--war-ties", help="With --shoe-seed: the table's war_ties (push, bonus, repeat).")
@click.option("--max-war-ties", type=int, help="With --shoe-seed and repeat: max_war_ties.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def verify_cmd(
    round_file: str | None,
    server_seed: str | None,
    client_seed: str | None,
    nonce: str | None,
    decks: int | None,
    hash_: str | None,
    hands: int | None,
    shoe_file: str | None,
    shoe_seed: str | None,
    shoe_index: str | None,
    public_value: str | None,
    war_ties: str | None,
    max_war_ties: int | None,
    as_json: bool,
) -> None:
    """Re-deal a round, or a shared table's shoe, from its revealed seeds and check it.

    Runs the standalone, standard-library verifier (casino/engine/verify.py). Exit status 0
    only when everything checked matches; 1 on any mismatch (the commitment, a card, a
    payout, the net); 2 on invalid input. With --hash and a shoe: the chain's commitment.
    """
    options = {
        "--round": round_file,
        "--server-seed": server_seed,
        "--client-seed": client_seed,
        "--nonce": nonce,
        "--decks": None if decks is None else str(decks),
        "--hash": hash_,
        "--hands": None if hands is None else str(hands),
        "--shoe": shoe_file,
        "--shoe-seed": shoe_seed,
        "--shoe-index": shoe_index,
        "--public-value": public_value,
        "--war-ties": war_ties,
        "--max-war-ties": None if max_war_ties is None else str(max_war_ties),
    }
    # NAME=VALUE, so a value starting with '-' (a client seed may) is never read as an option.
    argv = [f"{name}={value}" for name, value in options.items() if value is not None]
    if as_json:
        argv.append("--json")
    sys.stdout.flush()
    code = verifier.main(argv)
    sys.stdout.flush()
    raise SystemExit(code)


@click.command("odds")
@rule_options
@click.option("--json", "as_json", is_flag=True, help="Print JSON (fractions of 1 and exact).")
def odds_cmd(as_json: bool, **options: Any) -> None:
    """Exact odds of every bet a table offers (finite shoe, no simulation).

    Per initial bet (the usual house edge) and per total amount wagered (the raise
    included); with --hands N, the variance of a round of N hands.
    """
    hands = options["hands"]
    rules = rules_from_options(**options)
    odds = table_odds(rules)
    rounds = [odds.round_moments(hands, policy="best")]
    if rules.tie_bet_offered:
        rounds.append(odds.round_moments(hands, tie_bet=1, policy="best"))
    if as_json:
        data: dict[str, Any] = {}
        if not rules.repeats_wars:
            data.update(casino_war_odds(rules).to_json())
        data.update(
            {
                "decks": rules.decks,
                "rules": rules.to_dict(),
                "p_tie": float(odds.p_tie),
                "bets": {name: bet.to_json() for name, bet in odds.bets.items()},
                "round": {
                    "ante": rounds[0].to_json(),
                    "ante_and_tie_bet": rounds[1].to_json() if len(rounds) > 1 else None,
                },
            }
        )
        data.setdefault("exact", {})["p_tie"] = str(odds.p_tie)
        click.echo(json.dumps(data, indent=2))
        return
    click.echo(_describe(rules))
    if not rules.repeats_wars:
        _legacy_lines(rules)
    click.echo("\n".join(_bet_lines(odds)))
    for label, moments in zip(("ante 1", "ante 1 + tie bet 1"), rounds, strict=False):
        pair = ""
        if hands > 1:
            pair = (
                f" (per hand {float(moments.hand_variance):.6f}, covariance of two hands "
                f"{float(moments.covariance):.6f})"
            )
        click.echo(
            f"  round of {hands} hand(s), {label} each, best decision: mean net "
            f"{float(moments.mean):+.6f}, variance {float(moments.variance):.6f}{pair}"
        )


def _describe(rules: TableRules) -> str:
    ties = {
        "push": "a tied war paid as a win",
        "bonus": "a tied war pays a bonus",
        "repeat": f"tied wars repeated, at most {rules.max_war_ties} ties in a row",
    }[rules.war_tie_rule.value]
    tie = f"tie bet {rules.tie_pays}:1"
    if rules.tie_ladder:
        tie = "tie ladder " + "/".join(f"{k}:1" for k in rules.tie_ladder)
    extra = f", war tie bet {rules.war_tie_pays}:1" if rules.war_tie_bet_offered else ""
    return f"Casino War, {rules.decks} deck(s), {ties}, {tie}{extra}"


def _legacy_lines(rules: TableRules) -> None:
    odds = casino_war_odds(rules)
    rows = [
        ("P(tie on the first two cards)", odds.p_tie),
        ("house edge, always go to war", odds.house_edge_war),
        ("house edge, always surrender", odds.house_edge_surrender),
        (f"house edge, tie bet at {rules.tie_pays}:1", odds.house_edge_tie_bet),
        ("element of risk, always war", odds.element_of_risk_war),
    ]
    for label, value in rows:
        click.echo(f"  {label:<34} {_percent(value):>9}   {value}")
    click.echo(f"  {'std dev, always war (per ante)':<34} {float(odds.std_dev_war):>9.6f}")


def _bet_lines(odds: TableOdds) -> list[str]:
    lines = [
        "every bet: RTP and house edge per initial bet | per total wagered (raise included)",
    ]
    for bet in odds.bets.values():
        lines.append(
            f"  {bet.description:<42} RTP {_percent(bet.rtp):>9}  edge "
            f"{_percent(bet.house_edge):>9} | RTP {_percent(bet.rtp_per_total):>9}  edge "
            f"{_percent(bet.house_edge_per_total):>9}  sd {float(bet.std_dev):.4f}"
        )
    return lines


def _stats_lines(label: str, stats: BetStats) -> list[str]:
    verdict = "agree" if stats.within(AGREEMENT_SE) else "DO NOT agree"
    observed, error = _percent(stats.observed_rtp), _percent(stats.std_error)
    return [
        label,
        f"  observed RTP   {observed}  (standard error {error})",
        f"  exact RTP      {_percent(stats.exact_rtp)}  ({stats.exact_rtp})",
        f"  difference     {stats.z_score:+.2f} SE: {verdict} within {AGREEMENT_SE} SE",
    ]


def _round_lines(stats: RoundStats, hands: int) -> list[str]:
    return [
        f"Round of {hands} hand(s), net per unit of ante",
        f"  observed mean  {stats.observed_mean:+.6f}  (standard error {stats.std_error:.6f}),"
        f" exact {float(stats.exact_mean):+.6f}",
        f"  variance       observed {stats.observed_variance:.6f}, exact "
        f"{float(stats.exact_variance):.6f}",
    ]


@click.command("simulate")
@click.option("--rounds", type=click.IntRange(min=1), default=100_000, show_default=True)
@rule_options
@click.option(
    "--strategy",
    type=click.Choice([s.value for s in Strategy]),
    default=Strategy.WAR.value,
    show_default=True,
    help="What to do on a tie (best: the better decision per tied rank).",
)
@click.option("--tie-bet", is_flag=True, help="Also place a tie bet equal to the ante.")
@click.option("--tie-only", is_flag=True, help="Tie bets alone (ante 0; the table takes them).")
@click.option(
    "--place-war-tie-bet", is_flag=True, help="Place a war tie bet equal to the ante on every war."
)
@click.option("--seed", default=DEFAULT_SEED, show_default=True, help="Server seed = SHA-256(S).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--check", is_flag=True, help="Exit with status 1 unless the figures agree.")
@click.option(
    "--shared",
    is_flag=True,
    help="A shared table: whole shoes (8 decks unless --decks) dealt to the cut card.",
)
@click.option("--shoes", type=click.IntRange(min=2), default=1000, show_default=True)
def simulate_cmd(
    rounds: int,
    strategy: str,
    tie_bet: bool,
    tie_only: bool,
    place_war_tie_bet: bool,
    seed: str,
    as_json: bool,
    check: bool,
    shared: bool,
    shoes: int,
    **options: Any,
) -> None:
    """Monte Carlo through the real dealing and settlement path, against the exact RTP.

    With --shared, --shoes whole shoes of a shared table (--rounds does not apply)."""
    if shared:
        if tie_only or options["hands"] != 1:
            raise click.UsageError("a shared table deals one hand per bettor, with an ante")
        simulate_shoes(shoes, strategy, tie_bet, place_war_tie_bet, seed, as_json, check, options)
        return
    hands = options["hands"]
    if tie_only:
        options["rules_json"] = _with(options["rules_json"], tie_only=True)
    if place_war_tie_bet:
        options["war_tie_bet"] = True
    rules = rules_from_options(**options)
    kwargs: dict[str, Any] = {
        "strategy": strategy,
        "tie_bet": tie_bet,
        "seed": seed,
        "hands": hands,
        "war_tie_bet": place_war_tie_bet,
        "tie_only": tie_only,
    }
    run_and_report(
        lambda progress: simulate(rounds, rules, progress=progress, **kwargs),
        units=rounds,
        bar_from=PROGRESS_BAR_FROM,
        label="Simulating",
        lines=lambda report: _report_lines(report, rules, strategy),
        as_json=as_json,
        check=check,
    )


def _with(rules_json: str | None, **rules: Any) -> str:
    data = {} if rules_json is None else json.loads(rules_json)
    data.update(rules)
    return json.dumps(data)


def _report_lines(report: SimulationReport, rules: TableRules, strategy: str) -> list[str]:
    lines = [
        f"{report.rounds} rounds of {report.hands} hand(s), {rules.decks} deck(s), strategy "
        f"{strategy}, seed {report.seed!r}, ante {report.ante}; ties on the first two cards: "
        f"{report.ties_seen}"
    ]
    if report.main is not None:
        lines += _stats_lines(f"Ante ({strategy} on ties), per unit of initial ante", report.main)
    if report.tie is not None:
        lines += _stats_lines("Tie bet, per unit of tie bet", report.tie)
    if report.war_tie is not None:
        lines += _stats_lines("War tie bet, per unit placed", report.war_tie)
    if report.round is not None:
        lines += _round_lines(report.round, report.hands)
    return lines


def register(group: click.Group) -> None:
    """Add this module's commands to ``group``."""
    for command in (verify_cmd, odds_cmd, simulate_cmd):
        group.add_command(command)
