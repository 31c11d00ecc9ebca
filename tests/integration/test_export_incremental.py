"""Issue 24, item 6: a daily audit costs a day.

The verifier saves its state at the last checkpoint it verified (``--state FILE``); the next
run reads only ``casino export --from-checkpoint N`` and checks it against that state. The
state a run of the whole ledger saves and the one a run of the new part saves are the same,
to the last field: the incremental run knows everything the full one knows. Tampering in the
new part is caught; a state that does not belong to the export, or to the checkpoints
pinned, is refused (exit status 2); an edited state file is refused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import text

from casino.audit_export import casino_audit_export as verifier
from casino.cli import main as casino_cli
from casino.service import rounds, wallets
from casino.service.export import export
from casino.store.export_plan import NoSuchCheckpoint

from .conftest import SIGNING_KEY, Svc, is_tie
from .test_export import (
    ALONE_ENV,
    KEYS,
    PINNED,
    VERIFIER_FILE,
    _bet,
    failed,
    join,
    loses,
    play,
    split,
    wins,
)


def exported_from(svc: Svc, checkpoint: int | None) -> bytes:
    with svc.uow() as uow:
        return b"".join(
            export(uow, since=None, until=None, keys=KEYS, chunk=512, from_checkpoint=checkpoint)
        )


def run(
    data: bytes, state: dict[str, Any] | None, pins: dict[int, str] | None = None
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    return verifier.verify_continuing(
        data.splitlines(keepends=True), PINNED, state, allow_unsealed=True, pins=pins
    )


def first_day(svc: Svc) -> tuple[str, list[str]]:
    """``play``, its open round sealed while it awaits its decision, one bet after the last
    checkpoint (read again with the next part)."""
    ledger = play(svc)
    svc.seal()
    _bet(svc, ledger.players[0], wins)
    return ledger.open_round, ledger.players


def second_day(svc: Svc, open_round: str, players: list[str]) -> None:
    """The open round decided (placed before the checkpoint, settled after), more play, a
    withdrawal, a new checkpoint, and a few transactions left unsealed again."""
    a, b, c = players
    svc.run(rounds.decide, open_round, "war", player_id=c)
    _bet(svc, a, wins)
    _bet(svc, b, is_tie, decision="surrender")
    svc.run(wallets.withdraw, a, "EUR", 1_000, "cash out")
    svc.seal()
    _bet(svc, b, loses)
    _bet(svc, c, is_tie)  # awaiting, unsealed


def comparable(state: dict[str, Any]) -> dict[str, Any]:
    """A state without what depends on how it was reached (the totals, its digest)."""
    return {k: v for k, v in state.items() if k not in ("totals", "digest")}


@pytest.fixture
def two_days(svc: Svc, demo_tables: list[str]) -> tuple[Svc, dict[str, Any], bytes, bytes]:
    """Day one verified in full (its state saved); day two exported from its checkpoint."""
    open_round, players = first_day(svc)
    day_one, state = run(exported_from(svc, None), None)
    assert day_one["ok"], day_one
    assert state is not None and list(state["rounds"]) == [open_round]  # carried, open
    second_day(svc, open_round, players)
    return svc, state, exported_from(svc, state["checkpoint"]["seq"]), exported_from(svc, None)


def test_the_new_part_alone_verifies_as_the_whole_ledger_does(
    two_days: tuple[Svc, dict[str, Any], bytes, bytes],
) -> None:
    _, state, new_part, whole = two_days
    documents = split(new_part)
    assert documents[0]["from_checkpoint"] == state["checkpoint"]["seq"]
    assert documents[0]["scope"] == "partial"
    # The round placed before the checkpoint and decided after comes again, as it is now.
    open_id = next(iter(state["rounds"]))
    assert any(d["type"] == "round" and d["id"] == open_id for d in documents)
    incremental, after_incremental = run(new_part, state)
    full, after_full = run(whole, None)
    assert incremental["ok"], verifier.format_summary(incremental)
    assert full["ok"], verifier.format_summary(full)
    assert incremental["incremental"]["from_checkpoint"] == state["checkpoint"]["seq"]
    # Everything checked in full is checked in the part: in play, every round's money.
    in_play = next(c for c in incremental["checks"] if c["name"] == "in_play")
    assert in_play["detail"].startswith("in play = the antes of open rounds")
    assert incremental["rounds"]["money_outside_range"] == 0
    assert incremental["counts"]["transaction"] < full["counts"]["transaction"]
    assert after_incremental is not None and after_full is not None
    assert comparable(after_incremental) == comparable(after_full)
    assert after_incremental["totals"] == after_full["totals"]
    # Read alone (no state), the same part is only self-consistent: what lies before is
    # unknown, so it cannot check the money in play.
    alone, _ = run(new_part, None)
    assert alone["ok"]
    assert next(c for c in alone["checks"] if c["name"] == "in_play")["detail"].startswith("not")


def _first(documents: list[dict[str, Any]], line_type: str, **where: Any) -> dict[str, Any]:
    return next(
        d
        for d in documents
        if d["type"] == line_type and all(d.get(k) == v for k, v in where.items())
    )


def test_tampering_in_the_new_part_is_caught(
    two_days: tuple[Svc, dict[str, Any], bytes, bytes],
) -> None:
    _, state, new_part, _ = two_days
    documents = split(new_part)

    # An amount changed (every digest redone, as a tamperer who knows the format would).
    edited = json.loads(json.dumps(documents))
    tx = _first(edited, "transaction", kind="withdrawal")
    tx["postings"] = [[leg, key, amount * 2] for leg, key, amount in tx["postings"]]
    tx["wallet_balance_after"] -= 1_000
    summary, saved = run(join(edited, rechain=True), state)
    assert not summary["ok"] and saved is None
    assert {"wallet_chains", "checkpoints"} <= failed(summary)

    # A wallet made to open elsewhere than where the verified chain ended, the rest of the
    # export made consistent with it: the state says where it ends.
    edited = json.loads(json.dumps(documents))
    account = next(a for a in edited if a["type"] == "account" and a["opening"] is not None)
    account["opening"] = {**account["opening"], "balance": account["opening"]["balance"] + 500}
    summary, _ = run(join(edited, rechain=True), state)
    assert "wallet_chains" in failed(summary)
    example = next(c for c in summary["checks"] if c["name"] == "wallet_chains")["examples"][0]
    assert "the state saved" in example

    # The decision of the round placed before the checkpoint dropped, with its round line:
    # the chain breaks, and the money in play no longer matches what is staked.
    open_id = next(iter(state["rounds"]))
    decision = _first(documents, "transaction", round_id=open_id)
    kept = [
        d
        for d in documents
        if d is not decision and not (d["type"] == "round" and d["id"] == open_id)
    ]
    summary, _ = run(join(kept, rechain=True), state)
    assert not summary["ok"]
    assert "wallet_chains" in failed(summary) or "checkpoints" in failed(summary)

    # A round of the new part whose nonce the state says was dealt already.
    edited = json.loads(json.dumps(documents))
    fresh = next(d for d in edited if d["type"] == "round" and d["id"] != open_id)
    seeds = state["seeds"]
    seed = seeds[fresh["fairness"]["server_seed_hash"]]
    dealt = bytes.fromhex(seed[2])
    used = next(i for i in range(len(dealt) * 8) if dealt[i // 8] >> (i % 8) & 1)
    fresh["fairness"]["nonce"] = seed[1] + used
    summary, _ = run(join(edited, rechain=True), state)
    assert "rounds" in failed(summary)


def test_a_state_that_does_not_belong_is_refused(
    two_days: tuple[Svc, dict[str, Any], bytes, bytes], tmp_path: Path
) -> None:
    svc, state, new_part, whole = two_days
    seq = state["checkpoint"]["seq"]
    # A pin the state's chain contradicts: another history than the one pinned.
    with pytest.raises(verifier.StateMismatch, match="not the history pinned"):
        run(new_part, state, pins={seq: "ab" * 32})
    # The export continues another checkpoint than the state's, or is not a part at all.
    with pytest.raises(verifier.StateMismatch, match=f"saved at checkpoint {seq}"):
        run(exported_from(svc, seq - 1), state)
    with pytest.raises(verifier.StateMismatch, match="not an export from a checkpoint"):
        run(whole, state)
    # A state whose checkpoint was swapped for another (the digest redone): the anchor
    # differs from it.
    forged = json.loads(json.dumps(state))
    forged["checkpoint"]["hash"] = "cd" * 32
    with pytest.raises(verifier.StateMismatch, match="the state was saved at checkpoint"):
        run(new_part, forged)
    # On the command line: refused with exit status 2, and an edited file too.
    path = tmp_path / "state.json"
    verifier.write_state(
        str(path), forged | {"digest": verifier.sha256_hex(verifier.canonical(forged))}
    )
    part = tmp_path / "part.ndjson"
    part.write_bytes(new_part)
    key = SIGNING_KEY.verifying.hex
    code = verifier.main([str(part), "--state", str(path), "--key", key, "--allow-unsealed"])
    assert code == verifier.EXIT_UNREADABLE
    edited = json.loads(path.read_text())
    edited["in_play"] = {"EUR": 1}
    path.write_text(json.dumps(edited))
    code = verifier.main([str(part), "--state", str(path), "--key", key, "--allow-unsealed"])
    assert code == verifier.EXIT_UNREADABLE
    with pytest.raises(NoSuchCheckpoint):
        exported_from(svc, 10_000)


def test_casino_export_from_a_checkpoint_and_the_verifier_alone_with_a_state(
    svc: Svc, demo_tables: list[str], db_url: str, tmp_path: Path
) -> None:
    """Two days through the commands: the verifier copied alone, run with -I -S."""
    open_round, players = first_day(svc)
    runner = CliRunner()
    env = {**os.environ, "CASINO_SIGNING_KEY": SIGNING_KEY.private_hex()}
    alone = tmp_path / "auditor"
    alone.mkdir()
    (alone / "casino_audit_export.py").write_bytes(VERIFIER_FILE.read_bytes())
    key = SIGNING_KEY.verifying.hex

    def verify_alone(export_file: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-I", "-S", "casino_audit_export.py", export_file.name, "--key",
             key, "--allow-unsealed", "--state", "state.json", "--jobs", "1"],
            cwd=alone, env=ALONE_ENV, capture_output=True, text=True, check=False,
        )  # fmt: skip

    day_one = alone / "day1.ndjson"
    result = runner.invoke(
        casino_cli, ["export", "--database-url", db_url, "-o", str(day_one)], env=env
    )
    assert result.exit_code == 0, result.output
    first = verify_alone(day_one)
    assert first.returncode == 0, first.stdout + first.stderr
    saved = json.loads((alone / "state.json").read_text())
    assert f"state saved at checkpoint {saved['checkpoint']['seq']}" in first.stdout
    second_day(svc, open_round, players)
    day_two = alone / "day2.ndjson"
    result = runner.invoke(
        casino_cli,
        ["export", "--database-url", db_url, "--from-checkpoint",
         str(saved["checkpoint"]["seq"]), "-o", str(day_two)],
        env=env,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    second = verify_alone(day_two)
    assert second.returncode == 0, second.stdout + second.stderr
    assert f"continued from the state saved at checkpoint {saved['checkpoint']['seq']}" in (
        second.stdout
    )
    # The same part again: the state has moved on to the new checkpoint, so it is refused.
    again = verify_alone(day_two)
    assert again.returncode == 2 and "refused" in again.stderr
    missing = runner.invoke(
        casino_cli,
        ["export", "--database-url", db_url, "--from-checkpoint", "999", "-o", "-"],
        env=env,
    )
    assert missing.exit_code != 0 and "no checkpoint 999" in missing.output


def test_casino_audit_continues_from_its_state(
    svc: Svc, demo_tables: list[str], db_url: str, tmp_path: Path
) -> None:
    open_round, players = first_day(svc)
    runner = CliRunner()
    env = {**os.environ, "CASINO_SIGNING_KEY": SIGNING_KEY.private_hex()}
    state = tmp_path / "audit-state.json"
    audit = ["audit", "--database-url", db_url, "--state", str(state)]
    first = runner.invoke(casino_cli, audit, env=env)
    assert first.exit_code == 0, first.output
    seq = json.loads(state.read_text())["checkpoint"]["seq"]
    assert f"state saved at checkpoint {seq}" in first.output
    second_day(svc, open_round, players)
    wrong = runner.invoke(casino_cli, [*audit, "--from-checkpoint", str(seq + 1)], env=env)
    assert wrong.exit_code == 1 and "refused" in wrong.output
    second = runner.invoke(casino_cli, [*audit, "--from-checkpoint", str(seq), "--json"], env=env)
    assert second.exit_code == 0, second.output
    summary = json.loads(second.output)
    assert summary["ok"] and summary["incremental"]["from_checkpoint"] == seq
    assert summary["state_saved"]["checkpoint"] == seq + 1
    # Tampering with the books themselves (a settled amount) is caught by the next run.
    with svc.factory() as session:
        session.execute(
            text("UPDATE ledger_transactions SET wallet_balance_after = wallet_balance_after + 1 "
                 "WHERE id = (SELECT max(id) FROM ledger_transactions)")
        )  # fmt: skip
        session.commit()
    third = runner.invoke(casino_cli, audit, env=env)
    assert third.exit_code == 1, third.output
    assert json.loads(state.read_text())["checkpoint"]["seq"] == seq + 1  # not moved on
