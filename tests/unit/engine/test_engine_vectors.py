"""The documented test vectors: engine, standalone verifier, the doc's reference code and the
``casino verify`` command must all reproduce them."""

from __future__ import annotations

import hashlib
import hmac
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
#: Vectors whose client seed has spaces at an end are given as the hex of the seed's bytes.
HEX_SEED_ROW = re.compile(
    r"^\|\s*(\d+)\s*\|\s*([0-9a-f]{64})\s*\|\s*([0-9a-f]+)\s*\|\s*(\d+)\s*\|\s*(\d)\s*\|\s*([^|]+)\|$"
)


@dataclass(frozen=True)
class Vector:
    number: int
    server_seed: bytes
    client_seed: str
    nonce: int
    decks: int
    cards: tuple[str, ...]


def documented_vectors(row: re.Pattern[str] = VECTOR_ROW) -> list[Vector]:
    vectors = []
    for line in SPEC.read_text().splitlines():
        match = row.match(line.strip())
        if match:
            number, seed, client, nonce, decks, cards = match.groups()
            if row is HEX_SEED_ROW:
                client = bytes.fromhex(client).decode("ascii")
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


PLAIN_VECTORS = documented_vectors()
SPACED_VECTORS = documented_vectors(HEX_SEED_ROW)
VECTORS = PLAIN_VECTORS + SPACED_VECTORS


def test_the_spec_lists_at_least_five_vectors_of_seven_cards() -> None:
    assert len(VECTORS) >= 5
    assert [v.number for v in VECTORS] == list(range(1, len(VECTORS) + 1))
    assert all(len(v.cards) == 7 for v in VECTORS)
    assert {v.decks for v in VECTORS} >= {1, 6, 8}


def test_vectors_cover_the_nonce_range_and_client_seeds_with_spaces_at_the_ends() -> None:
    assert max(v.nonce for v in VECTORS) == 2**63 - 1
    assert min(v.nonce for v in VECTORS) == 0
    assert any(v.client_seed != v.client_seed.strip() and v.client_seed.strip() for v in VECTORS)
    assert any(v.client_seed == " " for v in VECTORS)
    for vector in SPACED_VECTORS:
        trimmed = vector.client_seed.strip()
        if trimmed:  # the spaces are part of the seed: without them, another deal
            dealt = deal_casino_war(vector.server_seed, trimmed, vector.nonce, vector.decks)
            assert dealt.codes != vector.cards


def test_the_message_bytes_are_as_documented() -> None:
    text = SPEC.read_text()
    vector = next(v for v in SPACED_VECTORS if v.client_seed == "  lucky ")
    message = f"{vector.client_seed}:{vector.nonce}:0".encode()
    assert message.hex(" ") in text
    digest = hmac.new(vector.server_seed, message, hashlib.sha256).hexdigest()
    assert digest in text
    assert "74 65 73 74 3a 30 3a 30" in text and b"test:0:0".hex(" ") == "74 65 73 74 3a 30 3a 30"
    assert next(verify.u32_stream(vector.server_seed, vector.client_seed, vector.nonce)) == int(
        digest[:8], 16
    )


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
        f"--client-seed={vector.client_seed}",  # '=': a seed may start with a space or '-'
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
        "--decks",
        "6",
        "--hash",
        "0" * 64,
    ]
    assert verify.main(args) == verify.EXIT_HASH_MISMATCH
    outcome = CliRunner().invoke(casino_cli, ["verify", *args])
    assert outcome.exit_code == 1
    assert "DOES NOT MATCH" in outcome.output


def seeds_and(nonce: str, *more: str) -> list[str]:
    return ["--server-seed", "ab" * 32, "--client-seed", "c", f"--nonce={nonce}", *more]


@pytest.mark.parametrize(
    "bad",
    [
        ["--server-seed", "zz", "--client-seed", "c", "--nonce", "0", "--decks", "6"],
        ["--server-seed", "ab" * 31, "--client-seed", "c", "--nonce", "0", "--decks", "6"],
        ["--server-seed", "ab" * 32, "--client-seed=", "--nonce", "0", "--decks", "6"],
        seeds_and("0", "--decks", "9"),
        seeds_and("0"),  # no --decks: no silent default of 6
        seeds_and("-1", "--decks", "6"),
        seeds_and("+5", "--decks", "6"),
        seeds_and("05", "--decks", "6"),
        seeds_and("-0", "--decks", "6"),
        seeds_and(" 5", "--decks", "6"),
        seeds_and("5 ", "--decks", "6"),
        seeds_and("1_000", "--decks", "6"),
        seeds_and("0x10", "--decks", "6"),
        seeds_and("\u0665", "--decks", "6"),  # an Arabic-Indic five: int() would take it
        seeds_and(str(2**63), "--decks", "6"),
        seeds_and(str(2**64), "--decks", "6"),
    ],
)
def test_invalid_input_exits_2(bad: list[str]) -> None:
    assert verify.main(bad) == verify.EXIT_INVALID
    assert CliRunner().invoke(casino_cli, ["verify", *bad]).exit_code == 2


def test_the_largest_nonce_and_zero_are_accepted() -> None:
    for nonce in (str(2**63 - 1), "0", "10"):
        assert verify.main(seeds_and(nonce, "--decks", "6")) == verify.EXIT_OK
        assert (
            CliRunner().invoke(casino_cli, ["verify", *seeds_and(nonce, "--decks", "6")]).exit_code
            == 0
        )


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
