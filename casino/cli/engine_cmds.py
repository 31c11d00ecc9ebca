"""Engine commands: ``casino verify``, ``casino odds`` and ``casino simulate``."""

from __future__ import annotations

import json
import sys
from fractions import Fraction

import click

from casino.engine import verify as verifier
from casino.engine.cards import MAX_DECKS, MIN_DECKS
from casino.engine.casino_war import ALLOWED_TIE_PAYS, TableRules
from casino.engine.errors import EngineError
from casino.engine.odds import casino_war_odds
from casino.engine.simulation import AGREEMENT_SE, DEFAULT_SEED, BetStats, Strategy, simulate

#: Below this many rounds a run is quick enough that a progress bar would only flicker.
PROGRESS_BAR_FROM = 50_000

_decks_option = click.option(
    "--decks",
    type=click.IntRange(MIN_DECKS, MAX_DECKS),
    default=6,
    show_default=True,
    help="Decks in the shoe.",
)
_tie_pays_option = click.option(
    "--tie-pays",
    type=click.Choice([str(k) for k in ALLOWED_TIE_PAYS]),
    default=str(ALLOWED_TIE_PAYS[0]),
    show_default=True,
    help="The tie bet pays K to 1.",
)
_bonus_option = click.option(
    "--war-tie-bonus", is_flag=True, help="A tie in the war also pays a bonus equal to the ante."
)


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
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def verify_cmd(
    round_file: str | None,
    server_seed: str | None,
    client_seed: str | None,
    nonce: str | None,
    decks: int | None,
    hash_: str | None,
    as_json: bool,
) -> None:
    """Re-deal a round from its revealed seeds and check it.

    Runs the standalone, standard-library verifier (casino/engine/verify.py). Exit status 0
    only when everything checked matches; 1 on any mismatch (the commitment, a card, a
    payout, the net); 2 on invalid input.
    """
    options = {
        "--round": round_file,
        "--server-seed": server_seed,
        "--client-seed": client_seed,
        "--nonce": nonce,
        "--decks": None if decks is None else str(decks),
        "--hash": hash_,
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
@_decks_option
@_tie_pays_option
@_bonus_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON (fractions of 1 and exact).")
def odds_cmd(decks: int, tie_pays: str, war_tie_bonus: bool, as_json: bool) -> None:
    """Exact Casino War odds for a shoe of D decks (finite shoe, no simulation)."""
    rules = TableRules(decks=decks, tie_pays=int(tie_pays), war_tie_bonus=war_tie_bonus)
    odds = casino_war_odds(rules)
    if as_json:
        click.echo(json.dumps(odds.to_json(), indent=2))
        return
    bonus = "with" if war_tie_bonus else "without"
    click.echo(f"Casino War, {decks} deck(s), tie bet pays {tie_pays}:1, {bonus} war-tie bonus")
    rows = [
        ("P(tie on the first two cards)", odds.p_tie),
        ("house edge, always go to war", odds.house_edge_war),
        ("house edge, always surrender", odds.house_edge_surrender),
        (f"house edge, tie bet at {tie_pays}:1", odds.house_edge_tie_bet),
        ("element of risk, always war", odds.element_of_risk_war),
    ]
    for label, value in rows:
        click.echo(f"  {label:<34} {_percent(value):>9}   {value}")
    click.echo(f"  {'std dev, always war (per ante)':<34} {float(odds.std_dev_war):>9.6f}")


def _stats_lines(label: str, stats: BetStats) -> list[str]:
    verdict = "agree" if stats.within(AGREEMENT_SE) else "DO NOT agree"
    observed, error = _percent(stats.observed_rtp), _percent(stats.std_error)
    return [
        label,
        f"  observed RTP   {observed}  (standard error {error})",
        f"  exact RTP      {_percent(stats.exact_rtp)}  ({stats.exact_rtp})",
        f"  difference     {stats.z_score:+.2f} SE: {verdict} within {AGREEMENT_SE} SE",
    ]


@click.command("simulate")
@click.option("--rounds", type=click.IntRange(min=1), default=100_000, show_default=True)
@_decks_option
@click.option(
    "--strategy",
    type=click.Choice([s.value for s in Strategy]),
    default=Strategy.WAR.value,
    show_default=True,
    help="What to do on a tie.",
)
@click.option("--tie-bet", is_flag=True, help="Also place a tie bet equal to the ante.")
@_tie_pays_option
@_bonus_option
@click.option("--seed", default=DEFAULT_SEED, show_default=True, help="Server seed = SHA-256(S).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--check", is_flag=True, help="Exit with status 1 unless the figures agree.")
def simulate_cmd(
    rounds: int,
    decks: int,
    strategy: str,
    tie_bet: bool,
    tie_pays: str,
    war_tie_bonus: bool,
    seed: str,
    as_json: bool,
    check: bool,
) -> None:
    """Monte Carlo through the real dealing and settlement path, against the exact RTP."""
    rules = TableRules(decks=decks, tie_pays=int(tie_pays), war_tie_bonus=war_tie_bonus)
    try:
        if rounds >= PROGRESS_BAR_FROM and not as_json:
            with click.progressbar(length=rounds, label="Simulating", file=sys.stderr) as bar:
                report = simulate(
                    rounds,
                    rules,
                    strategy=strategy,
                    tie_bet=tie_bet,
                    seed=seed,
                    progress=bar.update,
                )
        else:
            report = simulate(rounds, rules, strategy=strategy, tie_bet=tie_bet, seed=seed)
    except EngineError as exc:
        raise click.UsageError(exc.detail) from exc

    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
    else:
        click.echo(
            f"{rounds} rounds, {decks} deck(s), strategy {strategy}, seed {seed!r}, "
            f"ante {report.ante}; ties on the first two cards: {report.ties_seen}"
        )
        lines = _stats_lines(f"Ante ({strategy} on ties), per unit of initial ante", report.main)
        if report.tie is not None:
            lines += _stats_lines(f"Tie bet at {tie_pays}:1, per unit of tie bet", report.tie)
        click.echo("\n".join(lines))
    if check and not report.agrees:
        raise SystemExit(1)


def register(group: click.Group) -> None:
    """Add this module's commands to ``group``."""
    for command in (verify_cmd, odds_cmd, simulate_cmd):
        group.add_command(command)
