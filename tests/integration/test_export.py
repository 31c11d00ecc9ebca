"""Issue 13, points 2 and 3: the ledger export, and the standalone verifier that checks it.

A ledger played through the service on SQLite and PostgreSQL (wins, losses, ties decided by
war and surrender, a war tied at a bonus table, an open round, deposits and a withdrawal,
revealed and unrevealed seeds, sealed and unsealed transactions) is exported and verified;
then exports are tampered with: an amount, a card, a seed, a line dropped, lines reordered,
and every single line of an export edited, dropped and moved in turn, each caught. Where a
tamperer would also recompute the lines' digests, the verifier's own recomputations (chains,
balances, Merkle roots under signed checkpoints, replays) must still catch it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from sqlalchemy import func, select

from casino.audit_export import casino_audit_export as verifier
from casino.cli import main as casino_cli
from casino.engine.casino_war import CasinoWarDeal, deal_casino_war
from casino.ledger.checkpoints import SigningKey, VerifyingKey
from casino.service import rounds, seeds, wallets
from casino.service.errors import Invalid
from casino.service.export import export
from casino.store.models import LedgerTransaction, Round, ServerSeed

from .conftest import SIGNING_KEY, Svc, is_tie, not_tie, tie_then

VERIFIER_FILE = Path(verifier.__file__)
KEYS = [SIGNING_KEY.verifying]
PINNED = [SIGNING_KEY.verifying.raw]


def wins(deal: CasinoWarDeal) -> bool:
    return deal.player.rank > deal.dealer.rank


def loses(deal: CasinoWarDeal) -> bool:
    return deal.player.rank < deal.dealer.rank


@dataclass
class Ledger:
    players: list[str]
    revealed: list[str]  # players whose first seed was revealed
    open_round: str
    middle: datetime  # right after the second checkpoint
    inside: datetime  # between two transactions the third checkpoint seals
    late: datetime  # right after the third checkpoint, before the unsealed transactions


def _bet(svc: Svc, player: str, want: Callable[[CasinoWarDeal], bool], table: str = "classic",
         decision: str | None = None, tie_bet: int = 0) -> str:  # fmt: skip
    svc.steer(player, want, decks=1 if table == "single-deck" else 6)
    view = svc.run(rounds.place_bet, player, table, 200, tie_bet)
    if decision is not None:
        svc.run(rounds.decide, view.id, decision, player_id=player)  # type: ignore[attr-defined]
    return str(view.id)  # type: ignore[attr-defined]


def play(svc: Svc) -> Ledger:
    a, b, c = (svc.player(funds=1_000_000) for _ in range(3))
    _bet(svc, a, wins)
    _bet(svc, a, loses, tie_bet=100)
    _bet(svc, b, tie_then("win"), decision="war", tie_bet=100)
    _bet(svc, b, is_tie, table="single-deck", decision="surrender")
    _bet(svc, c, tie_then("tie"), table="bonus", decision="war")
    _bet(svc, c, tie_then("lose"), decision="war")
    svc.seal()
    for player in (a, b):
        svc.run(seeds.rotate_seed, player)  # their rounds so far become verifiable
    _bet(svc, a, not_tie, table="single-deck")
    _bet(svc, b, wins, tie_bet=200)
    svc.seal()
    middle = _now(svc)
    _bet(svc, a, tie_then("win"), decision="surrender")
    inside = _now(svc)
    _bet(svc, c, loses)
    svc.seal()
    late = _now(svc)
    svc.run(wallets.withdraw, b, "EUR", 5_000, "cash out")
    _bet(svc, a, wins, table="bonus")
    open_round = _bet(svc, c, is_tie, tie_bet=100)  # left awaiting its decision, unsealed
    return Ledger([a, b, c], [a, b], open_round, middle, inside, late)


def _now(svc: Svc) -> datetime:
    with svc.factory() as session:
        last = session.execute(select(func.max(LedgerTransaction.created_at))).scalar_one()
    return last + timedelta(microseconds=1)


def exported(svc: Svc, since: datetime | None = None, until: datetime | None = None) -> bytes:
    with svc.uow() as uow:
        return b"".join(export(uow, since=since, until=until, keys=KEYS, chunk=512))


def check(
    data: bytes,
    keys: list[bytes] | None = None,
    *,
    allow_unsealed: bool = True,
    pins: dict[int, str] | None = None,
) -> dict[str, Any]:
    """The verifier's summary. Most tests here are about other things than the seals of the
    last transactions (``play`` leaves some unsealed, as a live ledger has): they allow
    unsealed ones; tests/integration/test_export_seals.py checks that the default refuses."""
    return verifier.verify(
        data.splitlines(keepends=True),
        PINNED if keys is None else keys,
        allow_unsealed=allow_unsealed,
        pins=pins,
    )


def failed(summary: dict[str, Any]) -> set[str]:
    return {c["name"] for c in summary["checks"] if not c["ok"]}


# ---------------------------------------------------------------- editing exports


def split(data: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in data.splitlines()]


def join(documents: list[dict[str, Any]], *, rechain: bool) -> bytes:
    """Lines back into an export; with ``rechain`` every digest (and the trailer's counts) is
    recomputed, as a tamperer who knows the format would: only the content can then betray
    the edit."""
    if rechain and documents and documents[-1]["type"] == "trailer":
        counts = Counter(document["type"] for document in documents[:-1])
        trailer = {**documents[-1], "lines": len(documents) - 1, "counts": dict(counts)}
        documents = [*documents[:-1], trailer]
    lines, prev = [], "0" * 64
    for document in documents:
        if rechain:
            document = {**document, "prev": prev}
        text = json.dumps(document, sort_keys=True, separators=(",", ":")).encode()
        prev = hashlib.sha256(text).hexdigest()
        lines.append(text + b"\n")
    return b"".join(lines)


def first(documents: list[dict[str, Any]], kind: str, where: Callable[[dict], bool]) -> int:
    return next(n for n, d in enumerate(documents) if d["type"] == kind and where(d))


# ---------------------------------------------------------------- round trips


def test_a_full_export_verifies_and_holds_everything(svc: Svc, demo_tables: list[str]) -> None:
    ledger = play(svc)
    data = exported(svc)
    summary = check(data)
    assert summary["ok"], [c for c in summary["checks"] if not c["ok"]]
    with svc.factory() as session:
        tx_count = session.execute(select(func.count()).select_from(LedgerTransaction)).scalar()
        round_count = session.execute(select(func.count()).select_from(Round)).scalar()
    counts = summary["counts"]
    assert counts["transaction"] == tx_count and counts["round"] == round_count == 12
    assert counts["checkpoint"] == 3 and "leaf" not in counts and "anchor" not in counts
    # Rounds of the two revealed seeds are re-dealt; the others are listed as not checkable.
    assert summary["rounds"]["redealt"] == 4  # a and b: two rounds each before rotating
    assert summary["rounds"]["payouts_recomputed"] == summary["rounds"]["money_matched"] == 12
    assert (
        len(summary["unchecked_rounds"]) == 8 and ledger.open_round in summary["unchecked_rounds"]
    )
    assert summary["keys"] == {"source": "pinned", "ids": [SIGNING_KEY.key_id]}
    in_play = next(c for c in summary["checks"] if c["name"] == "in_play")
    assert "(200)" in in_play["detail"]  # the open round's ante
    # The withdrawal and the last two bets are after the last checkpoint: counted, allowed.
    assert summary["transactions"] == {"sealed": tx_count - 3, "unsealed": 3}
    assert failed(check(data, allow_unsealed=False)) == {"sealed"}


def test_the_export_reveals_no_server_seed_before_its_time(
    svc: Svc, demo_tables: list[str]
) -> None:
    ledger = play(svc)
    data = exported(svc)
    with svc.factory() as session:
        found = session.execute(select(ServerSeed.player_id, ServerSeed.seed, ServerSeed.active))
        seeds_by_state = [(player, bytes(seed).hex(), active) for player, seed, active in found]
    assert len(seeds_by_state) == 5
    for player, seed, active in seeds_by_state:
        assert (seed.encode() in data) == (not active), player
    revealed = [d for d in split(data) if d["type"] == "seed" and d["server_seed"]]
    assert sorted(d["player_id"] for d in revealed) == sorted(ledger.revealed)


@pytest.mark.parametrize("window", ["since", "until", "both"])
def test_partial_exports_verify(svc: Svc, demo_tables: list[str], window: str) -> None:
    ledger = play(svc)
    since, until = {
        "since": (ledger.inside, None),  # starts inside the third checkpoint
        "until": (None, ledger.inside),  # ends inside it
        "both": (ledger.middle, ledger.late),  # exactly the third checkpoint
    }[window]
    data = exported(svc, since, until)
    summary = check(data)
    assert summary["ok"], [c for c in summary["checks"] if not c["ok"]]
    documents = split(data)
    assert documents[0]["scope"] == "partial"
    assert (documents[0]["since"] is None) == (since is None)
    times = [d["created_at"] for d in documents if d["type"] == "transaction"]
    assert times and all(
        (since is None or t >= since.isoformat()) and (until is None or t < until.isoformat())
        for t in times
    )
    kinds = Counter(d["type"] for d in documents)
    checkpoints = [d["seq"] for d in documents if d["type"] == "checkpoint"]
    if window == "since":
        # The checkpoint before is the anchor; the third one's earlier transactions, leaves.
        assert kinds["anchor"] == 1 and checkpoints == [3] and kinds["leaf"] > 0
    elif window == "until":
        assert "anchor" not in kinds and checkpoints == [1, 2, 3] and kinds["leaf"] > 0
    else:
        assert kinds["anchor"] == 1 and checkpoints == [3] and "leaf" not in kinds
    opened = [d for d in documents if d["type"] == "account" and d["opening"]]
    assert opened and all(d["kind"] == "wallet" for d in opened)
    if since is not None:
        assert any(d["opening"]["chain_length"] > 0 for d in opened)


def test_a_range_with_nothing_in_it_still_verifies(svc: Svc, demo_tables: list[str]) -> None:
    play(svc)
    data = exported(svc, since=datetime.now().astimezone() + timedelta(days=1))
    summary = check(data)
    assert summary["ok"] and "transaction" not in summary["counts"]


def test_the_range_must_be_a_range(svc: Svc) -> None:
    moment = datetime.now().astimezone()
    with svc.uow() as uow, pytest.raises(Invalid) as refused:
        next(iter(export(uow, since=moment, until=moment, keys=KEYS)))
    assert refused.value.code == "invalid_range"


# ---------------------------------------------------------------- tampering


def _amount(documents: list[dict[str, Any]], ledger: Ledger) -> int:
    n = first(documents, "transaction", lambda d: d["kind"] == "bet" and len(d["postings"]) == 4)
    postings = documents[n]["postings"]
    postings[2][2] += 100  # the house pays back 100 less ...
    postings[3][2] -= 100  # ... and the wallet gets 100 less: still balanced
    return n


def _card(documents: list[dict[str, Any]], ledger: Ledger) -> int:
    n = first(documents, "round", lambda d: d["player_id"] in ledger.revealed)
    documents[n]["player_card"] = "AS" if documents[n]["player_card"] != "AS" else "KS"
    return n


def _seed(documents: list[dict[str, Any]], ledger: Ledger) -> int:
    n = first(documents, "seed", lambda d: d["server_seed"] is not None)
    seed = documents[n]["server_seed"]
    documents[n]["server_seed"] = ("1" if seed[0] != "1" else "2") + seed[1:]
    return n


TAMPERINGS: dict[str, tuple[Callable[[list[dict[str, Any]], Ledger], int], set[str]]] = {
    # what is edited -> the checks that recompute it and must fail even with digests redone
    "amount": (_amount, {"wallet_chains", "running_balances", "checkpoints"}),
    "card": (_card, {"rounds"}),
    "seed": (_seed, {"rounds"}),
}


@pytest.mark.parametrize("rechain", [False, True], ids=["digests-kept", "digests-redone"])
@pytest.mark.parametrize("what", sorted(TAMPERINGS))
def test_an_edited_amount_card_or_seed_is_caught(
    svc: Svc, demo_tables: list[str], what: str, rechain: bool
) -> None:
    ledger = play(svc)
    documents = split(exported(svc))
    edit, content_checks = TAMPERINGS[what]
    edit(documents, ledger)
    summary = check(join(documents, rechain=rechain))
    assert not summary["ok"]
    assert content_checks <= failed(summary)
    assert ("format" in failed(summary)) != rechain


@pytest.mark.parametrize("rechain", [False, True], ids=["digests-kept", "digests-redone"])
@pytest.mark.parametrize("kind", ["transaction", "round", "checkpoint", "seed"])
def test_a_dropped_line_is_caught(
    svc: Svc, demo_tables: list[str], kind: str, rechain: bool
) -> None:
    play(svc)
    documents = split(exported(svc))
    n = first(documents, kind, lambda d: d.get("server_seed", "") is not None)
    del documents[n]
    summary = check(join(documents, rechain=rechain))
    assert not summary["ok"]
    content = failed(summary) - {"format"}
    assert bool(content), failed(summary)  # what the line held is missed without the digests


@pytest.mark.parametrize("rechain", [False, True], ids=["digests-kept", "digests-redone"])
def test_reordered_lines_are_caught(svc: Svc, demo_tables: list[str], rechain: bool) -> None:
    play(svc)
    documents = split(exported(svc))
    n = first(documents, "transaction", lambda d: True)
    m = next(i for i in range(n + 1, len(documents)) if documents[i]["type"] == "transaction")
    documents[n], documents[m] = documents[m], documents[n]
    summary = check(join(documents, rechain=rechain))
    assert not summary["ok"] and "format" in failed(summary)
    # With the digests redone, the order itself is still wrong: commit order, and the
    # checkpoint's Merkle root is over the transactions in that order.
    if rechain:
        problems = next(c for c in summary["checks"] if c["name"] == "format")["examples"]
        assert any("out of commit order" in p for p in problems)


def test_transactions_of_one_wallet_may_commit_out_of_chain_order(svc: Svc) -> None:
    """Two requests of one player can commit in the other order than they chained (on
    PostgreSQL the second may hold an older transaction id): the verifier chains by position,
    not by line. In the export's own order (commit order) they must stay."""
    a = svc.player(funds=10_000)
    svc.seal()
    svc.run(wallets.deposit, a, "EUR", 100, "first")
    svc.run(wallets.deposit, a, "EUR", 200, "second")
    documents = split(exported(svc))
    x, y = (n for n, d in enumerate(documents) if d.get("reference") in ("first", "second"))
    first_tx, second_tx = documents[x], documents[y]
    assert second_tx["wallet_seq"] == first_tx["wallet_seq"] + 1
    # The second link committed first: its commit position and line come first.
    first_tx["commit_seq"], second_tx["commit_seq"] = (
        second_tx["commit_seq"],
        first_tx["commit_seq"],
    )
    documents[x], documents[y] = second_tx, first_tx
    summary = check(join(documents, rechain=True))
    assert summary["ok"], failed(summary)
    # Lines out of commit order are not: the export's order is part of what it proves.
    documents = split(exported(svc))
    documents[x], documents[y] = documents[y], documents[x]
    assert failed(check(join(documents, rechain=True))) == {"format"}


# Where a tamperer redoes every digest, a field is only caught if the export proves it some
# other way. These fields state something the export cannot prove on its own: when it was
# made and where it is documented, row ids (labels: everything refers to accounts by key and
# to seeds by hash), the seed's bookkeeping (its times, and next_nonce: the rounds it dealt
# are checked one by one), a round's table name and times and who took its decision, and a
# transaction's commit_seq (its place in commit order: the leaves a checkpoint seals are
# (id, hash), and the order of the lines is checked, not the number). An edit of one of
# them with every digest redone is a consistent export; with the digests kept, it is caught
# like any other.
UNPROVABLE = {
    "header": {("exported_at",), ("specification",)},
    "account": {("id",)},
    "seed": {("id",), ("created_at",), ("revealed_at",), ("next_nonce",)},
    "round": {("table_id",), ("created_at",), ("settled_at",)},
    "transaction": {("commit_seq",)},
}


#: What a round whose seed is not revealed yet states without proof (and its war's cards).
UNREVEALED = {("fairness", "client_seed"), ("rules", "decks"), ("player_card",), ("dealer_card",)}
#: A wallet's chain state (a shared account has none: both are null).
SHARED_STATE = ("head", "opening")


def _rank(card: str) -> str:
    return card[:-1]


def _provable(doc: dict[str, Any], path: tuple[Any, ...], revealed: set[str]) -> bool:
    """Whether the export proves this field of this line, with every digest redone."""
    if path in UNPROVABLE.get(doc["type"], set()):
        return False
    if doc["type"] == "account" and doc["kind"] != "wallet" and path[0] in SHARED_STATE:
        return False  # test_a_shared_account_cannot_be_given_a_chain
    if doc["type"] != "round":
        return True
    # Not re-dealt until its seed is revealed (and listed as such): what only the deal
    # decides, the client seed, the number of decks, the cards, is proven only as far as it
    # decides the payouts, which an edit keeping the outcome does not change.
    unrevealed = doc["fairness"]["server_seed_hash"] not in revealed
    if unrevealed and (path in UNREVEALED or (path[0] == "war" and len(path) > 1)):
        return False
    # A rule is proven where it decided the round's money, or its legality.
    war, decision = doc["war"], doc["decision"]
    relevant = {
        "tie_pays": doc["bets"]["tie_bet"] > 0
        and _rank(doc["player_card"]) == _rank(doc["dealer_card"]),
        "war_tie_bonus": war is not None and _rank(war["player_card"]) == _rank(war["dealer_card"]),
        "surrender_allowed": decision is not None and decision["action"] == "surrender",
    }
    return not (path[:1] == ("rules",) and not relevant.get(path[1], True))


def _same_cards_with_decks(doc: dict[str, Any], decks: int, seed_of: dict[str, str]) -> bool:
    """Whether a revealed round, re-dealt from a shoe of ``decks`` decks, shows the very
    cards it shows (for a round without a war, about one chance in a few thousand): its
    number of decks is then not proven by the re-deal."""
    fairness = doc["fairness"]
    seed = seed_of.get(fairness["server_seed_hash"])
    if seed is None:
        return False
    deal = deal_casino_war(bytes.fromhex(seed), fairness["client_seed"], fairness["nonce"], decks)
    shown = [doc["player_card"], doc["dealer_card"]]
    dealt = list(deal.codes[:2])
    if doc["war"] is not None:
        war = doc["war"]
        shown += [*war["burns"], war["player_card"], war["dealer_card"]]
        dealt = list(deal.codes)
    return dealt == shown


def _fields(doc: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every value of a line (but its type and its link to the line before)."""
    if isinstance(doc, dict):
        for key, value in doc.items():
            if path or key not in ("type", "prev"):
                yield from _fields(value, (*path, key))
    elif isinstance(doc, list):
        for n, value in enumerate(doc):
            yield from _fields(value, (*path, n))
    else:
        yield path


def _get(doc: Any, path: tuple[Any, ...]) -> Any:
    for step in path:
        doc = doc[step]
    return doc


def _changed(value: Any, path: tuple[Any, ...], elsewhere: list[Any]) -> Any:
    """Another plausible value for a field: a number off by one, a boolean flipped, another
    card of the same suit, another hex digest, a string changed; for a null, the same field
    of another line of its kind (another wallet's head, another round's war, another seed's
    value), None if none has one."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        if len(value) in (2, 3) and value[-1] in "CDHS" and value[:-1] in RANKS:
            return RANKS[(RANKS.index(value[:-1]) + 1) % len(RANKS)] + value[-1]
        if value and all(ch in "0123456789abcdef" for ch in value):
            return ("1" if value[0] != "1" else "2") + value[1:]
        return value + "x"
    if value is None:
        return next((other for other in elsewhere if other is not None), None)
    raise AssertionError(f"no edit for {path}: {value!r}")


RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def _edited(doc: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    copy = json.loads(json.dumps(doc))
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return copy


def test_every_single_line_edited_dropped_or_moved_is_caught(
    svc: Svc, demo_tables: list[str]
) -> None:
    """Over an export with every kind of line: the header, the accounts (shared and
    wallets), revealed and unrevealed seeds, rounds settled on their first cards, by a war
    and by a surrender and one awaiting its decision, transactions sealed and not, the
    checkpoints and the trailer.

    With the lines' digests kept (the tamperer edits one line): every line, edited in a
    field, dropped, or swapped with the next, is caught. With every digest redone: every
    field of every line but the UNPROVABLE ones, edited, is caught by the content checks,
    and so is every line dropped but the last checkpoint (see below)."""
    play(svc)
    data = exported(svc)
    assert check(data)["ok"]
    lines = data.splitlines(keepends=True)
    documents = split(data)
    kinds = Counter(d["type"] for d in documents)
    assert kinds.keys() == {"header", "account", "seed", "round", "transaction", "checkpoint",
                            "trailer"}  # fmt: skip
    seeds_ = [d for d in documents if d["type"] == "seed"]
    assert {d["server_seed"] is None for d in seeds_} == {True, False}
    revealed = {d["server_seed_hash"] for d in seeds_ if d["server_seed"] is not None}
    played = [d for d in documents if d["type"] == "round"]
    assert any(d["status"] == "settled" and d["decision"] is None for d in played)
    assert any(d["war"] is not None for d in played)
    assert any(d["decision"] and d["decision"]["action"] == "surrender" for d in played)
    assert any(d["status"] == "awaiting_decision" for d in played)
    assert any(d["fairness"]["server_seed_hash"] in revealed for d in played)
    assert any(d["wallet_seq"] for d in documents if d["type"] == "transaction")
    last = len(lines) - 1
    seed_of = {d["server_seed_hash"]: d["server_seed"] for d in seeds_ if d["server_seed"]}

    def caught(export_lines: list[bytes]) -> bool:
        return not check(b"".join(export_lines))["ok"]

    # The digests kept: the edit of a line (its first provable field, for a meaningful one)
    # breaks the next line's link, or for the trailer its own counts.
    for n, doc in enumerate(documents):
        path = next(p for p in _fields(doc) if _provable(doc, p, revealed))
        new = _changed(_get(doc, path), path, [])
        assert new not in (None, _get(doc, path)), (n, path)
        line = json.dumps(_edited(doc, path, new), sort_keys=True, separators=(",", ":"))
        assert caught([*lines[:n], line.encode() + b"\n", *lines[n + 1 :]]), (n, path)
        assert caught(lines[:n] + lines[n + 1 :]), f"drop of line {n + 1} missed"
        if n < last:
            swapped = [*lines[:n], lines[n + 1], lines[n], *lines[n + 2 :]]
            assert caught(swapped), f"swap of lines {n + 1}, {n + 2} missed"

    # Every digest redone: the content must betray the edit. (The trailer is recomputed by
    # the rechaining itself.)
    missed = []
    for n, doc in enumerate(documents[:last]):
        for path in _fields(doc):
            if not _provable(doc, path, revealed):
                continue
            others = [
                _get(d, path) for d in documents if d["type"] == doc["type"] and _has(d, path)
            ]
            new = _changed(_get(doc, path), path, others)
            if new is None:
                continue  # a null no line of its kind fills: nothing plausible to put there
            if path == ("rules", "decks") and _same_cards_with_decks(doc, new, seed_of):
                continue  # a shoe of that size deals this round the same cards: no proof
            edited = [*documents[:n], _edited(doc, path, new), *documents[n + 1 :]]
            if check(join(edited, rechain=True))["ok"]:
                missed.append((n + 1, doc["type"], path, new))
    assert missed == [], "\n".join(map(repr, missed))

    # Dropped, every digest redone: caught, but for the last checkpoint where unsealed
    # transactions are allowed. Without it the transactions it sealed read as not sealed
    # yet, which an export alone cannot tell from an export made before that checkpoint:
    # the unsealed count grows, which fails unless allowed, and a pin of the last checkpoint
    # catches it either way (tests/integration/test_export_seals.py).
    final_checkpoint = max(n for n, d in enumerate(documents) if d["type"] == "checkpoint")
    for n in range(last):
        dropped = join(documents[:n] + documents[n + 1 :], rechain=True)
        if n != final_checkpoint:
            assert not check(dropped)["ok"], f"line {n + 1} dropped"
        else:
            assert check(dropped)["ok"]
            assert failed(check(dropped, allow_unsealed=False)) == {"sealed"}


def test_a_shared_account_cannot_be_given_a_chain(svc: Svc) -> None:
    """Only wallets have a chain; a shared account's head and opening are null, and the
    verifier refuses one that is not, every digest redone."""
    a = svc.player(funds=10_000)
    svc.run(wallets.withdraw, a, "EUR", 1_000, "out")
    documents = split(exported(svc))
    wallet = next(d for d in documents if d["type"] == "account" and d["kind"] == "wallet")
    escaped = []
    for n, doc in enumerate(documents):
        if doc["type"] == "account" and doc["kind"] != "wallet":
            for field in SHARED_STATE:
                edited = [*documents[:n], {**doc, field: wallet[field]}, *documents[n + 1 :]]
                if check(join(edited, rechain=True))["ok"]:
                    escaped.append((doc["key"], field))
    assert escaped == []


def _has(doc: Any, path: tuple[Any, ...]) -> bool:
    for step in path:
        if (isinstance(doc, dict) and step in doc) or (
            isinstance(doc, list) and isinstance(step, int) and step < len(doc)
        ):
            doc = doc[step]
        else:
            return False
    return True


def test_checkpoints_signed_by_another_key_are_refused(svc: Svc, demo_tables: list[str]) -> None:
    play(svc)
    data = exported(svc)
    other = SigningKey.generate().verifying.raw
    assert failed(check(data, [other])) == {"checkpoints"}
    # Without pinned keys the verifier uses the export's own, and says so.
    summary = check(data, [])
    assert summary["ok"] and summary["keys"]["source"] == "export"
    # A checkpoint re-signed by a forger's key, announced in the header: only pinning helps.
    forger = SigningKey.generate()
    documents = split(data)
    for document in documents:
        if document["type"] == "checkpoint":
            document["key_id"] = forger.key_id
            document["signature"] = forger.sign(document["hash"])
    documents[0]["keys"] = [{"key_id": forger.key_id, "public_key": forger.verifying.hex}]
    forged = join(documents, rechain=True)
    assert check(forged, [])["ok"]
    assert failed(check(forged)) == {"checkpoints"}


def test_a_truncated_export_is_caught(svc: Svc, demo_tables: list[str]) -> None:
    play(svc)
    data = exported(svc)
    summary = check(data[: len(data) // 2])
    assert "format" in failed(summary)
    assert any("truncated" in e for e in summary["checks"][0]["examples"])


def test_the_export_reads_one_snapshot(
    svc: Svc, demo_tables: list[str], backend: str, db_url: str
) -> None:
    """What is committed while an export is being read is not in it: the export is the
    books at one moment. PostgreSQL: a REPEATABLE READ snapshot, and bets go on meanwhile;
    SQLite: the export's transaction holds the database, so writers wait for it."""
    ledger = play(svc)
    with svc.uow() as uow:
        chunks = export(uow, since=None, until=None, keys=KEYS, chunk=256)
        head = next(chunks)  # begun: the snapshot is taken
        if backend == "postgresql":
            svc.run(wallets.deposit, ledger.players[0], "EUR", 777, "during the export")
        else:
            # Another connection cannot write meanwhile (it would wait for the lock).
            other = sqlite3.connect(db_url.removeprefix("sqlite:///"), timeout=0)
            try:
                with pytest.raises(sqlite3.OperationalError, match="locked"):
                    other.execute("BEGIN IMMEDIATE")
            finally:
                other.close()
        data = head + b"".join(chunks)
    summary = check(data)
    assert summary["ok"]
    assert b"during the export" not in data
    if backend == "postgresql":
        assert b"during the export" in exported(svc)


# ---------------------------------------------------------------- commands


def _env() -> dict[str, str]:
    return {**os.environ, "CASINO_SIGNING_KEY": SIGNING_KEY.private_hex()}


def test_casino_export_and_verify_export(svc: Svc, demo_tables: list[str], db_url: str,
                                         tmp_path: Path) -> None:  # fmt: skip
    ledger = play(svc)
    runner = CliRunner()
    out = tmp_path / "export.ndjson"
    result = runner.invoke(
        casino_cli, ["export", "--database-url", db_url, "--output", str(out)], env=_env()
    )
    assert result.exit_code == 0, result.output
    assert not Path(f"{out}.part").exists()
    key = SIGNING_KEY.verifying.hex
    # The last transactions are not sealed yet: refused, unless allowed (and still counted).
    unsealed = runner.invoke(casino_cli, ["verify-export", str(out), "--key", key])
    assert unsealed.exit_code == 1 and "not sealed: 3" in unsealed.output, unsealed.output
    allow = "--allow-unsealed"
    verified = runner.invoke(casino_cli, ["verify-export", str(out), "--json", "--key", key, allow])
    assert verified.exit_code == 0, verified.output
    assert json.loads(verified.output)["ok"]
    assert json.loads(verified.output)["transactions"]["unsealed"] == 3
    partial = tmp_path / "partial.ndjson"
    since = ledger.middle.isoformat()
    result = runner.invoke(
        casino_cli,
        ["export", "--database-url", db_url, "--since", since, "-o", str(partial)],
        env=_env(),
    )
    assert result.exit_code == 0, result.output
    partial_verified = runner.invoke(
        casino_cli, ["verify-export", str(partial), "--key", key, allow]
    )
    assert partial_verified.exit_code == 0, partial_verified.output
    documents = split(out.read_bytes())
    _card(documents, ledger)
    out.write_bytes(join(documents, rechain=True))
    refused = runner.invoke(casino_cli, ["verify-export", str(out), "--key", key, allow])
    assert refused.exit_code == 1 and "FAIL" in refused.output
    backwards = runner.invoke(
        casino_cli,
        ["export", "--database-url", db_url, "--since", "2026-02-01", "--until", "2026-01-01"],
        env=_env(),
    )
    assert backwards.exit_code == 2 and "since must be earlier" in backwards.output
    unreadable = runner.invoke(casino_cli, ["verify-export", str(tmp_path / "missing")])
    assert unreadable.exit_code == 2


def copied_alone(tmp_path: Path, documents: list[dict[str, Any]]) -> Path:
    """A directory holding the verifier file alone and ``export.ndjson`` of ``documents``:
    what an auditor has on their own machine."""
    alone = tmp_path / "auditor"
    alone.mkdir()
    shutil.copy(VERIFIER_FILE, alone / "casino_audit_export.py")
    (alone / "export.ndjson").write_bytes(join(documents, rechain=False))
    return alone


#: The environment of an interpreter run alone: no variable of this one's.
ALONE_ENV = {"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8"}


def test_the_verifier_runs_alone_with_no_project_package(
    svc: Svc, demo_tables: list[str], tmp_path: Path
) -> None:
    """Copied alone into an empty directory and run by an isolated interpreter without any
    site-packages (-I -S): only the standard library is importable there."""
    ledger = play(svc)
    documents = split(exported(svc))
    alone = copied_alone(tmp_path, documents)
    python = [sys.executable, "-I", "-S"]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*python, *args], cwd=alone, env=ALONE_ENV, capture_output=True, text=True, timeout=300
        )

    for package in ("casino", "sqlalchemy", "cryptography"):
        assert run("-c", f"import {package}").returncode != 0, package
    key = SIGNING_KEY.verifying.hex
    allow = "--allow-unsealed"  # the last transactions of the ledger are not sealed yet
    verified = run("casino_audit_export.py", "export.ndjson", "--json", "--key", key, allow)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    summary = json.loads(verified.stdout)
    assert summary["ok"] and summary["rounds"]["redealt"] == 4
    assert len(summary["unchecked_rounds"]) == 8
    assert run("casino_audit_export.py", "export.ndjson", "--key", key).returncode == 1
    _seed(documents, ledger)
    (alone / "tampered.ndjson").write_bytes(join(documents, rechain=True))
    refused = run("casino_audit_export.py", "tampered.ndjson", "--key", key, allow)
    assert refused.returncode == 1 and "FAIL" in refused.stdout
    assert run("casino_audit_export.py", "missing.ndjson").returncode == 2


def test_verifying_keys_can_be_pinned_from_pem(svc: Svc, tmp_path: Path) -> None:
    svc.player(funds=1_000)
    svc.seal()
    data = exported(svc)
    pem = tmp_path / "key.pem"
    pem.write_text(VerifyingKey(SIGNING_KEY.verifying.raw).pem())
    export_file = tmp_path / "e.ndjson"
    export_file.write_bytes(data)
    assert verifier.main([str(export_file), "--key", str(pem)]) == 0
