"""Issue 13, point 3: the verifier reads an export in parallel (``--jobs``) with the very result
of reading it alone: the same summary, every failure message and line number included.

Exports of a ledger played through the service (SQLite and PostgreSQL), clean and tampered
(an edited amount, card, seed, a dropped line, a reordered line, with and without the lines'
digests redone), are verified sequentially and by worker processes given a few lines at a
time, so that many blocks and block boundaries are crossed; the standalone file is run alone
(``python -I -S``) both ways. Each parallel run is checked to have started its workers, so a
pool that quietly fell back to the sequential path would fail here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from casino.audit_export import casino_audit_export as verifier

from .conftest import Svc
from .test_export import (
    ALONE_ENV,
    PINNED,
    SIGNING_KEY,
    TAMPERINGS,
    copied_alone,
    exported,
    first,
    join,
    play,
    split,
)

TIMING = ("seconds", "rounds_per_second")  # the only fields that differ from run to run


def result(summary: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in summary.items() if name not in TIMING}


@pytest.fixture
def workers_started(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many workers each parallel reading started."""
    started: list[int] = []
    start = verifier._start_workers

    def counting(jobs: int, revealed: dict[str, bytes]) -> list[tuple[Any, Any]]:
        workers = start(jobs, revealed)
        started.append(len(workers))
        return workers

    monkeypatch.setattr(verifier, "_start_workers", counting)
    return started


def both_ways(data: bytes, started: list[int], jobs: int = 2) -> dict[str, Any]:
    """The summary of ``data`` read alone and by ``jobs`` workers (blocks of ~600 bytes: a
    line or two each), after checking that they are the same."""
    lines = data.splitlines(keepends=True)
    # ``play`` leaves its last transactions unsealed, as a live ledger has them.
    alone = verifier.verify(lines, PINNED, allow_unsealed=True)
    before = len(started)
    parallel = verifier.verify(lines, PINNED, jobs=jobs, block_size=600, allow_unsealed=True)
    assert started[before:] == [jobs], "the parallel run did not start its workers"
    assert result(parallel) == result(alone)
    return alone


def _drop(documents: list[dict[str, Any]], kind: str) -> None:
    del documents[first(documents, kind, lambda d: d.get("server_seed", "") is not None)]


def _swap_transactions(documents: list[dict[str, Any]]) -> None:
    n = first(documents, "transaction", lambda d: True)
    m = next(i for i in range(n + 1, len(documents)) if documents[i]["type"] == "transaction")
    documents[n], documents[m] = documents[m], documents[n]


def test_a_clean_export_reads_the_same_in_parallel(
    svc: Svc, demo_tables: list[str], workers_started: list[int]
) -> None:
    ledger = play(svc)
    summary = both_ways(exported(svc), workers_started, jobs=3)
    assert summary["ok"] and summary["rounds"]["redealt"] == 4
    assert ledger.open_round in summary["unchecked_rounds"]
    partial = both_ways(exported(svc, since=ledger.inside), workers_started)
    assert partial["ok"] and partial["scope"] == "partial" and partial["counts"]["leaf"] > 0


EDITS: dict[str, Callable[[list[dict[str, Any]]], None]] = {
    "dropped transaction": lambda documents: _drop(documents, "transaction"),
    "dropped round": lambda documents: _drop(documents, "round"),
    "dropped seed": lambda documents: _drop(documents, "seed"),
    "dropped checkpoint": lambda documents: _drop(documents, "checkpoint"),
    "reordered lines": _swap_transactions,
}


@pytest.mark.parametrize("rechain", [False, True], ids=["digests-kept", "digests-redone"])
@pytest.mark.parametrize("what", [*sorted(TAMPERINGS), *EDITS])
def test_a_tampered_export_reads_the_same_in_parallel(
    svc: Svc, demo_tables: list[str], workers_started: list[int], what: str, rechain: bool
) -> None:
    ledger = play(svc)
    documents = split(exported(svc))
    if what in TAMPERINGS:
        TAMPERINGS[what][0](documents, ledger)
    else:
        EDITS[what](documents)
    summary = both_ways(join(documents, rechain=rechain), workers_started)
    assert not summary["ok"]
    # The problems are named with their line numbers, identically both ways.
    examples = [example for check in summary["checks"] for example in check["examples"]]
    assert any(example.startswith("line ") for example in examples), examples


def test_a_seed_after_the_rounds_is_used_both_ways(
    svc: Svc, demo_tables: list[str], workers_started: list[int]
) -> None:
    """A revealed seed moved after the first round: the workers were given the seeds known
    before the rounds, yet the rounds after it are re-dealt with it, so an edited card of
    one of them is caught (and the move itself)."""
    play(svc)
    documents = split(exported(svc))
    seed = documents.pop(first(documents, "seed", lambda d: d["server_seed"] is not None))
    documents.insert(first(documents, "round", lambda d: True) + 1, seed)
    commitment = seed["server_seed_hash"]
    edited = first(
        documents,
        "round",
        lambda d: (
            d["fairness"]["server_seed_hash"] == commitment
            and documents.index(d) > documents.index(seed)
        ),
    )
    card = documents[edited]["player_card"]
    documents[edited]["player_card"] = "AS" if card != "AS" else "KS"
    summary = both_ways(join(documents, rechain=True), workers_started)
    checks = {check["name"]: check for check in summary["checks"]}
    assert not checks["format"]["ok"]  # a seed line in the round section
    shown = [e for e in checks["rounds"]["examples"] if "but its seeds deal" in e]
    assert shown and shown[0].startswith(f"line {edited + 1}: "), checks["rounds"]["examples"]


def test_the_portable_start_method_gives_the_same(
    svc: Svc, demo_tables: list[str], workers_started: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where fork is not used (macOS, Windows), workers are spawned: fresh interpreters that
    import the verifier and are handed the revealed seeds."""
    ledger = play(svc)
    monkeypatch.setattr(verifier, "START_METHOD", "spawn")
    assert both_ways(exported(svc), workers_started)["ok"]
    documents = split(exported(svc))
    TAMPERINGS["card"][0](documents, ledger)
    assert not both_ways(join(documents, rechain=True), workers_started)["ok"]


def test_the_file_alone_gives_the_same_with_jobs(
    svc: Svc, demo_tables: list[str], tmp_path: Path
) -> None:
    """Copied alone and run with no site-packages (``-I -S``): ``--jobs 2`` (the workers
    given small blocks) prints the summary ``--jobs 1`` prints, on a clean and a tampered
    export."""
    ledger = play(svc)
    documents = split(exported(svc))
    alone = copied_alone(tmp_path, documents)
    TAMPERINGS["seed"][0](documents, ledger)
    (alone / "tampered.ndjson").write_bytes(join(documents, rechain=True))
    key = SIGNING_KEY.verifying.hex

    def run(name: str, *jobs: str) -> tuple[int, dict[str, Any]]:
        command = [sys.executable, "-I", "-S", "casino_audit_export.py", name, "--json"]
        done = subprocess.run(
            [*command, "--key", key, "--allow-unsealed", *jobs],
            cwd=alone,
            env=ALONE_ENV,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert not done.stderr, done.stderr
        return done.returncode, result(json.loads(done.stdout))

    for name, status in (("export.ndjson", 0), ("tampered.ndjson", 1)):
        sequential = run(name, "--jobs", "1")
        assert sequential[0] == status
        assert run(name, "--jobs", "2", "--block-size", "500") == sequential
