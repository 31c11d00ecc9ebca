"""Issue 19, points 1 and 4: the verifier refuses what it cannot vouch for.

On exports of a ledger played on SQLite and on PostgreSQL: transactions no signed checkpoint
covers fail the check unless ``--allow-unsealed`` (and are counted either way); an export
with its checkpoints removed, one cut back to an older checkpoint and one whose tail is
sealed again under another key are each caught by the default, by a pinned key or by a
pinned checkpoint (``--pin``, ``--pin-file``); a retired key is trusted only for the
checkpoints of its range (``KEY@FIRST-LAST``), by the verifier and by ``casino audit``.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from casino.audit_export import casino_audit_export as verifier
from casino.cli import main as casino_cli
from casino.ledger.checkpoints import SigningKey, TrustedKey, checkpoint_hash
from casino.service import wallets
from casino.service.export import export
from casino.service.sealing import seal_pending

from .conftest import SIGNING_KEY, Svc
from .test_export import check, exported, failed, join, play, split

KEY = SIGNING_KEY.verifying.hex


def strict(data: bytes, **options: Any) -> dict[str, Any]:
    """The verifier as an auditor runs it by default: unsealed transactions refused."""
    return check(data, allow_unsealed=False, **options)


def without(documents: list[dict[str, Any]], kind: str, keep: int = 0) -> bytes:
    """The export without its lines of ``kind`` after the first ``keep`` of them, every
    digest and the trailer redone (what a tamperer who knows the format would send)."""
    kept, seen = [], 0
    for document in documents:
        if document["type"] == kind:
            seen += 1
            if seen > keep:
                continue
        kept.append(document)
    return join(kept, rechain=True)


def checkpoints_of(documents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [d for d in documents if d["type"] == "checkpoint"]


def resealed(documents: list[dict[str, Any]], first: int, forger: SigningKey) -> bytes:
    """Checkpoints ``first`` on made again and signed by ``forger`` (a moment later, so with
    new hashes), their chain relinked; the header names the forger's key beside the
    casino's: consistent in every way the export itself can show."""
    documents = json.loads(json.dumps(documents))
    prev = None
    for document in documents:
        if document["type"] != "checkpoint":
            continue
        if document["seq"] < first:
            prev = document["hash"]
            continue
        body = {name: document[name] for name in verifier.CHECKPOINT_FIELDS}
        body["created_at"] = datetime.fromisoformat("2031-01-01T00:00:00+00:00")
        body["prev_hash"] = prev
        digest = checkpoint_hash(**body)
        document.update(
            created_at="2031-01-01T00:00:00.000000+00:00",
            prev_hash=prev,
            hash=digest,
            key_id=forger.key_id,
            signature=forger.sign(digest),
        )
        prev = digest
    header = documents[0]
    if all(entry["key_id"] != forger.key_id for entry in header["keys"]):
        forger_entry = {"key_id": forger.key_id, "public_key": forger.verifying.hex}
        header["keys"] = [*header["keys"], forger_entry]
    return join(documents, rechain=True)


# ---------------------------------------------------------------- unsealed transactions


def test_an_export_with_no_checkpoint_at_all_is_refused(svc: Svc) -> None:
    """The review's case: one deposit, no checkpoint, the real key pinned. It used to print
    'all checks passed'."""
    svc.player(funds=5_000)
    data = exported(svc)
    summary = strict(data)
    assert not summary["ok"] and failed(summary) == {"sealed"}
    assert summary["transactions"] == {"sealed": 0, "unsealed": 1}
    sealed = next(c for c in summary["checks"] if c["name"] == "sealed")
    assert "1 transaction(s) are covered by no signed checkpoint" in sealed["examples"][0]
    allowed = check(data)
    assert allowed["ok"] and allowed["transactions"] == {"sealed": 0, "unsealed": 1}
    assert "(allowed: --allow-unsealed)" in next(
        c["detail"] for c in allowed["checks"] if c["name"] == "sealed"
    )
    svc.seal()
    sealed_now = strict(exported(svc))
    assert sealed_now["ok"] and sealed_now["transactions"] == {"sealed": 1, "unsealed": 0}


def test_an_export_with_its_checkpoints_removed_is_refused(
    svc: Svc, demo_tables: list[str]
) -> None:
    play(svc)
    documents = split(exported(svc))
    stripped = without(documents, "checkpoint")
    summary = strict(stripped)
    assert failed(summary) == {"sealed"}
    assert summary["transactions"]["sealed"] == 0
    assert summary["transactions"]["unsealed"] == summary["counts"]["transaction"]
    # Any checkpoint the auditor knows betrays it even where unsealed ones are allowed.
    last = checkpoints_of(documents)[-1]
    pinned = check(stripped, pins={last["seq"]: last["hash"]})
    assert failed(pinned) == {"pinned"}
    problem = next(c for c in pinned["checks"] if c["name"] == "pinned")["examples"][0]
    assert "is pinned but not in the export: the export has no checkpoint at all" in problem


def test_an_export_cut_back_to_an_older_checkpoint_is_refused(
    svc: Svc, demo_tables: list[str]
) -> None:
    """Everything after checkpoint 1 presented as not sealed yet: what an export made right
    after checkpoint 1 would look like, but for the number of unsealed transactions."""
    play(svc)
    documents = split(exported(svc))
    genuine = strict(join(documents, rechain=True), pins=None)
    cut = without(documents, "checkpoint", keep=1)
    summary = strict(cut)
    assert failed(summary) == {"sealed"}
    assert summary["transactions"]["unsealed"] > genuine["transactions"]["unsealed"] == 3
    assert check(cut)["ok"]  # consistent, when unsealed ones are allowed ...
    listed = {c["seq"]: c["hash"] for c in checkpoints_of(documents)}
    assert check(join(documents, rechain=True), pins=listed)["ok"]
    pinned = check(cut, pins=listed)  # ... but not with the checkpoints the auditor saw
    assert failed(pinned) == {"pinned"}
    examples = next(c for c in pinned["checks"] if c["name"] == "pinned")["examples"]
    assert examples == [
        "checkpoint 2 is pinned but not in the export: the export's checkpoints end at 1",
        "checkpoint 3 is pinned but not in the export: the export's checkpoints end at 1",
    ]


def test_a_tail_sealed_again_under_another_key_is_refused(svc: Svc, demo_tables: list[str]) -> None:
    play(svc)
    documents = split(exported(svc))
    original = checkpoints_of(documents)
    forger = SigningKey.parse("99" * 32)
    forged = resealed(documents, 2, forger)
    # The export's own keys vouch for it: only something from outside the export helps.
    assert check(forged, [])["ok"]
    by_key = check(forged)  # the casino's key pinned
    assert failed(by_key) == {"checkpoints"}
    assert any("untrusted key" in e for c in by_key["checks"] for e in c["examples"])
    # A checkpoint pinned earlier catches it even without the key, and so does the saved
    # list of every checkpoint.
    pins = {original[1]["seq"]: original[1]["hash"]}
    assert failed(check(forged, [], pins=pins)) == {"pinned"}
    assert failed(check(forged, [], pins={c["seq"]: c["hash"] for c in original})) == {"pinned"}
    assert check(forged, [], pins={1: original[0]["hash"]})["ok"]  # before the forgery


def test_pins_of_a_partial_export(svc: Svc, demo_tables: list[str]) -> None:
    """A partial export holds the checkpoints sealing its range and the one before (its
    anchor): pins of those hold; a pin before the anchor cannot be checked, and fails."""
    ledger = play(svc)
    documents = split(exported(svc))
    listed = {c["seq"]: c["hash"] for c in checkpoints_of(documents)}
    partial = exported(svc, since=ledger.middle, until=ledger.late)  # exactly checkpoint 3
    assert strict(partial, pins={2: listed[2], 3: listed[3]})["ok"]  # anchor and its own
    before = strict(partial, pins={1: listed[1]})
    assert failed(before) == {"pinned"}
    assert "lies before this partial export's anchor" in str(before["checks"])
    assert failed(strict(partial, pins={3: listed[2]})) == {"pinned"}  # another hash


# ---------------------------------------------------------------- the command line


def test_the_command_line_options(svc: Svc, demo_tables: list[str], tmp_path: Path) -> None:
    """``--allow-unsealed``, ``--pin SEQ:HASH``, ``--pin-file`` (the JSON of
    GET /api/v1/ledger/checkpoints), in the file run alone and in ``casino verify-export``."""
    play(svc)
    documents = split(exported(svc))
    listed = checkpoints_of(documents)
    export_file = tmp_path / "export.ndjson"
    export_file.write_bytes(join(documents, rechain=False))
    cut_file = tmp_path / "cut.ndjson"
    cut_file.write_bytes(without(documents, "checkpoint", keep=2))
    saved = tmp_path / "checkpoints.json"
    saved.write_text(json.dumps([{k: v for k, v in c.items() if k not in ("type", "prev")}
                                 for c in listed]))  # fmt: skip
    last = f"{listed[-1]['seq']}:{listed[-1]['hash']}"
    runner = CliRunner()

    def status(*args: str) -> int:
        direct = verifier.main([*args, "--jobs", "1"])
        assert runner.invoke(casino_cli, ["verify-export", *args]).exit_code == direct
        return direct

    assert status(str(export_file), "--key", KEY) == 1  # three transactions not sealed yet
    assert status(str(export_file), "--key", KEY, "--allow-unsealed") == 0
    assert status(str(export_file), "--key", KEY, "--allow-unsealed", "--pin", last) == 0
    assert status(str(export_file), "--key", KEY, "--allow-unsealed", "--pin-file", str(saved)) == 0
    assert status(str(cut_file), "--key", KEY, "--allow-unsealed") == 0
    assert status(str(cut_file), "--key", KEY, "--allow-unsealed", "--pin", last) == 1
    assert status(str(cut_file), "--key", KEY, "--allow-unsealed", "--pin-file", str(saved)) == 1
    wrong = f"{listed[0]['seq']}:{listed[1]['hash']}"
    assert status(str(export_file), "--key", KEY, "--allow-unsealed", "--pin", wrong) == 1
    for bad in ("3", "x:" + "0" * 64, "3:abc"):
        assert status(str(export_file), "--pin", bad) == 2
    (tmp_path / "junk.json").write_text('{"checkpoints": 3}')
    assert status(str(export_file), "--pin-file", str(tmp_path / "junk.json")) == 2
    shown = runner.invoke(casino_cli, ["verify-export", str(export_file), "--key", KEY])
    assert "transactions sealed: 18, not sealed: 3" in shown.output
    assert "[FAIL] sealed" in shown.output


# ---------------------------------------------------------------- keys with a range

OLD = SigningKey.parse("55" * 32)
OLD_HEX = OLD.verifying.hex


def _two_keys(svc: Svc) -> None:
    """Checkpoints 1 and 2 signed by OLD, then the key rotated: 3 signed by SIGNING_KEY."""
    for n in range(3):
        player = svc.player(funds=1_000 + n)
        with svc.uow() as uow:
            key = OLD if n < 2 else SIGNING_KEY
            assert len(seal_pending(uow, key, trusted=[OLD.verifying])) == 1
            uow.commit()
        svc.run(wallets.withdraw, player, "EUR", 1, "a little")
    with svc.uow() as uow:  # the withdrawals: checkpoint 4, by the current key
        assert len(seal_pending(uow, SIGNING_KEY, trusted=[OLD.verifying])) == 1
        uow.commit()


def test_a_retired_key_is_trusted_only_for_its_range(svc: Svc, tmp_path: Path) -> None:
    _two_keys(svc)
    with svc.uow() as uow:
        keys = [SIGNING_KEY.verifying, TrustedKey.parse(f"{OLD.verifying.hex}@1-2")]
        data = b"".join(export(uow, since=None, until=None, keys=keys))
    documents = split(data)
    assert [c["key_id"] for c in checkpoints_of(documents)] == [OLD.key_id] * 2 + [
        SIGNING_KEY.key_id
    ] * 2
    assert documents[0]["keys"][1] == {
        "key_id": OLD.key_id,
        "public_key": OLD.verifying.hex,
        "first": 1,
        "last": 2,
    }
    old, new = OLD.verifying.raw, SIGNING_KEY.verifying.raw
    assert strict(data, keys=[verifier.Trusted(old, 1, 2), new])["ok"]
    assert strict(data, keys=[old, new])["ok"]  # a key without a range: any checkpoint
    too_short = strict(data, keys=[verifier.Trusted(old, 1, 1), new])
    assert failed(too_short) == {"checkpoints"}
    outside = f"checkpoint 2 is signed by key {OLD.key_id}, trusted only for checkpoints 1 to 1"
    assert outside in str(too_short["checks"])
    assert strict(data, keys=[])["ok"]  # the header's own ranges, as the casino states them
    # Signed by the old key after its time (it leaked): refused by the pinned range, and by
    # the header's while the header keeps it.
    forged = resealed(documents, 4, OLD)
    assert failed(strict(forged, keys=[verifier.Trusted(old, 1, 2), new])) == {"checkpoints"}
    assert failed(strict(forged, keys=[])) == {"checkpoints"}
    file = tmp_path / "ranged.ndjson"
    file.write_bytes(data)
    assert verifier.main([str(file), "--key", f"{OLD.verifying.hex}@1-2", "--key", KEY]) == 0
    assert verifier.main([str(file), "--key", f"{OLD.verifying.hex}@3-", "--key", KEY]) == 1
    assert verifier.main([str(file), "--key", f"{OLD.verifying.hex}@2-1"]) == 2


def test_the_audit_refuses_a_retired_key_outside_its_range(
    svc: Svc, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from casino.service.audit import run_audit

    _two_keys(svc)
    with svc.uow() as uow:
        good = run_audit(uow, [SIGNING_KEY.verifying, TrustedKey.parse(f"{OLD_HEX}@1-2")])
    assert good.ok
    with svc.uow() as uow:
        short = run_audit(
            uow, [SIGNING_KEY.verifying, TrustedKey.parse(f"{OLD.verifying.hex}@1-1")]
        )
    checkpoints = next(c for c in short.checks if c.name == "checkpoints")
    assert not short.ok and not checkpoints.ok
    assert "trusted only for checkpoints 1 to 1" in checkpoints.detail
    monkeypatch.setenv("CASINO_ENV", "testing")
    monkeypatch.setenv("CASINO_SIGNING_KEY", SIGNING_KEY.private_hex())
    runner = CliRunner()
    for trusted, status in ((f"{OLD.verifying.hex}@1-2", 0), (f"{OLD.verifying.hex}@2-", 1)):
        monkeypatch.setenv("CASINO_TRUSTED_SIGNING_KEYS", trusted)
        result = runner.invoke(casino_cli, ["audit", "--database-url", db_url])
        assert result.exit_code == status, result.output
    monkeypatch.setenv("CASINO_TRUSTED_SIGNING_KEYS", f"{OLD.verifying.hex}@two-three")
    refused = runner.invoke(casino_cli, ["audit", "--database-url", db_url])
    assert refused.exit_code == 1 and "CASINO_TRUSTED_SIGNING_KEYS" in refused.output
