"""Issue 22 in the export: a shared table's shoes and bets are exported, and the standalone
verifier re-derives each revealed shoe from its seed (checked against the chain's published
commitment), re-deals every round and re-settles every bet (ties, wars, surrenders by the
player and by the clock), checks each bet's wallet transactions (a voided round's refund
too), and counts the bets of a shoe not revealed yet as not verifiable. Tampering with a
bet's payout or decision, a shoe's seed or what fixes its cards is caught. Also as a
separate ``python -I -S`` process. On SQLite and PostgreSQL."""

from __future__ import annotations

import contextlib
import hashlib
import json
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from casino.audit_export import casino_audit_export as verifier
from casino.engine.casino_war import TableRules
from casino.engine.errors import IllegalAction
from casino.engine.shared import HashChain, SharedShoe
from casino.service import tables
from casino.service.errors import Conflict
from casino.service.export import export
from casino.service.shared import bets as shared_bets
from casino.service.shared.dealer import VOID_AFTER, advance
from casino.service.shared.tables import CHAIN_LENGTH
from casino.store.shared_models import SharedTable
from casino.store.uow import UnitOfWork

from .conftest import SIGNING_KEY, Svc

KEYS = [SIGNING_KEY.verifying]
RULES = TableRules(decks=1, min_ante=10, bet_increment=10, decision_seconds=10)


class Table:
    """One shared table driven by the test's clock: the dealer's steps, bets, decisions."""

    def __init__(self, svc: Svc) -> None:
        self.svc = svc
        self.now = datetime.now(UTC)

    def uow(self) -> UnitOfWork:
        return UnitOfWork(self.svc.factory, clock=lambda: self.now, operator=self.svc.operator)

    def run(self, use_case: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        with self.uow() as uow:
            result = use_case(uow, *args, **kwargs)
            uow.commit()
            return result

    def deal(self) -> dict[str, Any]:
        """Every dealer step due now; the round's state after them."""
        for _ in range(200):
            with self.uow() as uow:
                if advance(uow, "live").idle:
                    break
                uow.commit()
        with self.uow() as uow:
            record = uow.shared.get("live")
            assert record is not None and record.state is not None
            return dict(record.state)


def choose_chain(svc: Svc) -> None:
    """A chain whose first shoe ties at least three times (the test's choice of secret)."""
    with svc.uow() as uow:
        record = uow.shared.get("live")
        assert record is not None
        value = record.public_value["value"]
    for n in range(2000):
        chain = HashChain(hashlib.sha256(f"export {n}".encode()).digest(), CHAIN_LENGTH)
        shoe = SharedShoe.deal(chain.seed(1), value, 1, RULES)
        if sum(r.is_tie for r in shoe.rounds) >= 3:
            break
    with svc.factory() as session:
        session.execute(
            update(SharedTable)
            .where(SharedTable.table_id == "live")
            .values(chain_secret=chain.secret, chain_commitment=chain.commitment.hex())
        )
        session.commit()


class Game:
    """Three bettors every round: one goes to war on ties, one surrenders, one lets the
    clock surrender for them. Shoe 2's first round is voided (no dealer for too long)."""

    def __init__(self, svc: Svc) -> None:
        svc.run(tables.create_table, "live", "EUR", RULES, mode="shared",
                clock={"betting_seconds": 10, "pause_seconds": 2})  # fmt: skip
        choose_chain(svc)
        self.svc = svc
        self.players = {name: svc.player(funds=100_000) for name in ("war", "surrender", "clock")}
        self.table = Table(svc)
        self.placed: set[tuple[int, int]] = set()

    def until(self, stop: tuple[int, int]) -> None:
        """Play up to the betting window of round ``stop`` (shoe, round), then seal."""
        table, players = self.table, self.players
        for _ in range(2000):
            state = table.deal()
            where = (state["shoe"], state["round"])
            if where == stop:
                break
            if state["phase"] == "betting" and where not in self.placed:
                self.placed.add(where)
                table.run(shared_bets.place_bet, players["war"], "live", 100, 10)
                table.run(shared_bets.place_bet, players["surrender"], "live", 200)
                table.run(shared_bets.place_bet, players["clock"], "live", 50, 20)
                if where == (2, 1):
                    table.now += VOID_AFTER + timedelta(seconds=30)  # no dealer for too long
                    continue
            if state["phase"] == "decisions":
                for name, action in (("war", "war"), ("surrender", "surrender")):
                    with contextlib.suppress(Conflict, IllegalAction):  # no tie, or decided
                        table.run(shared_bets.decide, players[name], "live", action)
            table.now += timedelta(seconds=3)
        else:
            raise AssertionError(f"the table never reached {stop}")
        self.svc.seal()


def play(svc: Svc) -> dict[str, str]:
    """Shoe 1 played to its end (revealed), shoe 2's first round voided, its second round
    settled (its shoe not revealed yet)."""
    game = Game(svc)
    game.until((2, 3))
    return game.players


def exported(svc: Svc, **kwargs: Any) -> bytes:
    with svc.uow() as uow:
        return b"".join(export(uow, since=None, until=None, keys=KEYS, chunk=512, **kwargs))


def check(data: bytes) -> dict[str, Any]:
    return verifier.verify(
        data.splitlines(keepends=True), [SIGNING_KEY.verifying.raw], allow_unsealed=True
    )


def failed(summary: dict[str, Any]) -> set[str]:
    return {c["name"] for c in summary["checks"] if not c["ok"]}


def rewrite(
    data: bytes, pick: Callable[[dict[str, Any]], bool], edit: Callable[..., None]
) -> bytes:
    """The export with the first line ``pick`` chooses edited (digests left as they are:
    the verifier's own recomputation must catch it, whatever the chain of lines says)."""
    lines, done = [], False
    for raw in data.splitlines(keepends=True):
        doc = json.loads(raw)
        if not done and pick(doc):
            edit(doc)
            done = True
            raw = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode() + b"\n"
        lines.append(raw)
    assert done
    return b"".join(lines)


@pytest.fixture
def played(svc: Svc) -> tuple[bytes, dict[str, str]]:
    players = play(svc)
    return exported(svc), players


def test_a_clean_export_re_deals_every_shared_round(
    svc: Svc, played: tuple[bytes, dict[str, str]], tmp_path: Path
) -> None:
    data, _players = played
    summary = check(data)
    assert summary["ok"], [c for c in summary["checks"] if not c["ok"]]
    lines = [json.loads(raw) for raw in data.splitlines()]
    bets = [doc for doc in lines if doc["type"] == "shared_bet"]
    shoes = [doc for doc in lines if doc["type"] == "shoe"]
    assert [(s["shoe"], s["seed"] is not None) for s in shoes] == [(1, True), (2, False)]
    first = [b for b in bets if b["shoe"] == 1]
    decisions = {(b["decision"], b["decided_by"]) for b in first}
    assert {("war", "player"), ("surrender", "player"), ("surrender", "timeout")} <= decisions
    shared = summary["shared"]
    assert shared["shoes_revealed"] == 1 and shared["shoes_unrevealed"] == 1
    assert shared["redealt"] == len(first) and shared["bets"] == len(bets)
    assert shared["refunded"] == 3 and shared["not_verifiable"] == 3  # shoe 2: void, then one
    assert shared["money_matched"] == len(bets)
    # The standalone file alone, isolated from the project and site packages.
    path = tmp_path / "export.ndjson"
    path.write_bytes(data)
    alone = subprocess.run(
        [sys.executable, "-I", "-S", verifier.__file__, str(path), "--allow-unsealed", "--json",
         "--key", SIGNING_KEY.verifying.raw.hex(), "--jobs", "2"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert alone.returncode == 0, alone.stdout + alone.stderr
    assert json.loads(alone.stdout)["shared"] == shared
    # The service's own audit agrees.
    report = svc.audit()
    assert report.ok, [c for c in report.checks if not c.ok]


def _bet(decision: str | None, **where: Any) -> Callable[[dict[str, Any]], bool]:
    def pick(doc: dict[str, Any]) -> bool:
        return (
            doc["type"] == "shared_bet"
            and doc["shoe"] == 1
            and doc["status"] == "settled"
            and doc["decision"] == decision
            and all(doc[k] == v for k, v in where.items())
        )

    return pick


def _shoe(doc: dict[str, Any]) -> bool:
    return doc["type"] == "shoe" and doc["shoe"] == 1


def test_tampering_with_shared_bets_and_shoes_is_caught(
    played: tuple[bytes, dict[str, str]],
) -> None:
    data, _players = played

    def payout(doc: dict[str, Any]) -> None:
        doc["payouts"]["ante"] += 10
        doc["returned"] += 10
        doc["net"] += 10

    def decision(doc: dict[str, Any]) -> None:  # a surrender that went to war instead
        doc["decision"] = "war"

    def payout_alone(doc: dict[str, Any]) -> None:  # the record, not the money
        doc["payouts"]["tie_bet"] += 110

    def seed(doc: dict[str, Any]) -> None:
        doc["seed"] = hashlib.sha256(bytes.fromhex(doc["seed"])).hexdigest()

    def seed_and_commitment(doc: dict[str, Any]) -> None:  # consistent, not the chain's
        doc["seed"] = "11" * 32
        doc["commitment"] = hashlib.sha256(bytes.fromhex(doc["seed"])).hexdigest()

    def public_value(doc: dict[str, Any]) -> None:
        doc["public_value"]["value"] = "0" * 64

    def decks(doc: dict[str, Any]) -> None:
        doc["rules"]["decks"] = 2

    def shoe_index(doc: dict[str, Any]) -> None:
        doc["shoe"] = 3

    cases = [
        (_bet(None), payout),
        (_bet("surrender", decided_by="player"), decision),
        (_bet("war"), payout_alone),
        (_shoe, seed),
        (_shoe, seed_and_commitment),
        (_shoe, public_value),
        (_shoe, decks),
        (_shoe, shoe_index),
    ]
    for pick, edit in cases:
        summary = check(rewrite(data, pick, edit))
        assert "shared_rounds" in failed(summary), edit.__name__
    # A bet's line dropped: its transactions are left without their bet.
    lines = data.splitlines(keepends=True)
    dropped = next(i for i, raw in enumerate(lines) if b'"type":"shared_bet"' in raw)
    summary = check(b"".join(lines[:dropped] + lines[dropped + 1 :]))
    shared_check = next(c for c in summary["checks"] if c["name"] == "shared_rounds")
    assert any("belongs to no bet" in example for example in shared_check["examples"])


def test_a_partial_export_carries_the_bets_of_its_transactions(
    svc: Svc, played: tuple[bytes, dict[str, str]]
) -> None:
    """From the first checkpoint on: every shared bet with a transaction in the part comes
    with its shoe; the bets whose transactions lie partly before it are re-settled and
    counted as money outside the range."""
    data = exported(svc, from_checkpoint=1)
    summary = check(data)
    assert summary["ok"], [c for c in summary["checks"] if not c["ok"]]
    bets = [json.loads(r) for r in data.splitlines() if b'"type":"shared_bet"' in r]
    assert summary["shared"]["bets"] == len(bets) > 0


def test_a_shoe_revealed_after_the_saved_state_is_verified_in_the_next_part(svc: Svc) -> None:
    """An incremental audit: the bets of shoe 1's first rounds are verified (their money) in
    part one, when the shoe is not revealed yet; part two, from the checkpoint the state was
    saved at, reveals the shoe and re-deals them too."""
    game = Game(svc)
    game.until((1, 4))
    first, state = verifier.verify_continuing(
        exported(svc).splitlines(keepends=True), [SIGNING_KEY.verifying.raw], None,
        allow_unsealed=True,
    )  # fmt: skip
    assert first["ok"] and state is not None, verifier.format_summary(first)
    assert first["shared"]["not_verifiable"] == 9 and first["shared"]["redealt"] == 0
    assert first["shared"]["money_matched"] == 9
    game.until((2, 3))
    part = exported(svc, from_checkpoint=state["checkpoint"]["seq"])
    second, _ = verifier.verify_continuing(
        part.splitlines(keepends=True), [SIGNING_KEY.verifying.raw], state, allow_unsealed=True
    )
    assert second["ok"], verifier.format_summary(second)
    shared = second["shared"]
    whole = check(exported(svc))["shared"]
    assert shared["redealt"] == whole["redealt"] > 9  # the nine of part one among them
    assert shared["money_outside_range"] == 9  # their money was matched in part one
    assert shared["money_matched"] == whole["money_matched"] - 9
