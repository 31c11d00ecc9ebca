"""Free-play War commands: ``casino war variants``, ``casino war play``, ``casino war simulate``."""

from __future__ import annotations

import json
import secrets
import sys
from collections.abc import Sequence
from typing import Any

import click

from casino.engine.errors import EngineError
from casino.engine.war import (
    DRAW_SEAT,
    PRESETS,
    STRATEGIES,
    Decision,
    DecisionKind,
    IllegalMove,
    WarGame,
    build_rules,
    default_seats,
    new_game,
    parse_option_value,
    resolve_human_seat,
    variant_catalogue,
)
from casino.engine.war.simulation import outcomes, summarise

_AUTOPLAY_SHOWN = 3  # battles shown after "play to the end"

_variant_option = click.option(
    "--variant",
    "-v",
    type=click.Choice(list(PRESETS)),
    default="classic",
    show_default=True,
    help="Which War.",
)
_option_option = click.option(
    "--option",
    "-o",
    "option_args",
    multiple=True,
    metavar="NAME=VALUE",
    help="Change one of the variant's options (see 'casino war variants'); repeatable.",
)


def _options(variant: str, option_args: Sequence[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for arg in option_args:
        name, sep, text = arg.partition("=")
        if not sep:
            raise click.BadParameter(f"expected NAME=VALUE, got {arg!r}", param_hint="--option")
        try:
            options[name.strip()] = parse_option_value(variant, name.strip(), text)
        except EngineError as exc:
            raise click.BadParameter(exc.detail, param_hint="--option") from exc
    return options


@click.group("war")
def war_group() -> None:
    """Free-play War and its variants (no money)."""


@war_group.command("variants")
@click.option("--json", "as_json", is_flag=True, help="Print the catalogue as JSON.")
def variants_cmd(as_json: bool) -> None:
    """List the variants, their options and defaults."""
    catalogue = variant_catalogue()
    if as_json:
        click.echo(json.dumps(catalogue, indent=2))
        return
    for item in catalogue:
        click.echo(f"{item['name']}: {item['title']}")
        click.echo(f"  {item['description']}")
        for name, spec in item["options"].items():
            allowed = ", ".join(_spell(v) for v in spec["allowed"])
            click.echo(f"  -o {name}=...  default {_spell(spec['default'])}; one of {allowed}")
        click.echo("")


def _spell(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# --- simulate ----------------------------------------------------------------------------------


@war_group.command("simulate")
@_variant_option
@click.option("--games", "-n", type=click.IntRange(1, 1_000_000), default=1000, show_default=True)
@click.option("--seed", default="0", show_default=True, help="Game i is played with seed S:i.")
@_option_option
@click.option(
    "--strategy",
    "strategies",
    multiple=True,
    type=click.Choice(sorted(STRATEGIES)),
    help="Strategy of each seat in turn (default greedy for all); give one per seat.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def simulate_cmd(
    variant: str,
    games: int,
    seed: str,
    option_args: Sequence[str],
    strategies: Sequence[str],
    as_json: bool,
) -> None:
    """Play many seeded all-computer games and report battles, wars, wins and cycles."""
    options = _options(variant, option_args)
    try:
        rules = build_rules(variant, options)
        games_iter = outcomes(rules, games, seed, list(strategies) or None)
        with click.progressbar(games_iter, length=games, label="Playing", file=sys.stderr) as bar:
            results = list(bar)
    except EngineError as exc:
        raise click.UsageError(exc.detail) from exc
    summary = summarise(rules, results)
    report = {
        "variant": variant,
        "options": options,
        "seed": seed,
        "strategies": list(strategies) or ["greedy"] * rules.seats,
        **summary,
    }
    if as_json:
        click.echo(json.dumps(report, indent=2))
        return
    b = summary["battles"]
    click.echo(f"{variant}: {games} games, seed {seed!r}, options {options or 'default'}")
    click.echo(
        f"  battles   mean {b['mean']}  median {b['median']}  p95 {b['p95']}  max {b['max']}"
    )
    click.echo(f"  wars per game  {summary['wars_per_game']}")
    click.echo("  wins      " + "  ".join(f"seat {s}: {w}" for s, w in enumerate(summary["wins"])))
    draws, cycles, unfinished = summary["draws"], summary["cycles"], summary["unfinished"]
    click.echo(f"  draws {draws}  cycles {cycles}  unfinished {unfinished}")
    click.echo("  endings   " + ", ".join(f"{k} {v}" for k, v in summary["endings"].items()))


# --- play --------------------------------------------------------------------------------------


def _seat_choice(text: str) -> int | str:
    if text == DRAW_SEAT:
        return text
    if text.isdigit() and len(text) == 1:
        return int(text)
    raise click.BadParameter(f"a seat number or {DRAW_SEAT!r}, not {text!r}", param_hint="--seat")


@war_group.command("play")
@_variant_option
@click.option("--seed", default=None, help="Game seed (default: random, shown at the end).")
@_option_option
@click.option(
    "--opponent",
    type=click.Choice(sorted(STRATEGIES)),
    default="greedy",
    show_default=True,
    help="Strategy of the computer seats.",
)
@click.option(
    "--seat",
    default="0",
    show_default=True,
    help="Your seat (0 to seats-1), or 'draw' to draw it from the game's seed. Seats are not "
    "equal with a fixed return order: see docs/war-variants.md.",
)
def play_cmd(
    variant: str, seed: str | None, option_args: Sequence[str], opponent: str, seat: str
) -> None:
    """Play a game in the terminal against the computer."""
    options = _options(variant, option_args)
    try:
        rules = build_rules(variant, options)
        game_seed = seed if seed is not None else secrets.token_hex(16)
        human = resolve_human_seat(_seat_choice(seat), game_seed, rules.seats)
        game = new_game(variant, options, game_seed, default_seats(rules.seats, human, opponent))
    except EngineError as exc:
        raise click.UsageError(exc.detail) from exc
    table = _Table(game, human)
    title = PRESETS[variant].title
    drawn = " (drawn)" if seat == DRAW_SEAT else ""
    others = rules.seats - 1
    click.echo(f"{title}: you are seat {human}{drawn} against {others} {opponent} computer(s).")
    click.echo(f"Seed hash {game.seed_hash} (the seed is shown when the game ends).")
    click.echo("Enter: next battle   a: play to the end   q: quit")
    shown = 0
    while not game.finished:
        mine = [d for d in game.pending if d.seat == human]
        if mine:
            command = table.decide(mine[0])
        else:
            command = click.prompt("", default="", show_default=False, prompt_suffix="> ")
            command = command.strip().lower()
            if command not in ("a", "q"):
                game.advance("battle")
        if command == "q":
            click.echo(f"Stopped after {game.battles} battles. Seed: {game.seed}")
            return
        if command == "a":
            game.advance("end")  # your remaining choices are made by the greedy strategy
            shown = max(shown, len(game.log or []) - _AUTOPLAY_SHOWN)
        shown = table.echo_new_entries(shown)
    table.echo_result()


def _ask(text: str, answers: Sequence[str]) -> str:
    """One of ``answers``, or 'a' (play to the end) or 'q' (quit)."""
    allowed = [*answers, "a", "q"]
    while True:
        reply = click.prompt(text, prompt_suffix="> ").strip().lower()
        if reply in allowed:
            return reply
        click.echo(f"Answer one of: {', '.join(allowed)}")


class _Table:
    """The terminal game as the human at seat ``human`` sees it."""

    def __init__(self, game: WarGame, human: int) -> None:
        self.game = game
        self.human = human

    def who(self, seat: int) -> str:
        return who(seat, self.human)

    def decide(self, decision: Decision) -> str:
        """Ask the human's decision and apply it; returns 'a' or 'q' when asked for instead."""
        game = self.game
        table = game.view(self.human)["table"]
        if table and table.get("turned"):
            click.echo("  on the table: " + cards_line(table["turned"], self.human))
        ctx = decision.context
        numbers = [str(i) for i in range(1, len(decision.legal) + 1)]
        if decision.kind is DecisionKind.HAND_CARD:
            what = "the deciding card of the war" if ctx["war"] else "a card"
            listed = "  ".join(f"{i}) {m['card']}" for i, m in enumerate(decision.legal, 1))
            reply = _ask(f"Play {what}: {listed}", numbers)
        elif decision.kind is DecisionKind.STEAL_OR_PLAY:
            targets = ", ".join(
                f"{self.who(t['seat'])}'s pile ({t['cards']} cards, top {t['top']})"
                for t in ctx["targets"]
            )
            click.echo(f"You look at {ctx['card']}: it matches {targets}.")
            # Legal moves: play, steal every matching pile, then steal some of them only.
            some = [
                f"{i}) steal only " + " and ".join(f"{self.who(t)}'s" for t in m["from"])
                for i, m in enumerate(decision.legal, 1)
                if "from" in m
            ]
            menu = "s = steal" + (" them all" if some else "") + ", p = play it"
            reply = _ask("  ".join([menu, *some]), ["s", "p", *numbers[2:]])
            reply = {"p": "1", "s": "2"}.get(reply, reply)
        else:
            listed = "  ".join(f"{i}) {m['card']}" for i, m in enumerate(decision.legal, 1))
            reply = _ask(f"Which won card goes on top of your pile? {listed}", numbers)
        if reply in ("a", "q"):
            return reply
        try:
            game.apply(self.human, decision.legal[int(reply) - 1])
        except IllegalMove as exc:  # the menus offer legal moves only; say so if one is refused
            click.echo(exc.detail)
        return ""

    def echo_new_entries(self, shown: int) -> int:
        total = len(self.game.log or [])
        if total > shown:
            for entry in self.game.view(self.human, log_tail=total - shown)["log"]:
                for line in describe_entry(entry, self.human):
                    click.echo(line)
        return total

    def echo_result(self) -> None:
        game = self.game
        result = game.result
        assert result is not None
        reason = result.reason.value
        if result.draw:
            click.echo(f"Draw ({reason}) after {result.battles} battles.")
        elif self.human in result.winners:
            click.echo(f"You win ({reason}) after {result.battles} battles!")
        else:
            winners = ", ".join(self.who(s) for s in result.winners)
            click.echo(f"You lose ({reason}) after {result.battles} battles; winner(s): {winners}.")
        click.echo(f"Seed: {game.seed}")


def who(seat: int, human: int = 0) -> str:
    return "you" if seat == human else f"seat {seat}"


def cards_line(cards: Sequence[str | None], human: int = 0) -> str:
    return "  ".join(f"{who(s, human)} {c}" for s, c in enumerate(cards) if c is not None)


def describe_entry(entry: dict[str, Any], human: int = 0) -> list[str]:
    """One battle of a seat's log as text lines, told to the human at seat ``human``."""

    def _who(seat: int) -> str:
        return who(seat, human)

    def _cards_line(cards: Sequence[str | None]) -> str:
        return cards_line(cards, human)

    lines = [f"Battle {entry['battle']}: " + _cards_line(entry["turned"])]
    for war in entry["wars"]:
        down = "  ".join(f"{_who(s)} {d}" for s, d in enumerate(war["down"]) if d is not None)
        standing = "".join(f"  ({_who(s)}: last card stands)" for s in war["standing"])
        lines.append(f"  war! down: {down or 'none'}; up: {_cards_line(war['up'])}{standing}")
    for steal in entry.get("steals", []):
        victims = ", ".join(_who(t) for t in steal["from"])
        lines.append(
            f"  {_who(steal['seat'])} steal(s) the pile of {victims} with {steal['card']} "
            f"({steal['cards']} cards)"
        )
    for seat in entry["eliminated"]:
        lines.append(f"  {_who(seat)}: out of cards for the war")
    if entry.get("void"):
        lines.append("  nobody can finish the war: each takes back its own cards")
    if entry["winner"] is not None:
        extra = f", {entry['top']} on top" if entry.get("top") else ""
        lines.append(f"  -> {_who(entry['winner'])} take(s) {entry['won']} cards{extra}")
    if entry.get("pair_to") is not None:
        lines.append(f"  {_who(entry['pair_to'])} take(s) the two cards that began the war")
    held = list(entry["stocks"])
    for extra in ("hands", "piles"):
        for s, n in enumerate(entry.get(extra, ())):
            held[s] += n
    lines.append("  cards: " + "  ".join(f"{_who(s)} {n}" for s, n in enumerate(held)))
    if "aside" in entry:
        lines.append("  won: " + "  ".join(f"{_who(s)} {n}" for s, n in enumerate(entry["aside"])))
    return lines


def register(group: click.Group) -> None:
    """Add this module's commands to ``group``."""
    group.add_command(war_group)
