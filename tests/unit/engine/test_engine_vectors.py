"""The documented test vectors: engine, standalone verifier, the doc's reference code and the
``casino verify`` command must all reproduce them."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from casino.cli import main as casino_cli
from casino.engine import verify
from casino.engine.casino_war import deal_casino_war
from casino.engine.fairness import commitment

ROOT = Path(__file__).resolve().parents[3]
SPEC = ROOT / "docs" / "fairness.md"
VECTOR_ROW = re.compile(
    r"^\|\s*(\d+)\s*\|\s*([0-9a-f]{64})\s*\|\s*`([^`]*)`\s*\|\s*(\d+)\s*\|\s*(\d)\s*\|\s*([^|]+)\|$"
)


@dataclass(frozen=True)
class Vector:
    number: int
    server_seed: bytes
    client_seed: str
    nonce: int
    decks: int
    cards: tuple[str, ...]


def documented_vectors() -> list[Vector]:
    vectors = []
    for line in SPEC.read_text().splitlines():
        match = VECTOR_ROW.match(line.strip())
        if match:
            number, seed, client, nonce, decks, cards = match.groups()
            vectors.append(
                Vector(
                    int(number),
                    bytes.fromhex(seed),
                    client,
                    int(nonce),
                    int(decks),
                    tuple(cards.split()),
                )
            )
    return vectors


VECTORS = documented_vectors()


def test_the_spec_lists_at_least_five_vectors_of_seven_cards() -> None:
    assert len(VECTORS) >= 5
    assert [v.number for v in VECTORS] == list(range(1, len(VECTORS) + 1))
    assert all(len(v.cards) == 7 for v in VECTORS)
    assert {v.decks for v in VECTORS} >= {1, 6, 8}


def test_derived_seeds_are_as_documented() -> None:
    for vector in VECTORS[1:]:
        if vector.server_seed != b"\xff" * 32:
            label = f"casino-war test vector {vector.number}".encode()
            assert vector.server_seed == hashlib.sha256(label).digest()
    assert commitment(VECTORS[0].server_seed) in SPEC.read_text()


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: f"vector{v.number}")
def test_engine_reproduces_vector(vector: Vector) -> None:
    dealt = deal_casino_war(vector.server_seed, vector.client_seed, vector.nonce, vector.decks)
    assert dealt.codes == vector.cards


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: f"vector{v.number}")
def test_standalone_verifier_reproduces_vector(vector: Vector) -> None:
    dealt = verify.deal(vector.server_seed, vector.client_seed, vector.nonce, vector.decks, 7)
    assert tuple(dealt) == vector.cards


def test_reference_code_in_the_spec_reproduces_every_vector() -> None:
    code = SPEC.read_text().split("```python\n", 1)[1].split("```", 1)[0]
    namespace: dict[str, object] = {}
    exec(compile(code, str(SPEC), "exec"), namespace)
    reference_deal = namespace["deal"]
    for vector in VECTORS:
        dealt = reference_deal(vector.server_seed, vector.client_seed, vector.nonce, vector.decks)  # type: ignore[operator]
        assert tuple(dealt) == vector.cards


def test_vector_five_really_exercises_a_rejection() -> None:
    vector = VECTORS[4]
    stream = verify.u32_stream(vector.server_seed, vector.client_seed, vector.nonce)
    draws = [next(stream) for _ in range(7)]
    size = 52 * vector.decks
    assert any(x >= 2**32 - 2**32 % (size - i) for i, x in enumerate(draws))


def verify_args(vector: Vector) -> list[str]:
    """The verifier's arguments that name one documented round."""
    return [
        "--server-seed",
        vector.server_seed.hex(),
        "--client-seed",
        vector.client_seed,
        "--nonce",
        str(vector.nonce),
        "--decks",
        str(vector.decks),
    ]


def test_vector_four_is_a_tie() -> None:
    cards = VECTORS[3].cards
    assert cards[0][:-1] == cards[1][:-1]


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: f"vector{v.number}")
def test_casino_verify_command_prints_the_cards_and_checks_the_hash(vector: Vector) -> None:
    args = ["verify", *verify_args(vector), "--hash", commitment(vector.server_seed), "--json"]
    outcome = CliRunner().invoke(casino_cli, args)
    assert outcome.exit_code == 0, outcome.output
    report = json.loads(outcome.output)
    assert tuple(report["cards"]) == vector.cards
    assert report["commitment_matches"] is True
    assert report["dealt"]["war dealer"] == vector.cards[6]


def test_verify_text_output_lists_every_card_in_order() -> None:
    vector = VECTORS[3]
    argv = verify_args(vector)
    outcome = CliRunner().invoke(casino_cli, ["verify", *argv])
    assert outcome.exit_code == 0
    lines = [line.split()[-1] for line in outcome.output.splitlines() if re.match(r"\s+\d\.", line)]
    assert tuple(lines) == vector.cards
    assert "tie" in outcome.output


def test_hash_mismatch_exits_non_zero() -> None:
    vector = VECTORS[0]
    args = [
        "--server-seed",
        vector.server_seed.hex(),
        "--client-seed",
        vector.client_seed,
        "--nonce",
        "0",
        "--hash",
        "0" * 64,
    ]
    assert verify.main(args) == verify.EXIT_HASH_MISMATCH
    outcome = CliRunner().invoke(casino_cli, ["verify", *args])
    assert outcome.exit_code == 1
    assert "DOES NOT MATCH" in outcome.output


@pytest.mark.parametrize(
    "bad",
    [
        ["--server-seed", "zz", "--client-seed", "c", "--nonce", "0"],
        ["--server-seed", "ab" * 31, "--client-seed", "c", "--nonce", "0"],
        ["--server-seed", "ab" * 32, "--client-seed", "", "--nonce", "0"],
        ["--server-seed", "ab" * 32, "--client-seed", "c", "--nonce", "-1"],
        ["--server-seed", "ab" * 32, "--client-seed", "c", "--nonce", "0", "--decks", "9"],
    ],
)
def test_invalid_input_exits_2(bad: list[str]) -> None:
    assert verify.main(bad) == verify.EXIT_INVALID


def test_verifier_runs_as_a_module_and_as_a_lone_file(tmp_path: Path) -> None:
    vector = VECTORS[1]
    args = [*verify_args(vector), "--json"]
    as_module = subprocess.run(
        [sys.executable, "-m", "casino.engine.verify", *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    assert tuple(json.loads(as_module.stdout)["cards"]) == vector.cards
    # A player can copy the file alone: it must run outside the project.
    lone = tmp_path / "verify.py"
    lone.write_text(Path(verify.__file__).read_text())
    as_file = subprocess.run(
        [sys.executable, "-I", str(lone), *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    assert tuple(json.loads(as_file.stdout)["cards"]) == vector.cards
