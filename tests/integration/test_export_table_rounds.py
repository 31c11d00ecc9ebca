"""Issue 21 in the export: rounds of several hands, repeated wars with a ladder, war tie bets,
tie-only hands and clock-decided rounds exported and checked by the standalone verifier
(also as a separate ``python -I -S`` process); a changed hand, war card or war tie bet payout
is caught; the audit's replay agrees. On SQLite and PostgreSQL."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from casino.audit_export import casino_audit_export as verifier
from casino.engine.casino_war import HandBet, TableRound, TableRules
from casino.service import rounds, seeds, tables
from casino.service.export import export
from casino.store.uow import UnitOfWork

from .conftest import SIGNING_KEY, Svc, is_tie

KEYS = [SIGNING_KEY.verifying]
EVO = TableRules(
    decks=8,
    max_hands=3,
    war_ties="repeat",  # type: ignore[arg-type]
    tie_ladder=(10, 25, 50, 200),
    max_war_tie_bet=10_000,
    tie_only=True,
)


def steer(
    svc: Svc, player: str, bets: Sequence[HandBet], want: Callable[[TableRound], bool]
) -> None:
    server_seed, nonce = svc.active_seed(player)
    for i in range(200_000):
        client_seed = f"hands-{i}"
        if want(TableRound.deal(EVO, server_seed, client_seed, nonce, bets)):
            svc.run(seeds.set_client_seed, player, client_seed)
            return
    raise AssertionError("no client seed found")


def play(svc: Svc) -> list[str]:
    svc.run(tables.create_table, "evo", "EUR", EVO)
    player = svc.player(funds=1_000_000)
    three = [HandBet(1000, 100), HandBet(500, 0), HandBet(200, 0)]
    steer(svc, player, three, lambda g: g.awaiting == (0, 2))
    first = svc.run(rounds.place_bet, player, "evo", hands=three)
    svc.run(rounds.decide_hands, first.id, {0: ("war", 100), 2: ("surrender", 0)}, player_id=player)

    def ladder(game: TableRound) -> bool:
        if game.awaiting != (0,):
            return False
        game.decide(0, "war")
        return game.hands[0].result().ties >= 2

    one = [HandBet(1000, 100)]
    steer(svc, player, one, ladder)
    second = svc.run(rounds.place_bet, player, "evo", hands=one)
    svc.run(rounds.decide_hands, second.id, {0: ("war", 0)}, player_id=player, one_hand=True)
    svc.run(rounds.place_bet, player, "evo", hands=[HandBet(0, 200), HandBet(300, 0)])
    # A one-hand round at a table with a decision clock, decided by it.
    svc.run(tables.create_table, "timed", "EUR", TableRules(decision_seconds=5, tie_only=True))
    svc.steer(player, is_tie)
    timed = svc.run(rounds.place_bet, player, "timed", 200, 100)
    later = datetime.now(UTC) + timedelta(seconds=10)
    with UnitOfWork(svc.factory, clock=lambda: later, operator=svc.operator) as uow:
        (decided,) = rounds.time_out_due(uow)
        uow.commit()
    assert decided.id == timed.id and decided.decision["decided_by"] == "timeout"  # type: ignore[attr-defined]
    svc.steer(player, is_tie)
    svc.run(rounds.place_bet, player, "timed", 0, 100)  # a tie bet alone, on a tie
    svc.seal()
    svc.run(seeds.rotate_seed, player)  # these rounds become verifiable
    steer(svc, player, one, lambda g: g.awaiting == (0,))
    svc.run(rounds.place_bet, player, "evo", hands=one)  # left open: its ante is in play
    return [str(first.id), str(second.id)]  # type: ignore[attr-defined]


def exported(svc: Svc) -> bytes:
    with svc.uow() as uow:
        return b"".join(export(uow, since=None, until=None, keys=KEYS, chunk=512))


def check(data: bytes) -> dict[str, Any]:
    return verifier.verify(
        data.splitlines(keepends=True), [SIGNING_KEY.verifying.raw], allow_unsealed=True
    )


def failed(summary: dict[str, Any]) -> set[str]:
    return {c["name"] for c in summary["checks"] if not c["ok"]}


def rewrite(data: bytes, round_id: str, edit: Callable[[dict[str, Any]], None]) -> bytes:
    """The export with one round line edited (digests left as they are: the verifier's own
    recomputation of the round must catch it, whatever the chain says)."""
    lines = []
    for raw in data.splitlines(keepends=True):
        doc = json.loads(raw)
        if doc.get("type") == "round" and doc["id"] == round_id:
            edit(doc)
            raw = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode() + b"\n"
        lines.append(raw)
    return b"".join(lines)


def test_rounds_of_several_hands_export_verify_and_tampering_is_caught(
    svc: Svc, tmp_path: Path
) -> None:
    first, second = play(svc)
    data = exported(svc)
    summary = check(data)
    assert summary["ok"], [c for c in summary["checks"] if not c["ok"]]
    lines = [json.loads(raw) for raw in data.splitlines()]
    shaped = [doc for doc in lines if doc.get("type") == "round" and "table_round" in doc]
    assert len(shaped) == 4
    # The standalone file alone, isolated from the project and site packages.
    path = tmp_path / "export.ndjson"
    path.write_bytes(data)
    alone = subprocess.run(
        [sys.executable, "-I", "-S", verifier.__file__, str(path), "--allow-unsealed", "--json",
         "--key", SIGNING_KEY.verifying.raw.hex()],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert alone.returncode == 0, alone.stdout + alone.stderr

    def war_tie_payout(doc: dict[str, Any]) -> None:
        doc["table_round"]["hands"][0]["payouts"]["war_tie_bet"] += 1100

    def war_card(doc: dict[str, Any]) -> None:
        card = doc["table_round"]["wars"][0]["cards"][0]
        card["card"] = "AS" if card["card"] != "AS" else "2C"

    def ties(doc: dict[str, Any]) -> None:
        doc["table_round"]["hands"][0]["ties"] += 1

    def ladder_pay(doc: dict[str, Any]) -> None:
        doc["table_round"]["hands"][0]["payouts"]["tie_bet"] += 100

    for round_id, edit in ((first, war_tie_payout), (first, war_card), (second, ties),
                           (second, ladder_pay)):  # fmt: skip
        assert "rounds" in failed(check(rewrite(data, round_id, edit))), edit.__name__
    report = svc.audit()
    assert report.ok, [c for c in report.checks if not c.ok]
