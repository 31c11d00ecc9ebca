"""``casino war variants | simulate | play``."""

from __future__ import annotations

import json

from click.testing import CliRunner

from casino.cli import main
from casino.engine.war import draw_seat, simulate


def run(*args: str, stdin: str | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, ["war", *args], input=stdin)


def test_variants_lists_every_preset_and_its_options() -> None:
    result = run("variants")
    assert result.exit_code == 0, result.output
    for name in ("classic:", "razboi:", "steal:", "tod-und-leben:", "hand-of-three:"):
        assert name in result.output
    assert "-o war_down=...  default 3" in result.output
    catalogue = json.loads(run("variants", "--json").output)
    assert len(catalogue) == 10


def test_simulate_json_is_the_simulate_function() -> None:
    result = run(
        "simulate",
        "-v",
        "classic-1",
        "-n",
        "40",
        "--seed",
        "cli",
        "-o",
        "short_stack=lose",
        "--json",
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output[result.output.index("{") :])
    expected = simulate("classic-1", {"short_stack": "lose"}, 40, "cli")
    for key in ("battles", "wins", "draws", "cycles", "wars_per_game", "endings"):
        assert report[key] == expected[key]


def test_simulate_text_report_and_strategies() -> None:
    result = run(
        "simulate", "-v", "steal", "-n", "10", "--strategy", "greedy", "--strategy", "random"
    )
    assert result.exit_code == 0, result.output
    assert "battles   mean" in result.output and "seat 0:" in result.output


def test_simulate_refuses_bad_options_clearly() -> None:
    result = run("simulate", "-o", "war_down=9")
    assert result.exit_code == 2
    assert "must be one of 0, 1, 2, 3" in result.output
    result = run("simulate", "-v", "steal", "-n", "5", "--strategy", "greedy")
    assert result.exit_code == 2 and "one strategy per seat" in result.output
    assert run("simulate", "-o", "nonsense").exit_code == 2


def test_play_classic_step_by_step_then_to_the_end() -> None:
    result = run("play", "-v", "classic", "--seed", "cli-play", stdin="\n\na\n")
    assert result.exit_code == 0, result.output
    assert "Battle 1:" in result.output and "Battle 2:" in result.output
    assert "Seed: cli-play" in result.output
    assert "You win" in result.output or "You lose" in result.output or "Draw" in result.output


def test_play_hand_of_three_asks_for_cards() -> None:
    result = run("play", "-v", "hand-of-three", "--seed", "cli-hand", stdin="1\n9\n2\nq\n")
    assert result.exit_code == 0, result.output
    assert "Play a card: 1)" in result.output
    assert "Answer one of: 1, 2, 3, a, q" in result.output
    assert "Stopped after" in result.output


def test_play_steal_offers_the_steal() -> None:
    for i in range(40):
        result = run(
            "play", "-v", "steal", "--seed", f"cli-steal-{i}", stdin="s\n1\n" * 300 + "q\n"
        )
        assert result.exit_code == 0, result.output
        if "s = steal, p = play it" in result.output:
            assert "steal(s) the pile" in result.output or "You look at" in result.output
            return
    raise AssertionError("no steal offered in 40 games")


def test_play_lets_the_human_choose_or_draw_its_seat() -> None:
    chosen = run(
        "play",
        "-v",
        "multiplayer",
        "-o",
        "seats=4",
        "--seed",
        "cli-seat",
        "--seat",
        "3",
        stdin="q\n",
    )
    assert chosen.exit_code == 0, chosen.output
    assert "you are seat 3 against 3 greedy computer(s)" in chosen.output
    drawn = run("play", "-v", "multiplayer", "--seed", "cli-seat", "--seat", "draw", stdin="\nq\n")
    assert drawn.exit_code == 0, drawn.output
    seat = draw_seat("cli-seat", 3)
    assert f"you are seat {seat} (drawn)" in drawn.output
    assert (
        "Battle 1: " in drawn.output
        and " you " in drawn.output.split("Battle 1: ")[1].split("\n")[0]
    )
    for bad in ("2", "x", "-1"):
        refused = run("play", "--seed", "cli-seat", "--seat", bad, stdin="q\n")
        assert refused.exit_code == 2, (bad, refused.output)
